/**
 * Which model provider a run uses and how it authenticates, read from Claude Code's variables
 * (the action maps its inputs onto the same names). Checked whole before any request: a missing
 * region, project or credential, two providers at once, a malformed URL or header line is a
 * ProviderConfigError naming the variable or input and the expected form.
 *
 * 1. the provider: CLAUDE_CODE_USE_BEDROCK, _VERTEX or _FOUNDRY (at most one), else Anthropic's API
 * 2. its place: region, project, resource or base URL
 * 3. its credentials, in Claude Code's order where there are several: for Anthropic's API
 *    ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN
 * 4. what every provider shares: ANTHROPIC_CUSTOM_HEADERS, DISABLE_PROMPT_CACHING
 */
import type { SettingLookup } from './provider-env.js';
import {
  ProviderConfigError,
  readCustomHeaders,
  readMatching,
  readSwitch,
  readUrl,
} from './provider-env.js';

export type ProviderName = 'anthropic' | 'bedrock' | 'vertex' | 'foundry';

interface CommonSettings {
  /** ANTHROPIC_CUSTOM_HEADERS, sent with every request. */
  headers: Readonly<Record<string, string>>;
  /** Off with DISABLE_PROMPT_CACHING, as in Claude Code. */
  promptCaching: boolean;
  /** Credentials found and not used (another one wins): the caller says so. */
  unused: readonly string[];
}

export interface AnthropicSettings extends CommonSettings {
  provider: 'anthropic';
  baseURL: string | undefined;
  /**
   * `api-key`: the key, `auth-token`: a gateway's bearer token, `oauth`: a Claude Code OAuth
   * token (bearer, with the OAuth beta header).
   */
  auth: { kind: 'api-key' | 'auth-token' | 'oauth'; token: string; from: string };
}

export type BedrockAuth =
  | { kind: 'api-key'; apiKey: string; from: string }
  | {
      kind: 'keys';
      accessKeyId: string;
      secretAccessKey: string;
      sessionToken: string | undefined;
      from: string;
    }
  /** The AWS SDK's default chain: a profile, web identity, SSO, the instance's role. */
  | { kind: 'chain'; from: string }
  /** A gateway that signs the requests itself (CLAUDE_CODE_SKIP_BEDROCK_AUTH). */
  | { kind: 'none'; from: string };

export interface BedrockSettings extends CommonSettings {
  provider: 'bedrock';
  region: string;
  baseURL: string | undefined;
  auth: BedrockAuth;
}

export interface VertexSettings extends CommonSettings {
  provider: 'vertex';
  region: string;
  projectId: string;
  baseURL: string | undefined;
  /** `google`: Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS first). */
  auth: { kind: 'google' | 'none'; from: string };
}

export interface FoundrySettings extends CommonSettings {
  provider: 'foundry';
  baseURL: string;
  auth: { kind: 'api-key'; apiKey: string; from: string };
}

export type ProviderSettings =
  AnthropicSettings | BedrockSettings | VertexSettings | FoundrySettings;

export interface ProviderSources {
  lookup: SettingLookup;
  /** How a message names a variable that is not set (the action: its input). */
  nameOf?: (variable: string) => string;
}

const SWITCHES = [
  ['bedrock', 'CLAUDE_CODE_USE_BEDROCK'],
  ['vertex', 'CLAUDE_CODE_USE_VERTEX'],
  ['foundry', 'CLAUDE_CODE_USE_FOUNDRY'],
] as const;

export function resolveProviderSettings(sources: ProviderSources): ProviderSettings {
  const { lookup } = sources;
  const nameOf = sources.nameOf ?? ((variable: string) => variable);
  const chosen = SWITCHES.filter(([, variable]) => readSwitch(lookup, variable));
  if (chosen.length > 1) {
    const named = chosen.map(([, variable]) => lookup(variable)?.from ?? variable);
    throw new ProviderConfigError(
      `${named.join(' and ')} each choose a model provider: choose one (Amazon Bedrock, Google Vertex AI or Microsoft Foundry), or none for Anthropic's API`,
    );
  }
  const common = {
    headers: readCustomHeaders(lookup),
    promptCaching: !readSwitch(lookup, 'DISABLE_PROMPT_CACHING'),
  };
  const provider = chosen[0]?.[0] ?? 'anthropic';
  const anthropicCredentials = ANTHROPIC_CREDENTIALS.flatMap(([, variable]) => {
    const found = lookup(variable);
    return found ? [found.from] : [];
  });
  switch (provider) {
    case 'anthropic':
      return anthropicSettings(lookup, nameOf, common);
    case 'bedrock':
      return { ...bedrockSettings(lookup, nameOf, common), unused: anthropicCredentials };
    case 'vertex':
      return { ...vertexSettings(lookup, nameOf, common), unused: anthropicCredentials };
    case 'foundry':
      return { ...foundrySettings(lookup, nameOf, common), unused: anthropicCredentials };
  }
}

type Common = Omit<CommonSettings, 'unused'>;
type NameOf = (variable: string) => string;

