import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import {
  startGoogleTokenServer,
  writeGoogleCredentialsFile,
} from '../../testkit/google-token-server.js';
import type {
  GoogleCredentialsFileOptions,
  GoogleTokenServer,
} from '../../testkit/google-token-server.js';
import { startVertexServer, VERTEX_ANTHROPIC_VERSIONS } from '../../testkit/vertex-server.js';
import type { VertexServerOptions } from '../../testkit/vertex-server.js';
import type { ProviderServer } from '../../testkit/replay-session.js';

const PROJECT = 'ci-agent-test';
const REGION = 'us-east5';
const MODEL = 'claude-sonnet-4-5@20250929';

let directory: string;
let tokens: GoogleTokenServer;
let vertex: ProviderServer | undefined;
/** Clients made in this test: each after the first gets a credentials file of its own. */
let clients = 0;

beforeEach(async () => {
  clients = 0;
  directory = await mkdtemp(join(tmpdir(), 'vertex-server-'));
  tokens = await startGoogleTokenServer();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await vertex?.close();
  vertex = undefined;
  await tokens.close();
  await rm(directory, { recursive: true, force: true });
});

async function start(options: Partial<VertexServerOptions> = {}): Promise<ProviderServer> {
  vertex = await startVertexServer({
    projectId: PROJECT,
    region: REGION,
    accessToken: tokens.federatedToken,
    ...options,
  });
  return vertex;
}

/**
 * The SDK as a workflow after google-github-actions/auth runs it: Application Default
 * Credentials from the file the action wrote, the project in GOOGLE_CLOUD_PROJECT (which the
 * action exports too; without it google-auth-library looks the project up beyond loopback).
 */
async function client(
  baseURL: string,
  file: GoogleCredentialsFileOptions = {},
  overrides: Partial<ConstructorParameters<typeof AnthropicVertex>[0]> = {},
): Promise<AnthropicVertex> {
  // AnthropicVertex starts reading the file in its constructor: a second client rewriting the
  // same file could be read half-written by the first.
  const name = clients++ === 0 ? 'gha-creds.json' : `gha-creds-${clients}.json`;
  const path = await writeGoogleCredentialsFile(tokens, join(directory, name), file);
  vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', path);
  vi.stubEnv('GOOGLE_CLOUD_PROJECT', PROJECT);
  return new AnthropicVertex({
    region: REGION,
    projectId: PROJECT,
    baseURL,
    maxRetries: 0,
    ...overrides,
  });
}

