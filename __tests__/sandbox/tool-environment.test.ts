import { describe, expect, it } from 'vitest';
import { sandboxEnvironment } from '../../src/sandbox/tool-environment.js';

const RUNNER = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  CI: 'true',
  GITHUB_REPOSITORY: 'octo/repo',
  JAVA_HOME_17_X64: '/opt/java17',
  npm_config_cache: '/home/runner/.npm',
  // What must not pass: the runner's files and tokens, and secrets under any name.
  GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env_1',
  GITHUB_PATH: '/home/runner/work/_temp/_runner_file_commands/add_path_1',
  GITHUB_OUTPUT: '/x',
  GITHUB_STEP_SUMMARY: '/x',
  GITHUB_EVENT_PATH: '/home/runner/work/_temp/_github_workflow/event.json',
  RUNNER_TEMP: '/home/runner/work/_temp',
  GITHUB_TOKEN: 'ghs_1',
  ACTIONS_RUNTIME_TOKEN: 'x',
  ACTIONS_RESULTS_URL: 'https://results',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token',
  ANTHROPIC_API_KEY: 'sk-ant',
  NPM_TOKEN: 'npm_1',
  AWS_ACCESS_KEY_ID: 'AKIA',
  AWS_SECRET_ACCESS_KEY: 'secret',
  SENTRY_DSN: 'https://key@sentry.io/1',
  DEPLOY_KEY_B64: 'LS0t',
  'npm_config_//registry.npmjs.org/:_authToken': 'npm_2',
  INPUT_PROMPT: 'fix it',
  GIT_CONFIG_PARAMETERS: "'http.extraheader=AUTHORIZATION: basic x'",
  BASH_FUNC_f: '() { evil; }',
};

describe('sandboxEnvironment', () => {
  it('takes the toolchain and machine variables', () => {
    const env = sandboxEnvironment(RUNNER);
    expect(env).toMatchObject({
      PATH: '/usr/bin:/bin',
      HOME: '/home/runner',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      CI: 'true',
      GITHUB_REPOSITORY: 'octo/repo',
      JAVA_HOME_17_X64: '/opt/java17',
      npm_config_cache: '/home/runner/.npm',
    });
  });

  it("leaves out the runner's files, its tokens, and secrets under names nobody listed", () => {
    const env = sandboxEnvironment(RUNNER);
    for (const name of [
      'GITHUB_ENV',
      'GITHUB_PATH',
      'GITHUB_OUTPUT',
      'GITHUB_STEP_SUMMARY',
      'GITHUB_EVENT_PATH',
      'RUNNER_TEMP',
      'GITHUB_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_RESULTS_URL',
      'ACTIONS_ID_TOKEN_REQUEST_URL',
      'ANTHROPIC_API_KEY',
      'NPM_TOKEN',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'SENTRY_DSN',
      'DEPLOY_KEY_B64',
      'npm_config_//registry.npmjs.org/:_authToken',
      'INPUT_PROMPT',
      'GIT_CONFIG_PARAMETERS',
      'BASH_FUNC_f',
    ]) {
      expect(env, name).not.toHaveProperty(name);
    }
  });

  it('passes what the policy names, secret-shaped or not', () => {
    const env = sandboxEnvironment(RUNNER, ['NPM_TOKEN', 'sentry_dsn']);
    expect(env.NPM_TOKEN).toBe('npm_1');
    expect(env.SENTRY_DSN).toBe('https://key@sentry.io/1');
    expect(env).not.toHaveProperty('GITHUB_TOKEN');
  });
});
