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

  it("removes the model providers' credentials and the files that hold them", () => {
    const providers = {
      PATH: '/bin',
      AWS_REGION: 'us-east-1',
      AWS_PROFILE: 'ci',
      AWS_ACCESS_KEY_ID: 'AKIA',
      AWS_SECRET_ACCESS_KEY: 's',
      AWS_SESSION_TOKEN: 't',
      AWS_BEARER_TOKEN_BEDROCK: 'b',
      AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/token',
      GOOGLE_APPLICATION_CREDENTIALS: '/w/gha-creds-1.json',
      GOOGLE_GHA_CREDS_PATH: '/w/gha-creds-1.json',
      CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: '/w/gha-creds-1.json',
      CLOUDSDK_CORE_PROJECT: 'p',
      ANTHROPIC_FOUNDRY_API_KEY: 'f',
      ANTHROPIC_CUSTOM_HEADERS: 'X-Key: k',
      'INPUT_CLAUDE-CODE-OAUTH-TOKEN': 'o',
    };
    expect(buildChildEnv(providers)).toEqual({
      PATH: '/bin',
      AWS_REGION: 'us-east-1',
      AWS_PROFILE: 'ci',
      CLOUDSDK_CORE_PROJECT: 'p',
    });
  });

  it.each(['anthropic_api_key', 'ACTIONS_ID_TOKEN_REQUEST_SOMETHING_NEW'])(
    'knows %s is a secret',
    (name) => {
      expect(isSecretEnvName(name)).toBe(true);
    },
  );
});

describe('secretValues', () => {
  it("masks the providers' credentials and header values, not the paths of credential files", () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key',
      ANTHROPIC_CUSTOM_HEADERS: 'X-Gateway-Key: gateway-secret-1\nX-Team: ci',
      GOOGLE_APPLICATION_CREDENTIALS: '/home/runner/work/repo/repo/gha-creds-1.json',
    };
    expect(secretValues(env).sort()).toEqual(
      [
        'AKIAEXAMPLE',
        'X-Gateway-Key: gateway-secret-1\nX-Team: ci',
        'bedrock-key',
        'gateway-secret-1',
      ].sort(),
    );
  });

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
