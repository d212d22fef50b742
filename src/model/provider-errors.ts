/**
 * What each provider's failures mean and which of its variables a message names. The SDKs all
 * raise the Anthropic SDK's errors; what differs is the body (Bedrock's `{"message"}` with the
 * exception in `x-amzn-errortype`, Google's `{"error": {"status"}}`), the types inside a stream
 * (Bedrock's `throttlingException` event), and what a credential failure before the request
 * looks like. Throttling and overload are retried, a refused credential or permission is not.
 */
import type { APIConnectionError } from './anthropic-sdk.js';
import { ANTHROPIC_API_KEY_ERRORS, causeChain, innermostMessage } from './anthropic-errors.js';
import type { ErrorContext } from './anthropic-errors.js';
import { ModelError } from './model-client.js';
import type { ModelErrorKind } from './model-client.js';
import type {
  AnthropicSettings,
  BedrockSettings,
  ProviderSettings,
  VertexSettings,
} from './provider-settings.js';

export function errorContextFor(settings: ProviderSettings): ErrorContext {
  switch (settings.provider) {
    case 'anthropic':
      return anthropicContext(settings);
    case 'bedrock':
      return bedrockContext(settings);
    case 'vertex':
      return vertexContext(settings);
    case 'foundry':
      return {
        service: 'Microsoft Foundry',
        rejected: (detail) =>
          `Microsoft Foundry rejected the API key (${detail}). Check that ${settings.auth.from} holds a key of the resource at ${settings.baseURL}.`,
        forbidden: (detail) =>
          `The key in ${settings.auth.from} is not allowed to make this request (${detail}). Check that the model is deployed under that name in the Foundry resource.`,
        urlVariable: 'ANTHROPIC_FOUNDRY_RESOURCE (or ANTHROPIC_FOUNDRY_BASE_URL)',
      };
  }
}

function anthropicContext(settings: AnthropicSettings): ErrorContext {
  const { auth } = settings;
  if (auth.kind === 'api-key' && auth.from === 'ANTHROPIC_API_KEY') return ANTHROPIC_API_KEY_ERRORS;
  const what =
    auth.kind === 'api-key'
      ? 'API key'
      : auth.kind === 'oauth'
        ? 'Claude Code OAuth token'
        : 'token';
  const check =
    auth.kind === 'api-key'
      ? 'a valid, active key'
      : auth.kind === 'oauth'
        ? 'a current token (`claude setup-token` makes one that lasts a year)'
        : 'a token the gateway at ANTHROPIC_BASE_URL accepts';
  return {
    ...ANTHROPIC_API_KEY_ERRORS,
    rejected: (detail) =>
      `The Anthropic API rejected the ${what} (${detail}). Check that ${auth.from} holds ${check}.`,
    forbidden: (detail) =>
      `The ${what} in ${auth.from} is not allowed to make this request (${detail}). Check its account's model access.`,
  };
}

/** Bedrock Runtime's exceptions, by name (the header's and the stream's, lower-cased). */
const BEDROCK_KINDS: Readonly<Record<string, ModelErrorKind>> = {
  throttlingexception: 'rate-limit',
  servicequotaexceededexception: 'rate-limit',
  modelnotreadyexception: 'server',
  serviceunavailableexception: 'overloaded',
  internalserverexception: 'server',
  modelstreamerrorexception: 'server',
  modeltimeoutexception: 'server',
  accessdeniedexception: 'permission',
  unrecognizedclientexception: 'authentication',
  invalidsignatureexception: 'authentication',
  expiredtokenexception: 'authentication',
  incompletesignatureexception: 'authentication',
  validationexception: 'invalid-request',
  resourcenotfoundexception: 'invalid-request',
};

function bedrockContext(settings: BedrockSettings): ErrorContext {
  const credentials =
    settings.auth.kind === 'keys'
      ? 'AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (a role session from aws-actions/configure-aws-credentials expires after its role-duration-seconds)'
      : settings.auth.kind === 'api-key'
        ? `${settings.auth.from} (a Bedrock API key)`
        : settings.auth.from;
  return {
    service: 'Amazon Bedrock',
    rejected: (detail) =>
      `Amazon Bedrock rejected the AWS credentials (${detail}). Check ${credentials}.`,
    forbidden: (detail) =>
      `The AWS credentials are not allowed to call this model in ${settings.region} (${detail}). The role needs bedrock:InvokeModelWithResponseStream on the model and its inference profile, and the model must be enabled for the account.`,
    urlVariable: 'ANTHROPIC_BEDROCK_BASE_URL (or AWS_REGION)',
    errorTypeOf: (error) => error.headers?.get('x-amzn-errortype')?.split(':')[0] || undefined,
    kinds: BEDROCK_KINDS,
    credentialFailure: (error, url) =>
      credentialFailure(error, url, {
        service: 'Amazon Bedrock',
        marker: /AWS credentials/,
        hint: `no AWS credentials could be found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (aws-actions/configure-aws-credentials with role-to-assume does, through OIDC), AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK`,
        missing: /Could not load credentials|Unable to find|not configured|no credentials/i,
      }),
  };
}

