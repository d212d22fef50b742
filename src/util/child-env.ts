/**
 * The environment given to tool processes and hooks: the parent's, minus the secrets a model
 * could exfiltrate through a command it writes (docs/DECISIONS.md #16). A policy may pass names back.
 */
import { CREDENTIAL_FILE_VARIABLES } from './credential-files.js';

const SECRET_NAMES = new Set([
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  // A gateway's headers may carry its key.
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'OPENAI_API_KEY',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'INPUT_ANTHROPIC-API-KEY',
  'INPUT_CLAUDE-CODE-OAUTH-TOKEN',
  'INPUT_GITHUB-TOKEN',
  // The model providers' credentials, and the files that hold them (model/provider-settings.ts),
  // as aws-actions/configure-aws-credentials and google-github-actions/auth export them.
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_GHA_CREDS_PATH',
  'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',
  'CLOUDSDK_AUTH_ACCESS_TOKEN',
  'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
]);

const SECRET_PREFIXES = ['ACTIONS_ID_TOKEN_REQUEST_'];

export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAMES.has(upper) || SECRET_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

export function buildChildEnv(
  parent: NodeJS.ProcessEnv,
  passThrough: readonly string[] = [],
): Record<string, string> {
  const allowed = new Set(passThrough.map((name) => name.toUpperCase()));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (isSecretEnvName(name) && !allowed.has(name.toUpperCase())) continue;
    env[name] = value;
  }
  return env;
}

/**
 * Whether a variable's name says it carries a credential: the secrets above, and the names a
 * workflow gives the secrets it passes to a step (`NPM_TOKEN`, `DEPLOY_KEY`, `DB_PASSWORD`).
 */
export function isCredentialEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    isSecretEnvName(upper) ||
    /(?:_TOKEN|_KEY|_PAT)$/.test(upper) ||
    /SECRET|PASSWORD|PASSWD|CREDENTIAL/.test(upper)
  );
}

/**
 * The values of the variables set in `env` whose names say they carry a credential: what logs,
 * comments and pushes must not carry. Wider than what tools lose (buildChildEnv): a workflow's
 * `NPM_TOKEN` may be meant for `npm publish` in a tool, but not for the report.
 */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  // A credential file's path is no secret, and masking it (and every 16-character start of it:
  // secret-masker.ts) would blank the workspace's path out of every line.
  const values = Object.entries(env)
    .filter(
      ([name, value]) =>
        value !== undefined &&
        value !== '' &&
        isCredentialEnvName(name) &&
        !CREDENTIAL_FILE_VARIABLES.includes(name.toUpperCase()),
    )
    .map(([, value]) => value ?? '');
  return [...values, ...customHeaderValues(env.ANTHROPIC_CUSTOM_HEADERS)];
}

/** Each value of ANTHROPIC_CUSTOM_HEADERS' `Name: Value` lines: a gateway's key may be one. */
function customHeaderValues(text: string | undefined): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.slice(line.indexOf(':') + 1).trim())
    .filter((value) => value.length >= 8);
}
