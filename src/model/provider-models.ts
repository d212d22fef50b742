/**
 * Model aliases in each provider's id form, as Claude Code resolves them: on Anthropic's API the
 * current models (pricing.ts), on Bedrock, Vertex AI and Foundry the ones every account there can
 * call (Sonnet 4.5, Opus 4.6, Haiku 4.5; newer ones by full id, or by ANTHROPIC_DEFAULT_*_MODEL).
 * Bedrock takes a cross-region inference profile whose prefix follows the region (`us.`, `eu.`,
 * `apac.`, `us-gov.`, else `global.`); Vertex AI a version name (`…@date`); Foundry a deployment
 * name.
 */
import { DEFAULT_MODEL, resolveModelAlias } from './pricing.js';
import { ProviderConfigError } from './provider-env.js';
import type { SettingLookup } from './provider-env.js';
import type { ProviderSettings } from './provider-settings.js';

type Alias = 'sonnet' | 'opus' | 'haiku';
const ALIASES: readonly Alias[] = ['sonnet', 'opus', 'haiku'];

/** The base ids on the cloud providers, without Bedrock's profile prefix. */
const CLOUD_IDS: Readonly<Record<'bedrock' | 'vertex' | 'foundry', Record<Alias, string>>> = {
  bedrock: {
    sonnet: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    opus: 'anthropic.claude-opus-4-6-v1',
    haiku: 'anthropic.claude-haiku-4-5-20251001-v1:0',
  },
  vertex: {
    sonnet: 'claude-sonnet-4-5@20250929',
    opus: 'claude-opus-4-6',
    haiku: 'claude-haiku-4-5@20251001',
  },
  foundry: { sonnet: 'claude-sonnet-4-5', opus: 'claude-opus-4-6', haiku: 'claude-haiku-4-5' },
};

/** The inference profile's geography for an AWS region. */
export function bedrockProfilePrefix(region: string): string {
  if (region.startsWith('us-gov-')) return 'us-gov';
  if (region.startsWith('us-')) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return 'global';
}

export interface ModelChoice {
  /** The model the session runs, in the provider's id form. */
  model: string;
  /** For side queries (WebFetch's page question): ANTHROPIC_SMALL_FAST_MODEL, else haiku. */
  smallFastModel: string;
}

/**
 * `requested` is the flag or input (`--model`, the action's `model`); then ANTHROPIC_MODEL; then
 * the provider's Sonnet. An alias is resolved for the provider; anything else is sent as given.
 */
export function chooseModels(
  settings: ProviderSettings,
  lookup: SettingLookup,
  requested: string | undefined,
): ModelChoice {
  const model = requested?.trim() || lookup('ANTHROPIC_MODEL')?.value;
  const small = lookup('ANTHROPIC_SMALL_FAST_MODEL')?.value;
  return {
    model: resolveFor(
      settings,
      lookup,
      model ?? (settings.provider === 'anthropic' ? DEFAULT_MODEL : 'sonnet'),
    ),
    smallFastModel: resolveFor(settings, lookup, small ?? 'haiku'),
  };
}

/** One model name in the provider's form; `ANTHROPIC_DEFAULT_<ALIAS>_MODEL` wins for an alias. */
export function resolveFor(
  settings: ProviderSettings,
  lookup: SettingLookup,
  model: string,
): string {
  const alias = ALIASES.find((name) => name === model.trim().toLowerCase());
  if (alias !== undefined) {
    const pinned = lookup(`ANTHROPIC_DEFAULT_${alias.toUpperCase()}_MODEL`)?.value;
    if (pinned !== undefined) return pinned;
  }
  if (settings.provider === 'anthropic') return resolveModelAlias(model);
  if (alias === undefined) {
    if (resolveModelAlias(model) !== model) {
      throw new ProviderConfigError(
        `the model alias ${JSON.stringify(model)} has no id known on ${PROVIDER_LABELS[settings.provider]}: give the full model id (--model, ANTHROPIC_MODEL or the action's model input)`,
      );
    }
    return model;
  }
  const id = CLOUD_IDS[settings.provider][alias];
  return settings.provider === 'bedrock' ? `${bedrockProfilePrefix(settings.region)}.${id}` : id;
}

export const PROVIDER_LABELS: Readonly<Record<ProviderSettings['provider'], string>> = {
  anthropic: "Anthropic's API",
  bedrock: 'Amazon Bedrock',
  vertex: 'Google Vertex AI',
  foundry: 'Microsoft Foundry',
};

/** What the log's system/init line and the report say of the connection. */
export interface ProviderDescription {
  provider: ProviderSettings['provider'];
  /** `Amazon Bedrock (us-east-1)`, `Anthropic's API`, `Anthropic's API through http://gw`. */
  label: string;
  /**
   * Claude Code's `apiKeySource`: the variable of the Anthropic credential, `none` on a cloud
   * provider (its credentials are not an API key).
   */
  apiKeySource: string;
  /** Where the credentials came from: `AWS_ACCESS_KEY_ID`, `the anthropic-api-key input`, …. */
  credentials: string;
}

const API_KEY_SOURCES = {
  'api-key': 'ANTHROPIC_API_KEY',
  'auth-token': 'ANTHROPIC_AUTH_TOKEN',
  oauth: 'CLAUDE_CODE_OAUTH_TOKEN',
} as const;

export function describeProvider(settings: ProviderSettings): ProviderDescription {
  const base = PROVIDER_LABELS[settings.provider];
  switch (settings.provider) {
    case 'anthropic':
      return {
        provider: 'anthropic',
        label: settings.baseURL === undefined ? base : `${base} through ${settings.baseURL}`,
        apiKeySource: API_KEY_SOURCES[settings.auth.kind],
        credentials: settings.auth.from,
      };
    case 'bedrock':
      return {
        provider: 'bedrock',
        label: `${base} (${settings.region})`,
        apiKeySource: 'none',
        credentials: settings.auth.from,
      };
    case 'vertex':
      return {
        provider: 'vertex',
        label: `${base} (${settings.projectId}, ${settings.region})`,
        apiKeySource: 'none',
        credentials: settings.auth.from,
      };
    case 'foundry':
      return {
        provider: 'foundry',
        label: `${base} (${settings.baseURL})`,
        apiKeySource: 'none',
        credentials: settings.auth.from,
      };
  }
}
