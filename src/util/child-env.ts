/**
 * The environment given to tool processes and hooks: the parent's, minus the secrets a model
 * could exfiltrate through a command it writes (docs/DECISIONS.md #16). A policy may pass names back.
 */

const SECRET_NAMES = new Set([
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'INPUT_ANTHROPIC-API-KEY',
  'INPUT_GITHUB-TOKEN',
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
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && value !== '' && isCredentialEnvName(name))
    .map(([, value]) => value ?? '');
}
