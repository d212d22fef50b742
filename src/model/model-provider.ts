/**
 * The model connection of a run, as the CLI and the action set it up, in order:
 *   1. the provider's settings (provider-settings.ts), checked whole;
 *   2. a credentials file the settings name, read once: a missing or unreadable one is an error
 *      now, not at the first request;
 *   3. the models, aliases resolved for the provider (provider-models.ts);
 *   4. what to mask, what to warn about, what the log and the report say;
 * then, on demand, the client (provider-client.ts), which loads a cloud provider's SDK.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ModelClient } from './model-client.js';
import { createProviderClient } from './provider-client.js';
import type { ProviderClientOptions } from './provider-client.js';
import type { SettingLookup } from './provider-env.js';
import { ProviderConfigError } from './provider-env.js';
import { chooseModels, describeProvider, PROVIDER_LABELS } from './provider-models.js';
import type { ModelChoice, ProviderDescription } from './provider-models.js';
import { providerSecrets, resolveProviderSettings } from './provider-settings.js';
import type { ProviderSettings, ProviderSources } from './provider-settings.js';

export interface ModelProvider {
  settings: ProviderSettings;
  models: ModelChoice;
  description: ProviderDescription;
  /** The values the connection sends that no output may show. */
  secrets: readonly string[];
  /** Credentials set and not used: said as warnings, so that nobody wonders which one is. */
  warnings: readonly string[];
  client(options?: ProviderClientOptions): Promise<ModelClient>;
}

export interface ModelProviderOptions extends ProviderSources {
  /** `--model`, the action's model input. */
  requestedModel?: string | undefined;
  /** Where a relative credentials path starts (the working directory). */
  cwd: string;
}

/** Throws ProviderConfigError, naming the variable or input, on anything that cannot work. */
export function configureModelProvider(options: ModelProviderOptions): ModelProvider {
  const settings = resolveProviderSettings(options);
  checkCredentialsFile(settings, options.lookup, options.cwd);
  return {
    settings,
    models: chooseModels(settings, options.lookup, options.requestedModel),
    description: describeProvider(settings),
    secrets: providerSecrets(settings),
    warnings: settings.unused.map((from) => unusedWarning(settings, from)),
    client: (clientOptions) => createProviderClient(settings, clientOptions),
  };
}

function unusedWarning(settings: ProviderSettings, from: string): string {
  if (settings.provider !== 'anthropic') {
    return `${from} is set but not used: the model provider is ${PROVIDER_LABELS[settings.provider]}`;
  }
  return `${from} is set but not used: ${settings.auth.from} is (of ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN the first that is set, as in Claude Code)`;
}

/**
 * Google's credentials file, read before the run: the Vertex SDK would otherwise report a wrong
 * path as a failed connection at the first request, and retry it.
 */
function checkCredentialsFile(settings: ProviderSettings, lookup: SettingLookup, cwd: string) {
  if (settings.provider !== 'vertex' || settings.auth.kind !== 'google') return;
  const file = lookup('GOOGLE_APPLICATION_CREDENTIALS');
  if (file === undefined) return;
  const form =
    'the path of a Google credentials file (JSON with a "type", as google-github-actions/auth writes)';
  let problem: string | undefined;
  try {
    const parsed: unknown = JSON.parse(readFileSync(resolve(cwd, file.value), 'utf8'));
    const type = (parsed as Record<string, unknown> | null)?.['type'];
    if (typeof type !== 'string') problem = 'a file without a "type"';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problem = code === undefined ? 'a file that is not JSON' : `a path it cannot read (${code})`;
  }
  if (problem !== undefined) {
    throw new ProviderConfigError(
      `${file.from}: expected ${form}, got ${problem}: ${JSON.stringify(file.value)}`,
    );
  }
}
