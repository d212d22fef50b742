/**
 * The environment of everything that runs in the sandbox, built from an allow-list: what says
 * where the toolchains are and what machine this is, plus the names the policy passes
 * (`env.passEnv`) and the settings files' `env`. Not a deny-list: a job secret under a name
 * nobody foresaw (`DEPLOY_KEY_B64`, `SENTRY_DSN`, `AWS_*`) stays out, and so do the runner's own
 * variables that name its files (`GITHUB_ENV`, `RUNNER_TEMP`) or carry its tokens.
 *
 * A name the allow-list takes is still dropped when it says it carries a credential
 * (child-env.ts `isCredentialEnvName`: `*_TOKEN`, `*_KEY`, `*SECRET*`, `*PASSWORD*`), unless the
 * policy passes it by name.
 */
import { isCredentialEnvName } from '../util/child-env.js';

/** Taken by exact name. */
const NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LANGUAGE',
  'TZ',
  'HOSTNAME',
  'CI',
  'GITHUB_ACTIONS',
  'GITHUB_WORKSPACE',
  'GITHUB_REPOSITORY',
  'GITHUB_REPOSITORY_OWNER',
  'GITHUB_SHA',
  'GITHUB_REF',
  'GITHUB_REF_NAME',
  'GITHUB_REF_TYPE',
  'GITHUB_HEAD_REF',
  'GITHUB_BASE_REF',
  'GITHUB_EVENT_NAME',
  'GITHUB_RUN_ID',
  'GITHUB_RUN_NUMBER',
  'GITHUB_RUN_ATTEMPT',
  'GITHUB_SERVER_URL',
  'GITHUB_WORKFLOW',
  'GITHUB_JOB',
  'GITHUB_ACTOR',
  'RUNNER_OS',
  'RUNNER_ARCH',
  'RUNNER_NAME',
  'RUNNER_ENVIRONMENT',
  'RUNNER_TOOL_CACHE',
  'ImageOS',
  'ImageVersion',
  'AGENT_TOOLSDIRECTORY',
  'JAVA_HOME',
  'GOROOT',
  'GOPATH',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'GRADLE_HOME',
  'MAVEN_HOME',
  'M2_HOME',
  'ANT_HOME',
  'DOTNET_ROOT',
  'PIPX_HOME',
  'PIPX_BIN_DIR',
  'NVM_DIR',
  'VCPKG_INSTALLATION_ROOT',
  'CHROME_BIN',
  'CHROMEWEBDRIVER',
  'EDGEWEBDRIVER',
  'GECKOWEBDRIVER',
  'SELENIUM_JAR_PATH',
  'NODE_ENV',
  'FORCE_COLOR',
  'NO_COLOR',
]);

/** Taken by prefix: locale, toolchain locations and switches. */
const PREFIXES = [
  'LC_',
  'JAVA_HOME_',
  'GOROOT_',
  'ANDROID_',
  'DOTNET_',
  'PYTHON',
  'npm_config_',
  'NPM_CONFIG_',
  'XDG_',
];

export function sandboxEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  passThrough: readonly string[] = [],
): Record<string, string> {
  const passed = new Set(passThrough.map((name) => name.toUpperCase()));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (passed.has(name.toUpperCase())) {
      env[name] = value;
      continue;
    }
    const listed = NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix));
    // npm writes registry tokens as npm_config_//host/:_authToken.
    if (!listed || isCredentialEnvName(name) || /auth/i.test(name)) continue;
    // An exported shell function is code, not a setting.
    if (value.startsWith('()')) continue;
    env[name] = value;
  }
  return env;
}
