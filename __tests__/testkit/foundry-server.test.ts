import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicFoundry } from '@anthropic-ai/foundry-sdk';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { startFoundryServer } from '../../testkit/foundry-server.js';
import type { FoundryServerOptions } from '../../testkit/foundry-server.js';
import type { ProviderServer } from '../../testkit/replay-session.js';

const KEY = 'foundry-resource-key';
const ENTRA_TOKEN = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra.token';
const DEPLOYMENT = 'claude-sonnet-5';

let server: ProviderServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Partial<FoundryServerOptions> = {}): Promise<ProviderServer> {
  server = await startFoundryServer({ apiKey: KEY, ...options });
  return server;
}

function client(
  baseURL: string,
  overrides: Partial<ConstructorParameters<typeof AnthropicFoundry>[0]> = {},
): AnthropicFoundry {
  return new AnthropicFoundry({ baseURL, apiKey: KEY, maxRetries: 0, ...overrides });
}

const request = {
  model: DEPLOYMENT,
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Fix the failing test.' }],
};

async function failure(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

describe('startFoundryServer', () => {
  it('refuses to start without a credential to check', async () => {
    await expect(startFoundryServer({})).rejects.toThrow(/set `apiKey`, `entraToken` or both/);
  });

  describe('when the SDK streams a turn', () => {
    it('delivers the text, the tool_use and the usage the script gives', async () => {
      const { baseURL } = await start({
        turns: [
          {
            content: [
              { type: 'text', text: 'Reading the test first.' },
              { type: 'tool_use', id: 'toolu_f1', name: 'Read', input: { file_path: 'a.js' } },
            ],
            usage: { input_tokens: 120, output_tokens: 20 },
          },
        ],
      });

      const message = await client(baseURL).messages.stream(request).finalMessage();

      expect(message.content).toEqual([
        { type: 'text', text: 'Reading the test first.' },
        { type: 'tool_use', id: 'toolu_f1', name: 'Read', input: { file_path: 'a.js' } },
      ]);
      expect(message.usage).toMatchObject({ input_tokens: 120, output_tokens: 20 });
      expect(message.model).toBe(DEPLOYMENT);
    });

    it('records the path under /anthropic/, the deployment and no key', async () => {
      const recorded = await start({ deployments: [DEPLOYMENT] });

      await client(recorded.baseURL).messages.stream(request).finalMessage();

      const [sent] = recorded.requests;
      expect(sent?.path).toBe('/anthropic/v1/messages');
      expect(sent?.modelId).toBe(DEPLOYMENT);
      expect(sent?.body).toMatchObject({ model: DEPLOYMENT, stream: true });
      expect(sent?.headers).not.toHaveProperty('x-api-key');
      expect(sent?.headers['anthropic-version']).toBeDefined();
    });

    it('accepts an Entra ID token from azureADTokenProvider', async () => {
      const { baseURL } = await start({ apiKey: undefined, entraToken: ENTRA_TOKEN });
      const entra = new AnthropicFoundry({
        baseURL,
        azureADTokenProvider: async () => ENTRA_TOKEN,
        maxRetries: 0,
      });

      await entra.messages.stream(request).finalMessage();

      expect(server?.requests[0]?.status).toBe(200);
      expect(server?.requests[0]?.headers).not.toHaveProperty('authorization');
    });

    it('accepts the key in Azure’s own api-key header', async () => {
      const { url } = await start();

      const response = await fetch(`${url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'api-key': KEY, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ ...request }),
      });

      expect(response.status).toBe(200);
      expect(server?.requests[0]?.headers).not.toHaveProperty('api-key');
    });
  });

  describe('when the credential is not the resource’s', () => {
    it('refuses a wrong key with 401 in Azure’s error JSON, which the SDK surfaces', async () => {
      const { baseURL } = await start({ turns: [[{ type: 'text', text: 'kept' }]] });

      const error = await failure(
        client(baseURL, { apiKey: 'guessed' }).messages.stream(request).finalMessage(),
      );
      const message = await client(baseURL).messages.stream(request).finalMessage();

      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.status).toBe(401);
      expect(error.error).toMatchObject({ error: { code: '401' } });
      expect(message.content).toEqual([{ type: 'text', text: 'kept' }]);
    });

    it('refuses a wrong Entra ID token', async () => {
      const { baseURL } = await start({ entraToken: ENTRA_TOKEN });
      const entra = new AnthropicFoundry({
        baseURL,
        azureADTokenProvider: async () => 'eyJ.forged.token',
        maxRetries: 0,
      });

      const error = await failure(entra.messages.create(request));

      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.message).toContain('Access token is missing, invalid');
    });
  });

  describe('when the request is not what Foundry accepts', () => {
    it('refuses a deployment the resource does not have with 404', async () => {
      const { baseURL } = await start({ deployments: [DEPLOYMENT] });

      const error = await failure(
        client(baseURL).messages.create({ ...request, model: 'claude-opus-4-1' }),
      );

      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.error).toMatchObject({ error: { code: 'DeploymentNotFound' } });
    });

    it('answers a base URL without /anthropic/ with 404', async () => {
      const { url } = await start();

      const error = await failure(client(url).messages.create(request));

      expect(error).toBeInstanceOf(NotFoundError);
      expect(server?.requests[0]?.path).toBe('/v1/messages');
    });

    it('refuses a request without the anthropic-version header', async () => {
      const { url } = await start();

      const response = await fetch(`${url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEY },
        body: JSON.stringify(request),
      });

      expect(response.status).toBe(400);
    });

    it('refuses a body without a deployment as a 400 the SDK surfaces', async () => {
      const { baseURL } = await start();

      const error = await failure(
        client(baseURL).messages.create({ ...request, model: undefined as unknown as string }),
      );

      expect(error).toBeInstanceOf(BadRequestError);
    });
  });

  describe('when a fault is scripted', () => {
    it('throttles with 429 and a retry-after, then serves the turn it kept', async () => {
      const { baseURL } = await start({
        turns: [[{ type: 'text', text: 'after the throttle' }]],
        faults: {
          0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error', retryAfter: '7' },
        },
      });

      const error = await failure(client(baseURL).messages.stream(request).finalMessage());
      const message = await client(baseURL).messages.stream(request).finalMessage();

      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.type).toBe('rate_limit_error');
      expect(error.headers?.get('retry-after')).toBe('7');
      expect(error.headers?.get('apim-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(message.content).toEqual([{ type: 'text', text: 'after the throttle' }]);
    });

    it('sends an error event inside the stream', async () => {
      const { baseURL } = await start({
        faults: { 0: { kind: 'error-event', afterEvents: 3, errorType: 'overloaded_error' } },
      });

      const error = await failure(client(baseURL).messages.stream(request).finalMessage());

      expect(error.type).toBe('overloaded_error');
    });
  });
});
