import { describe, expect, it } from 'vitest';
import {
  envLookup,
  layeredLookup,
  mapLookup,
  ProviderConfigError,
  readCustomHeaders,
} from '../../src/model/provider-env.js';
import { providerSecrets, resolveProviderSettings } from '../../src/model/provider-settings.js';

const resolve = (env: Record<string, string>) =>
  resolveProviderSettings({ lookup: envLookup(env) });

/** The one problem a configuration has, as the operator reads it. */
function problem(env: Record<string, string>): string {
  try {
    resolve(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

const AWS_KEYS = {
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE123',
  AWS_SECRET_ACCESS_KEY: 'secret/example/key',
  AWS_SESSION_TOKEN: 'session-token-example',
};

describe('resolveProviderSettings', () => {
  describe("for Anthropic's API", () => {
    it('takes the API key, and the base URL when one is set', () => {
      expect(
        resolve({ ANTHROPIC_API_KEY: 'sk-ant-k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }),
      ).toEqual({
        provider: 'anthropic',
        baseURL: 'http://127.0.0.1:9',
        auth: { kind: 'api-key', token: 'sk-ant-k', from: 'ANTHROPIC_API_KEY' },
        headers: {},
        promptCaching: true,
        unused: [],
      });
    });

    it("takes Claude Code's order when several credentials are set, and says which it left", () => {
      const all = {
        ANTHROPIC_API_KEY: 'sk-ant-k',
        CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-t',
        ANTHROPIC_AUTH_TOKEN: 'gw-token',
      };
      expect(resolve(all)).toMatchObject({
        auth: { kind: 'auth-token', token: 'gw-token', from: 'ANTHROPIC_AUTH_TOKEN' },
        unused: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
      });
      expect(resolve({ CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-t' }).auth).toEqual({
        kind: 'oauth',
        token: 'sk-ant-oat01-t',
        from: 'CLAUDE_CODE_OAUTH_TOKEN',
      });
    });

    it('names every credential it looked for when there is none', () => {
      expect(problem({})).toBe(
        "ANTHROPIC_API_KEY is not set, nor CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_AUTH_TOKEN: give an Anthropic API key (or a Claude Code OAuth token, or a gateway's token with ANTHROPIC_BASE_URL), or choose a cloud provider with CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX, CLAUDE_CODE_USE_FOUNDRY",
      );
    });

    it('names inputs where the action maps them', () => {
      const message = (() => {
        try {
          resolveProviderSettings({
            lookup: envLookup({}),
            nameOf: (name) => (name === 'ANTHROPIC_API_KEY' ? 'the anthropic-api-key input' : name),
          });
        } catch (error) {
          return (error as Error).message;
        }
        return '';
      })();
      expect(message).toMatch(/^the anthropic-api-key input is not set, nor/);
    });

    it('refuses a base URL that is not an http(s) URL, naming it and the form', () => {
      expect(problem({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'api.anthropic.com' })).toBe(
        'ANTHROPIC_BASE_URL: expected an http(s) URL such as https://api.anthropic.com, got "api.anthropic.com"',
      );
    });
  });

  describe('when a provider is chosen', () => {
    it.each([
      ['1', true],
      ['TRUE', true],
      ['yes', true],
      ['on', true],
      ['0', false],
      ['false', false],
      ['no', false],
      ['off', false],
    ])('reads the switch %j as Claude Code does', (value, on) => {
      const env = {
        CLAUDE_CODE_USE_BEDROCK: value,
        AWS_REGION: 'us-east-1',
        ANTHROPIC_API_KEY: 'k',
      };
      expect(resolve(env).provider).toBe(on ? 'bedrock' : 'anthropic');
    });

    it('refuses a switch that says neither, naming it and the words it takes', () => {
      expect(problem({ CLAUDE_CODE_USE_VERTEX: 'maybe' })).toBe(
        'CLAUDE_CODE_USE_VERTEX: expected 1, true, yes, on (or 0, false, no, off), got "maybe"',
      );
    });

    it('refuses two providers at once, naming both', () => {
      expect(problem({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_USE_VERTEX: '1' })).toBe(
        "CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX each choose a model provider: choose one (Amazon Bedrock, Google Vertex AI or Microsoft Foundry), or none for Anthropic's API",
      );
      const fromInputs = mapLookup({ CLAUDE_CODE_USE_FOUNDRY: '1' }, () => 'the use-foundry input');
      expect(() =>
        resolveProviderSettings({
          lookup: layeredLookup(fromInputs, envLookup({ CLAUDE_CODE_USE_BEDROCK: 'true' })),
        }),
      ).toThrow(/^CLAUDE_CODE_USE_BEDROCK and the use-foundry input each choose a model provider/);
    });
  });

  describe('for Amazon Bedrock', () => {
    const bedrock = { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'us-east-1' };

    it('takes the keys configure-aws-credentials exports, and says the Anthropic key is unused', () => {
      expect(resolve({ ...bedrock, ...AWS_KEYS, ANTHROPIC_API_KEY: 'sk-ant-k' })).toEqual({
        provider: 'bedrock',
        region: 'us-east-1',
        baseURL: undefined,
        auth: {
          kind: 'keys',
          accessKeyId: 'AKIAEXAMPLE123',
          secretAccessKey: 'secret/example/key',
          sessionToken: 'session-token-example',
          from: 'AWS_ACCESS_KEY_ID',
        },
        headers: {},
        promptCaching: true,
        unused: ['ANTHROPIC_API_KEY'],
      });
    });

    it('prefers a Bedrock API key, else leaves the profile or the default chain to the SDK', () => {
      expect(resolve({ ...bedrock, ...AWS_KEYS, AWS_BEARER_TOKEN_BEDROCK: 'bk' }).auth).toEqual({
        kind: 'api-key',
        apiKey: 'bk',
        from: 'AWS_BEARER_TOKEN_BEDROCK',
      });
      expect(resolve({ ...bedrock, AWS_PROFILE: 'ci' }).auth).toEqual({
        kind: 'chain',
        from: 'AWS_PROFILE=ci',
      });
      expect(resolve(bedrock).auth).toEqual({
        kind: 'chain',
        from: "the AWS SDK's default credential chain",
      });
    });

    it('takes AWS_DEFAULT_REGION when AWS_REGION is not set', () => {
      const env = { CLAUDE_CODE_USE_BEDROCK: '1', AWS_DEFAULT_REGION: 'eu-central-1' };
      expect(resolve(env)).toMatchObject({ region: 'eu-central-1' });
    });

    it('needs a region, and says where it usually comes from', () => {
      expect(problem({ CLAUDE_CODE_USE_BEDROCK: '1', ...AWS_KEYS })).toBe(
        'Amazon Bedrock needs a region: set AWS_REGION to an AWS region such as us-east-1 (aws-actions/configure-aws-credentials sets it from its aws-region input)',
      );
    });

    it.each(['us east 1', 'evil.example/#', 'US-EAST-1'])('refuses the region %j', (region) => {
      expect(problem({ ...bedrock, AWS_REGION: region })).toBe(
        `AWS_REGION: expected an AWS region such as us-east-1, got ${JSON.stringify(region)}`,
      );
    });

    it('refuses half a key pair', () => {
      expect(problem({ ...bedrock, AWS_ACCESS_KEY_ID: 'AKIA' })).toMatch(
        /^AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY: AWS keys come as a pair/,
      );
    });

    it('skips authentication only towards a gateway of its own', () => {
      const skip = { ...bedrock, CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1' };
      expect(problem(skip)).toBe(
        'CLAUDE_CODE_SKIP_BEDROCK_AUTH sends requests without credentials, which only a gateway that adds its own can take: set ANTHROPIC_BEDROCK_BASE_URL to that gateway',
      );
      const env = { ...skip, ANTHROPIC_BEDROCK_BASE_URL: 'http://127.0.0.1:4000' };
      expect(resolve(env)).toMatchObject({
        baseURL: 'http://127.0.0.1:4000',
        auth: { kind: 'none', from: 'CLAUDE_CODE_SKIP_BEDROCK_AUTH' },
      });
    });
  });

  describe('for Google Vertex AI', () => {
    const vertex = { CLAUDE_CODE_USE_VERTEX: '1', CLOUD_ML_REGION: 'us-east5' };

    it('takes the project and region, and the credentials file when one is named', () => {
      const env = {
        ...vertex,
        ANTHROPIC_VERTEX_PROJECT_ID: 'my-project-123',
        GOOGLE_APPLICATION_CREDENTIALS: '/w/gha-creds-1.json',
      };
      expect(resolve(env)).toMatchObject({
        provider: 'vertex',
        region: 'us-east5',
        projectId: 'my-project-123',
        auth: { kind: 'google', from: 'GOOGLE_APPLICATION_CREDENTIALS' },
      });
    });

    it('takes the project google-github-actions/auth exports when ANTHROPIC_VERTEX_PROJECT_ID is not set', () => {
      expect(resolve({ ...vertex, GOOGLE_CLOUD_PROJECT: 'from-auth-1' })).toMatchObject({
        projectId: 'from-auth-1',
        auth: { kind: 'google', from: 'Application Default Credentials' },
      });
    });

    it('needs a project', () => {
      expect(problem(vertex)).toBe(
        'Google Vertex AI needs a project: set ANTHROPIC_VERTEX_PROJECT_ID to a Google Cloud project id such as my-project-123',
      );
    });

    it('needs a region', () => {
      expect(
        problem({ CLAUDE_CODE_USE_VERTEX: '1', ANTHROPIC_VERTEX_PROJECT_ID: 'p-123456' }),
      ).toBe(
        'Google Vertex AI needs a region: set CLOUD_ML_REGION to a Google Cloud region such as us-east5, or global',
      );
    });

    it.each(['global', 'us', 'eu', 'europe-west1'])('takes the region %j', (region) => {
      const env = { ...vertex, CLOUD_ML_REGION: region, ANTHROPIC_VERTEX_PROJECT_ID: 'p-123456' };
      expect(resolve(env)).toMatchObject({ region });
    });

    it.each(['x.evil.example', 'My_Project'])('refuses the project %j', (project) => {
      expect(problem({ ...vertex, ANTHROPIC_VERTEX_PROJECT_ID: project })).toBe(
        `ANTHROPIC_VERTEX_PROJECT_ID: expected a Google Cloud project id such as my-project-123, got ${JSON.stringify(project)}`,
      );
    });
  });

  describe('for Microsoft Foundry', () => {
    const foundry = { CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_API_KEY: 'fk' };

    it('makes the URL from the resource', () => {
      expect(resolve({ ...foundry, ANTHROPIC_FOUNDRY_RESOURCE: 'my-foundry' })).toMatchObject({
        provider: 'foundry',
        baseURL: 'https://my-foundry.services.ai.azure.com/anthropic/',
        auth: { kind: 'api-key', apiKey: 'fk', from: 'ANTHROPIC_FOUNDRY_API_KEY' },
      });
    });

    it('needs the resource or the URL, not both, and the key', () => {
      expect(problem(foundry)).toMatch(
        /^Microsoft Foundry needs its resource: set ANTHROPIC_FOUNDRY_RESOURCE/,
      );
      expect(
        problem({
          ...foundry,
          ANTHROPIC_FOUNDRY_RESOURCE: 'a',
          ANTHROPIC_FOUNDRY_BASE_URL: 'https://b.example/anthropic/',
        }),
      ).toBe(
        'ANTHROPIC_FOUNDRY_RESOURCE and ANTHROPIC_FOUNDRY_BASE_URL both say where Microsoft Foundry is: set one',
      );
      expect(problem({ CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_RESOURCE: 'a' })).toMatch(
        /^Microsoft Foundry needs an API key: set ANTHROPIC_FOUNDRY_API_KEY/,
      );
    });
  });
});

describe('readCustomHeaders', () => {
  const read = (value: string) => readCustomHeaders(envLookup({ ANTHROPIC_CUSTOM_HEADERS: value }));

  it('reads "Name: Value" lines as Claude Code does, skipping blank ones', () => {
    expect(read('X-Gateway-Key: abc:def\r\n\n  x-team : ci  \n')).toEqual({
      'X-Gateway-Key': 'abc:def',
      'x-team': 'ci',
    });
  });

  it('refuses a line without a colon, naming the line and never its text', () => {
    expect(() => read('X-Ok: 1\nsecret-value-123')).toThrow(
      'ANTHROPIC_CUSTOM_HEADERS, line 2: expected "Name: Value" (a header name of letters, digits and -, a colon, the value), got a line of 16 characters without ":"',
    );
  });

  it('refuses a name no HTTP header can have', () => {
    expect(() => read('X Gateway: 1')).toThrow(
      'ANTHROPIC_CUSTOM_HEADERS, line 1: expected "Name: Value" (a header name of letters, digits and -, a colon, the value), got "X Gateway" before the ":"',
    );
    expect(() => read(': 1')).toThrow(/line 1: expected "Name: Value"/);
  });
});

describe('providerSecrets', () => {
  it('lists every credential and header value the connection sends', () => {
    const settings = resolve({
      CLAUDE_CODE_USE_BEDROCK: '1',
      AWS_REGION: 'us-east-1',
      ...AWS_KEYS,
      ANTHROPIC_CUSTOM_HEADERS: 'X-Key: gateway-secret',
    });
    expect(providerSecrets(settings).sort()).toEqual(
      ['AKIAEXAMPLE123', 'gateway-secret', 'secret/example/key', 'session-token-example'].sort(),
    );
  });
});
