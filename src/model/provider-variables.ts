/**
 * The variables that set up the model connection, by Claude Code's names: what the CLI takes
 * from the environment and, as Claude Code does, from the settings files' `env` (which wins).
 * None of them reaches tools or hooks (util/settings-env.ts refuses them there).
 */

/** Choose the provider, its place and its models; nothing secret, nothing that moves requests. */
const PLACE_AND_MODELS = [
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'CLOUD_ML_REGION',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'DISABLE_PROMPT_CACHING',
];

/**
 * Credentials, and what says where requests go (so where the credentials go): a file in the
 * repository may not set these, since on a pull request its author writes it. The environment,
 * `~/.claude/settings.json` and `--settings` may.
 */
export const OPERATOR_ONLY_VARIABLES: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_BEDROCK_BASE_URL',
  'ANTHROPIC_VERTEX_BASE_URL',
  'ANTHROPIC_FOUNDRY_BASE_URL',
  'ANTHROPIC_FOUNDRY_RESOURCE',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'CLAUDE_CODE_SKIP_BEDROCK_AUTH',
  'CLAUDE_CODE_SKIP_VERTEX_AUTH',
  'CLAUDE_CODE_SKIP_FOUNDRY_AUTH',
];

export const MODEL_CONNECTION_VARIABLES: readonly string[] = [
  ...PLACE_AND_MODELS,
  ...OPERATOR_ONLY_VARIABLES,
];

export function isModelConnectionVariable(name: string): boolean {
  return MODEL_CONNECTION_VARIABLES.includes(name);
}
