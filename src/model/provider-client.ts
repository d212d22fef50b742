/**
 * The one model port over the provider the settings chose. Anthropic's API and Foundry (the same
 * Messages API, another host and header) use the slim client loaded at start-up
 * (anthropic-sdk.ts); Bedrock and Vertex AI load their SDKs only when chosen (provider-sdks.ts,
 * bundles of their own in dist/): the Bedrock SDK brings the AWS SDK, the Vertex AI one Google's
 * auth library, and a run on Anthropic's API parses neither (docs/BENCHMARKS.md,
 * "action-startup").
 *
 * Every SDK gets its settings passed in, never left to read the environment itself: the values
 * were checked (provider-settings.ts), and runAction's `env` need not be `process.env`. What they
 * still read from the process is the credential chains (an AWS profile, Google's Application
 * Default Credentials), which only the process environment can point at.
 */
import { createStreamingClient, messagesUrl } from './anthropic-client.js';
import { FoundryMessagesClient, MessagesClient } from './anthropic-sdk.js';
import type { ModelClient } from './model-client.js';
import type { SdkErrorClasses } from './anthropic-errors.js';
import { errorContextFor } from './provider-errors.js';
import { loadBedrockSdk, loadVertexSdk } from './provider-sdks.js';
import type {
  AnthropicSettings,
  BedrockSettings,
  FoundrySettings,
  ProviderSettings,
  VertexSettings,
} from './provider-settings.js';

/** The beta Claude Code names when it sends an OAuth token; the API wants it for such tokens. */
export const OAUTH_BETA = 'oauth-2025-04-20';

/**
 * The API versions Bedrock and Vertex AI document for Anthropic's models. The SDKs copy their
 * `anthropic-version` header into the body, which is the Messages API's own version unless the
 * header says otherwise.
 */
const BEDROCK_VERSION = 'bedrock-2023-05-31';
const VERTEX_VERSION = 'vertex-2023-10-16';

export interface ProviderClientOptions {
  /** Per-request timeout in milliseconds (SDK default: 10 minutes). */
  timeoutMs?: number;
}

export async function createProviderClient(
  settings: ProviderSettings,
  options: ProviderClientOptions = {},
): Promise<ModelClient> {
  switch (settings.provider) {
    case 'anthropic':
      return anthropicClient(settings, options);
    case 'bedrock':
      return bedrockClient(settings, options);
    case 'vertex':
      return vertexClient(settings, options);
    case 'foundry':
      return foundryClient(settings, options);
  }
}

/** What every SDK gets: the loop owns retries; the headers and timeout as configured. */
function common(settings: ProviderSettings, options: ProviderClientOptions) {
  return {
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  };
}

/** `sdk`: the client class of an SDK bundled apart, whose error classes are its own. */
function streaming(
  settings: ProviderSettings,
  urlOf: (model: string) => string,
  sdk?: SdkErrorClasses,
) {
  const errors = errorContextFor(settings);
  return { caching: settings.promptCaching, urlOf, errors: sdk ? { ...errors, sdk } : errors };
}

function anthropicClient(settings: AnthropicSettings, options: ProviderClientOptions): ModelClient {
  const { auth } = settings;
  const baseURL = settings.baseURL ?? 'https://api.anthropic.com';
  const headers: Record<string, string> = { ...settings.headers };
  if (auth.kind === 'oauth') headers['anthropic-beta'] = withBeta(headers, OAUTH_BETA);
  const sdk = new MessagesClient({
    ...common(settings, options),
    baseURL,
    // One credential, passed: `null` keeps the SDK from reading another from the environment.
    ...(auth.kind === 'api-key'
      ? { apiKey: auth.token, authToken: null }
      : { apiKey: null, authToken: auth.token }),
    defaultHeaders: headers,
  });
  const url = messagesUrl(baseURL);
  return createStreamingClient(
    sdk,
    streaming(settings, () => url),
  );
}

/** The beta header's value with `beta` added to what the custom headers already ask for. */
function withBeta(headers: Readonly<Record<string, string>>, beta: string): string {
  const named = Object.entries(headers).find(([name]) => name.toLowerCase() === 'anthropic-beta');
  if (named === undefined) return beta;
  delete (headers as Record<string, string>)[named[0]];
  const betas = named[1].split(',').map((value) => value.trim());
  return betas.includes(beta) ? named[1] : [...betas.filter(Boolean), beta].join(',');
}

