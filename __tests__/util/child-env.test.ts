import { describe, expect, it } from 'vitest';
import { buildChildEnv, isSecretEnvName, secretValues } from '../../src/util/child-env.js';

describe('buildChildEnv', () => {
  const parent = {
    PATH: '/bin',
    HOME: '/home/u',
    ANTHROPIC_API_KEY: 'sk-ant',
    GITHUB_TOKEN: 'ghp',
    GH_TOKEN: 'gho',
    ACTIONS_RUNTIME_TOKEN: 'rt',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://x',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'idt',
    'INPUT_ANTHROPIC-API-KEY': 'sk-ant',
    'INPUT_GITHUB-TOKEN': 'ghp',
    NPM_TOKEN: 'npm',
    UNSET: undefined,
  };

  it('removes the model key, GitHub tokens and OIDC request variables, keeps the rest', () => {
    expect(buildChildEnv(parent)).toEqual({ PATH: '/bin', HOME: '/home/u', NPM_TOKEN: 'npm' });
  });

  it('passes a secret through only when the policy names it', () => {
    expect(buildChildEnv(parent, ['github_token'])).toMatchObject({ GITHUB_TOKEN: 'ghp' });
    expect(buildChildEnv(parent, ['github_token']).ANTHROPIC_API_KEY).toBeUndefined();
  });

  it.each(['anthropic_api_key', 'ACTIONS_ID_TOKEN_REQUEST_SOMETHING_NEW'])(
    'knows %s is a secret',
    (name) => {
      expect(isSecretEnvName(name)).toBe(true);
    },
  );
});

describe('secretValues', () => {
  it('returns the values of the secret-named variables that are set', () => {
    const env = {
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'sk-ant-key',
      GITHUB_TOKEN: 'ghs_token',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
      GH_TOKEN: '',
      ANTHROPIC_AUTH_TOKEN: undefined,
      RUNNER_TEMP: '/tmp/runner',
    };
    expect(secretValues(env).sort()).toEqual(['ghs_token', 'oidc', 'sk-ant-key']);
  });

  it("also returns those a workflow passes to the step under a credential's name", () => {
    const env = {
      NPM_TOKEN: 'npm_value',
      deploy_key: 'ssh-key',
      DB_PASSWORD: 'hunter2!',
      SENTRY_AUTH_TOKEN: 'sntrys',
      AWS_SECRET_ACCESS_KEY: 'aws',
      HOME: '/home/runner',
      GITHUB_REF: 'refs/heads/main',
    };
    expect(secretValues(env).sort()).toEqual(['aws', 'hunter2!', 'npm_value', 'sntrys', 'ssh-key']);
  });
});
