/**
 * Settings files' `env`, as applied to tools and hooks (docs/POLICY.md, "Settings `env`").
 * Claude Code applies every variable; ci-agent refuses, with a warning, those that would redirect
 * the model connection, carry or locate a credential, reroute network traffic or TLS trust, or
 * change which program a command runs. The last because the policy reads `ls` or `git status` as
 * harmless only while they run the programs their names say: a file the model writes must not
 * stand in for them (PATH, BASH_ENV, LD_PRELOAD, GIT_*…).
 *
 * Names are compared upper-cased: `http_proxy` is honoured as much as `HTTP_PROXY`.
 */
import { isCredentialEnvName } from './child-env.js';

interface Refusal {
  exact?: readonly string[];
  prefixes?: readonly string[];
  test?: (name: string) => boolean;
  reason: string;
}

const REFUSALS: readonly Refusal[] = [
  {
    prefixes: ['ANTHROPIC_', 'CLAUDE_CODE_USE_', 'AWS_', 'GOOGLE_', 'GCLOUD_', 'CLOUDSDK_'],
    reason: "it configures the model connection or a cloud provider's credentials",
  },
  {
    exact: ['SSH_AUTH_SOCK', 'KUBECONFIG', 'DOCKER_CONFIG', 'NETRC'],
    test: isCredentialEnvName,
    reason: 'it carries or locates a credential',
  },
  {
    prefixes: ['ACTIONS_', 'GITHUB_', 'GH_', 'RUNNER_', 'INPUT_'],
    reason:
      "it belongs to the GitHub Actions runner or the GitHub CLI, and could point a token or the job's outputs elsewhere",
  },
  {
    exact: [
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'ALL_PROXY',
      'NO_PROXY',
      'FTP_PROXY',
      'NODE_EXTRA_CA_CERTS',
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'SSL_CERT_FILE',
      'SSL_CERT_DIR',
      'CURL_CA_BUNDLE',
      'REQUESTS_CA_BUNDLE',
      'PIP_INDEX_URL',
      'PIP_EXTRA_INDEX_URL',
    ],
    // A package registry that receives the token a policy passes (npm_config_//host/:_authToken).
    prefixes: ['NPM_CONFIG_', 'YARN_'],
    reason: 'it reroutes network traffic or changes which TLS certificates are trusted',
  },
  {
    exact: [
      'PATH',
      'HOME',
      'SHELL',
      'ENV',
      'BASH_ENV',
      'SHELLOPTS',
      'BASHOPTS',
      'PS4',
      'IFS',
      'PROMPT_COMMAND',
      'NODE_OPTIONS',
      'NODE_PATH',
      'PYTHONPATH',
      'PYTHONHOME',
      'PYTHONSTARTUP',
      'PERL5OPT',
      'PERL5LIB',
      'PERLLIB',
      'RUBYOPT',
      'RUBYLIB',
      'CLAUDE_CODE_SHELL',
      'CLAUDE_CODE_SHELL_PREFIX',
      // Options and helpers read by programs the policy may judge read-only (rg --pre, less).
      'RIPGREP_CONFIG_PATH',
      'GREP_OPTIONS',
      'TAR_OPTIONS',
      'AWKPATH',
      'LESS',
      'LESSOPEN',
      'LESSCLOSE',
      'PAGER',
      'MANPAGER',
      'EDITOR',
      'VISUAL',
    ],
    prefixes: ['LD_', 'DYLD_', 'GIT_', 'XDG_', 'BASH_FUNC_'],
    reason:
      'it changes which program a command runs, or makes programs load code or configuration from elsewhere',
  },
  {
    exact: ['CLAUDE_PROJECT_DIR', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_EFFORT', 'CLAUDE_ENV_FILE'],
    reason: 'ci-agent sets it itself for each hook',
  },
];

/** Why a settings file may not set this variable; undefined when it may. */
export function settingsEnvRefusal(name: string): string | undefined {
  const upper = name.toUpperCase();
  for (const refusal of REFUSALS) {
    if (
      refusal.exact?.includes(upper) ||
      refusal.prefixes?.some((prefix) => upper.startsWith(prefix)) ||
      refusal.test?.(upper)
    ) {
      return refusal.reason;
    }
  }
  return undefined;
}

/**
 * The child environment (buildChildEnv) with the settings files' `env` laid over it, as Claude
 * Code applies it to tools and hooks. Refused names are skipped here too, whoever built the map:
 * the policy loader has already dropped them with a warning.
 */
export function withSettingsEnv(
  base: Readonly<Record<string, string>>,
  settingsEnv: Readonly<Record<string, string>>,
): Record<string, string> {
  const env = { ...base };
  for (const [name, value] of Object.entries(settingsEnv)) {
    if (settingsEnvRefusal(name) === undefined) env[name] = value;
  }
  return env;
}