/** Claude Code's order: the first one set is used. */
const ANTHROPIC_CREDENTIALS = [
  ['auth-token', 'ANTHROPIC_AUTH_TOKEN'],
  ['api-key', 'ANTHROPIC_API_KEY'],
  ['oauth', 'CLAUDE_CODE_OAUTH_TOKEN'],
] as const;

function anthropicSettings(lookup: SettingLookup, nameOf: NameOf, common: Common) {
  const found = ANTHROPIC_CREDENTIALS.flatMap(([kind, variable]) => {
    const setting = lookup(variable);
    return setting ? [{ kind, token: setting.value, from: setting.from }] : [];
  });
  const [auth, ...unused] = found;
  if (auth === undefined) {
    throw new ProviderConfigError(
      `${nameOf('ANTHROPIC_API_KEY')} is not set, nor ${nameOf('CLAUDE_CODE_OAUTH_TOKEN')} or ${nameOf('ANTHROPIC_AUTH_TOKEN')}: give an Anthropic API key (or a Claude Code OAuth token, or a gateway's token with ANTHROPIC_BASE_URL), or choose a cloud provider with ${SWITCHES.map(([, variable]) => nameOf(variable)).join(', ')}`,
    );
  }
  return {
    provider: 'anthropic' as const,
    ...common,
    baseURL: readUrl(lookup, 'ANTHROPIC_BASE_URL', 'https://api.anthropic.com'),
    auth,
    unused: unused.map((credential) => credential.from),
  };
}

/** `us-east-1`, `eu-central-2`, `us-gov-west-1`: letters and hyphens, then a number. */
const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

function bedrockSettings(lookup: SettingLookup, nameOf: NameOf, common: Common) {
  const form = 'an AWS region such as us-east-1';
  const region =
    readMatching(lookup, 'AWS_REGION', AWS_REGION, form) ??
    readMatching(lookup, 'AWS_DEFAULT_REGION', AWS_REGION, form);
  if (region === undefined) {
    throw new ProviderConfigError(
      `Amazon Bedrock needs a region: set ${nameOf('AWS_REGION')} to ${form} (aws-actions/configure-aws-credentials sets it from its aws-region input)`,
    );
  }
  const baseURL = readUrl(
    lookup,
    'ANTHROPIC_BEDROCK_BASE_URL',
    `https://bedrock-runtime.${region.value}.amazonaws.com`,
  );
  return {
    provider: 'bedrock' as const,
    ...common,
    region: region.value,
    baseURL,
    auth: bedrockAuth(lookup, baseURL),
  };
}

function bedrockAuth(lookup: SettingLookup, baseURL: string | undefined): BedrockAuth {
  if (readSwitch(lookup, 'CLAUDE_CODE_SKIP_BEDROCK_AUTH')) {
    const from = lookup('CLAUDE_CODE_SKIP_BEDROCK_AUTH')!.from;
    requireGateway(from, baseURL, 'ANTHROPIC_BEDROCK_BASE_URL');
    return { kind: 'none', from };
  }
  const bearer = lookup('AWS_BEARER_TOKEN_BEDROCK');
  if (bearer) return { kind: 'api-key', apiKey: bearer.value, from: bearer.from };
  const accessKeyId = lookup('AWS_ACCESS_KEY_ID');
  const secretAccessKey = lookup('AWS_SECRET_ACCESS_KEY');
  if (accessKeyId && secretAccessKey) {
    return {
      kind: 'keys',
      accessKeyId: accessKeyId.value,
      secretAccessKey: secretAccessKey.value,
      sessionToken: lookup('AWS_SESSION_TOKEN')?.value,
      from: accessKeyId.from,
    };
  }
  const half = accessKeyId ?? secretAccessKey;
  if (half) {
    const other = accessKeyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID';
    throw new ProviderConfigError(
      `${half.from} is set without ${other}: AWS keys come as a pair (with AWS_SESSION_TOKEN for temporary ones, as aws-actions/configure-aws-credentials exports them)`,
    );
  }
  const profile = lookup('AWS_PROFILE');
  return {
    kind: 'chain',
    from: profile ? `${profile.from}=${profile.value}` : "the AWS SDK's default credential chain",
  };
}