/** Google's canonical error statuses (`{"error": {"status": …}}`), lower-cased. */
const VERTEX_KINDS: Readonly<Record<string, ModelErrorKind>> = {
  resource_exhausted: 'rate-limit',
  unavailable: 'overloaded',
  internal: 'server',
  deadline_exceeded: 'server',
  unauthenticated: 'authentication',
  permission_denied: 'permission',
  invalid_argument: 'invalid-request',
  not_found: 'invalid-request',
  failed_precondition: 'invalid-request',
};

function vertexContext(settings: VertexSettings): ErrorContext {
  return {
    service: 'Google Vertex AI',
    rejected: (detail) =>
      `Google Vertex AI rejected the Google credentials (${detail}). Check ${settings.auth.from} (google-github-actions/auth writes the file and sets the variable).`,
    forbidden: (detail) =>
      `The Google credentials are not allowed to call this model in project ${settings.projectId}, region ${settings.region} (${detail}). The account needs roles/aiplatform.user there, and the model must be enabled in Model Garden.`,
    urlVariable: 'ANTHROPIC_VERTEX_BASE_URL (or CLOUD_ML_REGION)',
    errorTypeOf: (error) => googleStatus(error.error),
    kinds: VERTEX_KINDS,
    credentialFailure: (error, url) =>
      credentialFailure(error, url, {
        service: 'Google Vertex AI',
        marker: /Google OAuth credentials/,
        hint: `no Google credentials could be used: set GOOGLE_APPLICATION_CREDENTIALS to a credentials file (google-github-actions/auth writes one, for workload identity federation or a service account key)`,
        missing: /Could not load the default credentials|Unable to detect a Project Id|ENOENT/i,
      }),
  };
}

function googleStatus(body: unknown): string | undefined {
  const first: unknown = Array.isArray(body) ? body[0] : body;
  if (typeof first !== 'object' || first === null) return undefined;
  const error = (first as Record<string, unknown>)['error'];
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as Record<string, unknown>)['status'];
  return typeof status === 'string' ? status : undefined;
}

interface CredentialFailure {
  service: string;
  /** What the SDK's message says when it could not get credentials. */
  marker: RegExp;
  /** What to do when there were none. */
  hint: string;
  /** The cause's words for "none at all". */
  missing: RegExp;
}

/**
 * No credentials at all, or a token service that answered 4xx, is a setup problem: no retry
 * helps, and ten of them would only hide it. A token service out of reach stays a connection
 * error, retried like any other.
 */
function credentialFailure(
  error: APIConnectionError,
  url: string | undefined,
  failure: CredentialFailure,
): ModelError | undefined {
  if (!failure.marker.test(error.message)) return undefined;
  const detail = innermostMessage(error);
  const status = httpStatusInChain(error);
  const refused = status !== undefined && status >= 400 && status < 500;
  if (!failure.missing.test(detail) && !refused) return undefined;
  const message = refused
    ? `${failure.service}: the credentials were refused when exchanged for a token (${status}: ${detail}).`
    : `${failure.service}: ${failure.hint}. (${detail})`;
  return new ModelError(message, {
    kind: 'authentication',
    retryable: false,
    detail,
    ...(url === undefined ? {} : { url }),
    cause: error,
  });
}

/** A token service's HTTP status, as gaxios and the AWS SDK attach it to their errors. */
function httpStatusInChain(error: unknown): number | undefined {
  for (const link of causeChain(error)) {
    const record = link as unknown as Record<string, unknown>;
    const response = record['response'] as Record<string, unknown> | undefined;
    const candidates = [record['status'], response?.['status'], record['$metadata']];
    for (const candidate of candidates) {
      if (typeof candidate === 'number') return candidate;
      if (typeof candidate === 'object' && candidate !== null) {
        const code = (candidate as Record<string, unknown>)['httpStatusCode'];
        if (typeof code === 'number') return code;
      }
    }
  }
  return undefined;
}