const request = {
  model: MODEL,
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

const modelPath = `/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${MODEL}:streamRawPredict`;

/** A request the SDK would not send; `token: null` sends none. */
function post(url: string, body: unknown, token: string | null = tokens.federatedToken) {
  return fetch(`${url}${modelPath}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

describe('startVertexServer', () => {
  describe('when the SDK streams a turn with a token from Workload Identity Federation', () => {
    it('delivers the text, the tool_use and the usage the script gives', async () => {
      const server = await start({
        turns: [
          {
            content: [
              { type: 'text', text: 'Reading the test first.' },
              { type: 'tool_use', id: 'toolu_v1', name: 'Read', input: { file_path: 'a.js' } },
            ],
            usage: { input_tokens: 210, output_tokens: 33 },
          },
        ],
      });

      const message = await (await client(server.baseURL)).messages.stream(request).finalMessage();

      expect(message.content).toEqual([
        { type: 'text', text: 'Reading the test first.' },
        { type: 'tool_use', id: 'toolu_v1', name: 'Read', input: { file_path: 'a.js' } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject({ input_tokens: 210, output_tokens: 33 });
    });

    it('records the model of the path and a body with stream but without model', async () => {
      const server = await start();

      await (await client(server.baseURL)).messages.stream(request).finalMessage();

      const [sent] = server.requests;
      expect(sent?.path).toBe(modelPath);
      expect(sent?.modelId).toBe(MODEL);
      expect(sent?.status).toBe(200);
      const body = sent?.body as Record<string, unknown>;
      expect(body).not.toHaveProperty('model');
      expect(body['stream']).toBe(true);
      expect(VERTEX_ANTHROPIC_VERSIONS).toContain(body['anthropic_version']);
      expect(sent?.headers).not.toHaveProperty('authorization');
    });

    it('took the token from the credential source, STS, and nothing else', async () => {
      const server = await start();

      await (await client(server.baseURL)).messages.stream(request).finalMessage();

      expect(tokens.requests.map((sent) => `${sent.method} ${sent.path} ${sent.status}`)).toEqual([
        'GET /oidc-token 200',
        'POST /v1/token 200',
      ]);
      const exchange = tokens.requests[1];
      expect(exchange?.body).toMatchObject({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        audience: tokens.audience,
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      });
      expect(exchange?.body).not.toHaveProperty('subject_token');
      expect(JSON.stringify(tokens.requests)).not.toContain(tokens.oidcToken);
    });

    it('uses the service account token when the file asks for impersonation', async () => {
      const server = await start({ accessToken: tokens.serviceAccountToken });

      await (
        await client(server.baseURL, { impersonate: true })
      ).messages
        .stream(request)
        .finalMessage();

      expect(tokens.requests.map((sent) => sent.path)).toEqual([
        '/oidc-token',
        '/v1/token',
        `/v1/projects/-/serviceAccounts/${tokens.serviceAccount}:generateAccessToken`,
      ]);
      expect(server.requests[0]?.status).toBe(200);
    });

    it('reads the OIDC token from a file credential source', async () => {
      const server = await start();

      await (
        await client(server.baseURL, { source: 'file' })
      ).messages
        .stream(request)
        .finalMessage();

      expect(tokens.requests.map((sent) => sent.path)).toEqual(['/v1/token']);
      expect(server.requests[0]?.status).toBe(200);
    });

    it('answers :rawPredict with one JSON message', async () => {
      const server = await start({ turns: [[{ type: 'text', text: 'Whole answer.' }]] });

      const message = await (await client(server.baseURL)).messages.create(request);

      expect(message.content).toEqual([{ type: 'text', text: 'Whole answer.' }]);
      expect(server.requests[0]?.path).toMatch(/:rawPredict$/);
    });
  });

  describe('when the bearer token is not the one Vertex accepts', () => {
    it('refuses another token with 401 UNAUTHENTICATED, which the SDK surfaces', async () => {
      const server = await start({ accessToken: tokens.serviceAccountToken });

      const error = await failure(
        (await client(server.baseURL)).messages.stream(request).finalMessage(),
      );

      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.status).toBe(401);
      expect(error.error).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
      expect(error.headers?.get('www-authenticate')).toBe(
        'Bearer realm="https://accounts.google.com/"',
      );
    });

    it('refuses a request without a token', async () => {
      const server = await start();

      const response = await post(server.url, { anthropic_version: 'vertex-2023-10-16' }, null);

      expect(response.status).toBe(401);
      expect(server.requests[0]?.status).toBe(401);
    });

    it('never reaches Vertex when STS refuses the OIDC token', async () => {
      const server = await start();
      const vertexClient = await client(server.baseURL, { source: 'file' });
      await writeFile(join(directory, 'gha-creds.json.oidc-token'), 'forged.oidc.token');

      const error = await failure(vertexClient.messages.stream(request).finalMessage());

      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error.message).toBe('Failed to acquire Google OAuth credentials.');
      expect(tokens.requests.map((sent) => sent.status)).toEqual([400]);
      expect(server.requests).toEqual([]);
    });
  });

  describe('when the request is not what Vertex accepts', () => {
    it('refuses `model` in the body as the model does', async () => {
      const server = await start();

      const response = await post(server.url, {
        anthropic_version: 'vertex-2023-10-16',
        model: MODEL,
        max_tokens: 8,
        messages: [],
      });

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'model: Extra inputs are not permitted' },
      });
    });

    it('refuses an anthropic_version that is not Vertex’s, as a 400 the SDK surfaces', async () => {
      const server = await start();
      const vertexClient = await client(
        server.baseURL,
        {},
        { defaultHeaders: { 'anthropic-version': 'bedrock-2023-05-31' } },
      );

      const error = await failure(vertexClient.messages.stream(request).finalMessage());

      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toContain("anthropic_version: Input should be 'vertex-2023-10-16'");
    });

    it('refuses another project with 403 PERMISSION_DENIED', async () => {
      const server = await start();
      const vertexClient = await client(server.baseURL, {}, { projectId: 'someone-else' });

      const error = await failure(vertexClient.messages.create(request));

      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.error).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    });

    it('refuses another region, and a model the project cannot call, with 404', async () => {
      const server = await start({ models: [MODEL] });
      const elsewhere = await client(server.baseURL, {}, { region: 'europe-west1' });
      const here = await client(server.baseURL);

      const wrongRegion = await failure(elsewhere.messages.create(request));
      const wrongModel = await failure(
        here.messages.create({ ...request, model: 'claude-opus-4@20250514' }),
      );

      expect(wrongRegion).toBeInstanceOf(NotFoundError);
      expect(wrongModel).toBeInstanceOf(NotFoundError);
      expect(wrongModel.message).toContain('publishers/anthropic/models/claude-opus-4@20250514');
    });

    it('answers a path without /v1 (a base URL without it) with 404', async () => {
      const server = await start();

      const error = await failure((await client(server.url)).messages.create(request));

      expect(error).toBeInstanceOf(NotFoundError);
      expect(server.requests[0]?.path).toMatch(/^\/projects\//);
    });
  });

  describe('when a fault is scripted', () => {
    it('throttles with 429 RESOURCE_EXHAUSTED, then serves the turn it kept', async () => {
      const server = await start({
        turns: [[{ type: 'text', text: 'after the quota' }]],
        faults: { 0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error' } },
      });
      const vertexClient = await client(server.baseURL);

      const error = await failure(vertexClient.messages.stream(request).finalMessage());
      const message = await vertexClient.messages.stream(request).finalMessage();

      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.status).toBe(429);
      expect(error.error).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
      expect(message.content).toEqual([{ type: 'text', text: 'after the quota' }]);
    });

    it('passes the model’s own overload through in the Messages API’s JSON', async () => {
      const server = await start({
        faults: { 0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' } },
      });

      const error = await failure((await client(server.baseURL)).messages.create(request));

      expect(error.status).toBe(529);
      expect(error.type).toBe('overloaded_error');
    });

    it('answers a Google error with its canonical status', async () => {
      const server = await start({ faults: { 0: { kind: 'google-error', status: 503 } } });

      const error = await failure((await client(server.baseURL)).messages.create(request));

      expect(error).toBeInstanceOf(InternalServerError);
      expect(error.error).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
    });

    it('sends an error event inside the stream', async () => {
      const server = await start({
        faults: { 0: { kind: 'error-event', afterEvents: 2, errorType: 'overloaded_error' } },
      });

      const error = await failure(
        (await client(server.baseURL)).messages.stream(request).finalMessage(),
      );

      expect(error.type).toBe('overloaded_error');
      expect(server.requests[0]?.sentEvents).toEqual(['message_start', 'ping', 'error']);
    });
  });
});

describe('startGoogleTokenServer', () => {
  function exchange(fields: Record<string, string>) {
    return fetch(`${tokens.url}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        audience: tokens.audience,
        scope: 'https://www.googleapis.com/auth/cloud-platform',
        subject_token: tokens.oidcToken,
        ...fields,
      }),
    });
  }

  it('exchanges the known OIDC token for the federated token', async () => {
    const response = await exchange({});

    expect(await response.json()).toMatchObject({
      access_token: tokens.federatedToken,
      token_type: 'Bearer',
      expires_in: 3600,
    });
  });

  it('refuses another workload identity provider as an invalid target', async () => {
    const response = await exchange({ audience: '//iam.googleapis.com/projects/1/other' });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('refuses a forged subject token and records none', async () => {
    const response = await exchange({ subject_token: 'forged' });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    expect(tokens.requests[0]?.body).not.toHaveProperty('subject_token');
  });

  it('refuses a token without the cloud-platform scope', async () => {
    const response = await exchange({ scope: 'https://www.googleapis.com/auth/userinfo.email' });

    expect(await response.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('hands out the OIDC token only for the request token', async () => {
    const response = await fetch(`${tokens.url}/oidc-token?audience=x`, {
      headers: { authorization: 'Bearer guessed' },
    });

    expect(response.status).toBe(401);
  });

  it('impersonates only the known service account, only for the federated token', async () => {
    const impersonate = (email: string, token: string) =>
      fetch(`${tokens.url}/v1/projects/-/serviceAccounts/${email}:generateAccessToken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ scope: ['https://www.googleapis.com/auth/cloud-platform'] }),
      });

    const other = await impersonate(
      'admin@example-project.iam.gserviceaccount.com',
      tokens.federatedToken,
    );
    const unauthenticated = await impersonate(tokens.serviceAccount, 'ya29.guessed');
    const granted = await impersonate(tokens.serviceAccount, tokens.federatedToken);

    expect([other.status, unauthenticated.status, granted.status]).toEqual([403, 401, 200]);
    expect(await granted.json()).toMatchObject({ accessToken: tokens.serviceAccountToken });
  });

  it('answers an unknown path with 404', async () => {
    const response = await fetch(`${tokens.url}/token`, { method: 'POST' });

    expect(response.status).toBe(404);
  });
});

describe('writeGoogleCredentialsFile', () => {
  it('writes the external_account file google-github-actions/auth writes, private', async () => {
    const path = await writeGoogleCredentialsFile(tokens, join(directory, 'creds.json'), {
      impersonate: true,
    });

    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      type: 'external_account',
      audience: tokens.audience,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${tokens.url}/v1/token`,
      service_account_impersonation_url: `${tokens.url}/v1/projects/-/serviceAccounts/${tokens.serviceAccount}:generateAccessToken`,
      credential_source: {
        url: `${tokens.url}/oidc-token?api-version=2.0&audience=${encodeURIComponent(`https://iam.googleapis.com/${tokens.audience.slice('//iam.googleapis.com/'.length)}`)}`,
        headers: { Authorization: `Bearer ${tokens.oidcRequestToken}` },
        format: { type: 'json', subject_token_field_name: 'value' },
      },
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