/** Google Cloud regions: `us-east5`, `europe-west1`, and the multi-regions `global`, `us`, `eu`. */
const VERTEX_REGION = /^(?:global|us|eu|[a-z]+-[a-z]+\d+)$/;
/** A project id (6–30 of a-z, 0-9, -), optionally after a domain and a colon (older projects). */
const PROJECT_ID = /^(?:[a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/** What google-github-actions/auth and gcloud set beside GOOGLE_APPLICATION_CREDENTIALS. */
const PROJECT_FALLBACKS = ['GOOGLE_CLOUD_PROJECT', 'GCLOUD_PROJECT', 'CLOUDSDK_CORE_PROJECT'];

function vertexSettings(lookup: SettingLookup, nameOf: NameOf, common: Common) {
  const regionForm = 'a Google Cloud region such as us-east5, or global';
  const region = readMatching(lookup, 'CLOUD_ML_REGION', VERTEX_REGION, regionForm);
  if (region === undefined) {
    throw new ProviderConfigError(
      `Google Vertex AI needs a region: set ${nameOf('CLOUD_ML_REGION')} to ${regionForm}`,
    );
  }
  const projectForm = 'a Google Cloud project id such as my-project-123';
  const project = ['ANTHROPIC_VERTEX_PROJECT_ID', ...PROJECT_FALLBACKS]
    .map((variable) => readMatching(lookup, variable, PROJECT_ID, projectForm))
    .find((setting) => setting !== undefined);
  if (project === undefined) {
    throw new ProviderConfigError(
      `Google Vertex AI needs a project: set ${nameOf('ANTHROPIC_VERTEX_PROJECT_ID')} to ${projectForm}`,
    );
  }
  const baseURL = readUrl(
    lookup,
    'ANTHROPIC_VERTEX_BASE_URL',
    `https://${region.value}-aiplatform.googleapis.com/v1`,
  );
  let auth: VertexSettings['auth'];
  if (readSwitch(lookup, 'CLAUDE_CODE_SKIP_VERTEX_AUTH')) {
    const from = lookup('CLAUDE_CODE_SKIP_VERTEX_AUTH')!.from;
    requireGateway(from, baseURL, 'ANTHROPIC_VERTEX_BASE_URL');
    auth = { kind: 'none', from };
  } else {
    const file = lookup('GOOGLE_APPLICATION_CREDENTIALS');
    auth = { kind: 'google', from: file?.from ?? 'Application Default Credentials' };
  }
  return {
    provider: 'vertex' as const,
    ...common,
    region: region.value,
    projectId: project.value,
    baseURL,
    auth,
  };
}

/** An Azure resource name: letters, digits and hyphens. */
const RESOURCE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/;

function foundrySettings(lookup: SettingLookup, nameOf: NameOf, common: Common) {
  const skip = lookup('CLAUDE_CODE_SKIP_FOUNDRY_AUTH');
  if (skip !== undefined && readSwitch(lookup, 'CLAUDE_CODE_SKIP_FOUNDRY_AUTH')) {
    throw new ProviderConfigError(
      `${skip.from}: ci-agent reaches Microsoft Foundry with an API key only; for a gateway that authenticates itself, use ANTHROPIC_BASE_URL with ANTHROPIC_AUTH_TOKEN`,
    );
  }
  const resource = readMatching(
    lookup,
    'ANTHROPIC_FOUNDRY_RESOURCE',
    RESOURCE,
    'an Azure resource name such as my-foundry',
  );
  const baseURL = readUrl(
    lookup,
    'ANTHROPIC_FOUNDRY_BASE_URL',
    'https://my-foundry.services.ai.azure.com/anthropic/',
  );
  if (resource && baseURL) {
    throw new ProviderConfigError(
      `${resource.from} and ${lookup('ANTHROPIC_FOUNDRY_BASE_URL')!.from} both say where Microsoft Foundry is: set one`,
    );
  }
  if (!resource && !baseURL) {
    throw new ProviderConfigError(
      `Microsoft Foundry needs its resource: set ${nameOf('ANTHROPIC_FOUNDRY_RESOURCE')} to the resource name (or ${nameOf('ANTHROPIC_FOUNDRY_BASE_URL')} to its URL)`,
    );
  }
  const apiKey = lookup('ANTHROPIC_FOUNDRY_API_KEY');
  if (apiKey === undefined) {
    throw new ProviderConfigError(
      `Microsoft Foundry needs an API key: set ${nameOf('ANTHROPIC_FOUNDRY_API_KEY')} (pass it from a secret); Microsoft Entra ID sign-in is not supported yet`,
    );
  }
  return {
    provider: 'foundry' as const,
    ...common,
    baseURL: baseURL ?? `https://${resource!.value}.services.ai.azure.com/anthropic/`,
    auth: { kind: 'api-key' as const, apiKey: apiKey.value, from: apiKey.from },
  };
}

/** Skipping authentication makes sense only for a gateway that adds it: its URL must be set. */
function requireGateway(from: string, baseURL: string | undefined, urlVariable: string): void {
  if (baseURL !== undefined) return;
  throw new ProviderConfigError(
    `${from} sends requests without credentials, which only a gateway that adds its own can take: set ${urlVariable} to that gateway`,
  );
}

/** The values the configuration sends that must never be shown: for the maskers. */
export function providerSecrets(settings: ProviderSettings): string[] {
  const secrets = Object.values(settings.headers).filter((value) => value !== '');
  switch (settings.provider) {
    case 'anthropic':
      return [...secrets, settings.auth.token];
    case 'foundry':
      return [...secrets, settings.auth.apiKey];
    case 'bedrock': {
      const auth = settings.auth;
      if (auth.kind === 'api-key') secrets.push(auth.apiKey);
      if (auth.kind === 'keys') {
        secrets.push(auth.accessKeyId, auth.secretAccessKey);
        if (auth.sessionToken) secrets.push(auth.sessionToken);
      }
      return secrets;
    }
    case 'vertex':
      return secrets;
  }
}