async function bedrockClient(
  settings: BedrockSettings,
  options: ProviderClientOptions,
): Promise<ModelClient> {
  const { AnthropicBedrock } = await loadBedrockSdk();
  const baseURL = settings.baseURL ?? `https://bedrock-runtime.${settings.region}.amazonaws.com`;
  const { auth } = settings;
  const sdk = new AnthropicBedrock({
    ...common(settings, options),
    awsRegion: settings.region,
    baseURL,
    defaultHeaders: { 'anthropic-version': BEDROCK_VERSION, ...settings.headers },
    // `null`: neither AWS_BEARER_TOKEN_BEDROCK nor ANTHROPIC_API_KEY is read behind our back.
    apiKey: auth.kind === 'api-key' ? auth.apiKey : null,
    ...(auth.kind === 'keys'
      ? {
          awsAccessKey: auth.accessKeyId,
          awsSecretKey: auth.secretAccessKey,
          awsSessionToken: auth.sessionToken ?? null,
        }
      : {}),
    skipAuth: auth.kind === 'none',
  } as ConstructorParameters<typeof AnthropicBedrock>[0]);
  const root = baseURL.replace(/\/+$/, '');
  return createStreamingClient(
    sdk,
    streaming(
      settings,
      (model) => `${root}/model/${encodeURIComponent(model)}/invoke-with-response-stream`,
      AnthropicBedrock,
    ),
  );
}

/** The Vertex AI endpoint for a region, as the SDK picks it when no base URL is given. */
export function vertexBaseUrl(region: string): string {
  if (region === 'global') return 'https://aiplatform.googleapis.com/v1';
  if (region === 'us' || region === 'eu')
    return `https://aiplatform.${region}.rep.googleapis.com/v1`;
  return `https://${region}-aiplatform.googleapis.com/v1`;
}

async function vertexClient(
  settings: VertexSettings,
  options: ProviderClientOptions,
): Promise<ModelClient> {
  const { AnthropicVertex } = await loadVertexSdk();
  const baseURL = settings.baseURL ?? vertexBaseUrl(settings.region);
  const sdk = new AnthropicVertex({
    ...common(settings, options),
    region: settings.region,
    projectId: settings.projectId,
    baseURL,
    defaultHeaders: { 'anthropic-version': VERTEX_VERSION, ...settings.headers },
    // A gateway that authenticates itself: just what the SDK asks of an auth client, headers
    // (none) and no project of its own.
    ...(settings.auth.kind === 'none' && {
      authClient: {
        projectId: null,
        getRequestHeaders: () => Promise.resolve(new Headers()),
      } as unknown as VertexOptions<typeof AnthropicVertex>['authClient'],
    }),
  });
  // The SDK starts looking for Google credentials when it is made and awaits the answer only at
  // the first request: until then a failure (no credentials on this machine) would reject with
  // nobody listening, which ends the process. The request still sees it, as an error it can name.
  const lookup = Reflect.get(sdk, '_authClientPromise') as Promise<unknown> | undefined;
  lookup?.catch(() => undefined);
  const root = baseURL.replace(/\/+$/, '');
  const place = `projects/${settings.projectId}/locations/${settings.region}/publishers/anthropic/models`;
  return createStreamingClient(
    sdk,
    streaming(
      settings,
      (model) => `${root}/${place}/${encodeURIComponent(model)}:streamRawPredict`,
      AnthropicVertex,
    ),
  );
}

/** The options of the Vertex SDK's client, named through its class (loaded on demand). */
type VertexOptions<Client extends abstract new (...args: never) => unknown> = NonNullable<
  ConstructorParameters<Client>[0]
>;

/**
 * Foundry speaks the Messages API under `https://{resource}.services.ai.azure.com/anthropic/`,
 * with the key as `x-api-key` (anthropic-sdk.ts says why this is not @anthropic-ai/foundry-sdk).
 */
function foundryClient(settings: FoundrySettings, options: ProviderClientOptions): ModelClient {
  const sdk = new FoundryMessagesClient({
    ...common(settings, options),
    baseURL: settings.baseURL,
    apiKey: null,
    authToken: null,
    defaultHeaders: { ...settings.headers, 'x-api-key': settings.auth.apiKey },
  });
  const url = `${settings.baseURL.replace(/\/+$/, '')}/v1/messages`;
  return createStreamingClient(
    sdk,
    streaming(settings, () => url),
  );
}
