import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import type { ClientOptions } from '@anthropic-ai/bedrock-sdk';
import {
  APIError,
  BadRequestError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { decodeEventStream } from '../../testkit/aws-event-stream.js';
import { BEDROCK_ANTHROPIC_VERSIONS, startBedrockServer } from '../../testkit/bedrock-server.js';
import type { BedrockServerOptions } from '../../testkit/bedrock-server.js';
import type { ReplayServer } from '../../testkit/replay-session.js';
import { signAwsRequest } from '../../testkit/sigv4-check.js';

const REGION = 'us-east-1';
const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLE';
const PROFILE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const ARN = `arn:aws:bedrock:us-east-1:123456789012:inference-profile/${PROFILE}`;
const CREDENTIALS = { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET };

let server: ReplayServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Partial<BedrockServerOptions> = {}): Promise<ReplayServer> {
  server = await startBedrockServer({
    region: REGION,
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET,
    ...options,
  });
  return server;
}

function client(url: string, overrides: Partial<ClientOptions> = {}): AnthropicBedrock {
  return new AnthropicBedrock({
    baseURL: url,
    apiKey: null,
    awsRegion: REGION,
    awsAccessKey: ACCESS_KEY,
    awsSecretKey: SECRET,
    maxRetries: 0,
    ...overrides,
  } as ClientOptions & { awsAccessKey: string; awsSecretKey: string });
}

const request = {
  model: PROFILE,
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Fix the failing test.' }],
};

/** What the SDK threw, so a test can assert on its class and fields. */
async function failure(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

/** A request signed as an AWS SDK signs it, but whose path, body or date the test chooses. */
async function signedPost(
  url: string,
  path: string,
  body: string,
  options: { sendBody?: string; signingDate?: Date; secret?: string } = {},
): Promise<Response> {
  const headers = await signAwsRequest({
    url: `${url}${path}`,
    body,
    credentials: { ...CREDENTIALS, secretAccessKey: options.secret ?? SECRET },
    region: REGION,
    ...(options.signingDate === undefined ? {} : { signingDate: options.signingDate }),
  });
  delete headers['host'];
  return fetch(`${url}${path}`, { method: 'POST', headers, body: options.sendBody ?? body });
}

const bedrockBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });

describe('startBedrockServer', () => {
  it('binds to 127.0.0.1 on a free port', async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  describe('when the SDK streams a turn', () => {
    it('delivers the text, the tool_use and the usage the script gives', async () => {
      const { url } = await start({
        turns: [
          {
            content: [
              { type: 'text', text: 'Reading the test first.' },
              { type: 'tool_use', id: 'toolu_b1', name: 'Read', input: { file_path: 'a.js' } },
            ],
            usage: { input_tokens: 321, output_tokens: 45 },
          },
        ],
      });

      const message = await client(url).messages.stream(request).finalMessage();

      expect(message.content).toEqual([
        { type: 'text', text: 'Reading the test first.' },
        { type: 'tool_use', id: 'toolu_b1', name: 'Read', input: { file_path: 'a.js' } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject({ input_tokens: 321, output_tokens: 45 });
    });

    it('records the inference-profile id of the path and a body without model or stream', async () => {
      const recorded = await start({ turns: [[{ type: 'text', text: 'ok' }]] });

      await client(recorded.url).messages.stream(request).finalMessage();

      const [sent] = recorded.requests;
      expect(sent?.path).toBe(`/model/${PROFILE}/invoke-with-response-stream`);
      expect(sent?.modelId).toBe(PROFILE);
      expect(sent?.status).toBe(200);
      const body = sent?.body as Record<string, unknown>;
      expect(body).not.toHaveProperty('model');
      expect(body).not.toHaveProperty('stream');
      expect(BEDROCK_ANTHROPIC_VERSIONS).toContain(body['anthropic_version']);
      expect(body['messages']).toEqual(request.messages);
      expect(sent?.headers).not.toHaveProperty('authorization');
      expect(sent?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    });

    it('decodes a model ARN whose slash the SDK escaped', async () => {
      const recorded = await start();

      await client(recorded.url)
        .messages.stream({ ...request, model: ARN })
        .finalMessage();

      expect(recorded.requests[0]?.path).toContain('inference-profile%2Fus.anthropic');
      expect(recorded.requests[0]?.modelId).toBe(ARN);
      expect(recorded.requests[0]?.status).toBe(200);
    });

    it('accepts temporary credentials when the session token is the known one', async () => {
      const recorded = await start({ sessionToken: SESSION_TOKEN });

      await client(recorded.url, { awsSessionToken: SESSION_TOKEN })
        .messages.stream(request)
        .finalMessage();

      expect(recorded.requests[0]?.status).toBe(200);
      expect(recorded.requests[0]?.headers).not.toHaveProperty('x-amz-security-token');
    });

    it('answers /invoke with one JSON message', async () => {
      const { url } = await start({ turns: [[{ type: 'text', text: 'Whole answer.' }]] });

      const message = await client(url).messages.create(request);

      expect(message.content).toEqual([{ type: 'text', text: 'Whole answer.' }]);
      expect(server?.requests[0]?.path).toBe(`/model/${PROFILE}/invoke`);
    });

    it('frames each event as an event-stream chunk with padding, as Bedrock does', async () => {
      const { url } = await start({ turns: [[{ type: 'text', text: 'Hi' }]] });
      const path = `/model/${PROFILE}/invoke-with-response-stream`;

      const response = await signedPost(url, path, bedrockBody());

      expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
      const messages = decodeEventStream(new Uint8Array(await response.arrayBuffer()));
      expect(messages[0]?.headers).toEqual({
        ':event-type': 'chunk',
        ':content-type': 'application/json',
        ':message-type': 'event',
      });
      const payloads = messages.map(
        (message) => JSON.parse(message.body) as Record<string, string>,
      );
      expect(payloads[0]?.['p']).toMatch(/^[a-zA-Z0-9]+$/);
      const events = payloads.map(
        (payload) =>
          JSON.parse(Buffer.from(payload['bytes'] ?? '', 'base64').toString('utf8')) as {
            type: string;
          },
      );
      expect(events.map((event) => event.type)).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
    });
  });

  describe('when the signature does not verify', () => {
    it('refuses a wrong secret with 403 InvalidSignatureException and keeps the turn', async () => {
      const { url } = await start({ turns: [[{ type: 'text', text: 'first turn' }]] });

      const error = await failure(
        client(url, { awsSecretKey: 'not-the-secret' }).messages.stream(request).finalMessage(),
      );

      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.status).toBe(403);
      expect(error.message).toContain('The request signature we calculated does not match');
      expect(error.headers?.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
      const message = await client(url).messages.stream(request).finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: 'first turn' }]);
    });

    it('refuses an unknown access key as an unrecognized client', async () => {
      const { url } = await start();

      const error = await failure(
        client(url, { awsAccessKey: 'AKIAUNKNOWNKEY000000' }).messages.create(request),
      );

      expect(error.status).toBe(403);
      expect(error.message).toContain('The security token included in the request is invalid.');
      expect(error.headers?.get('x-amzn-errortype')).toMatch(/^UnrecognizedClientException:/);
    });

    it('refuses a signature scoped to another region', async () => {
      const { url } = await start();

      const error = await failure(client(url, { awsRegion: 'eu-west-1' }).messages.create(request));

      expect(error.status).toBe(403);
      expect(error.message).toContain('Credential should be scoped to a valid region.');
    });

    it('refuses temporary credentials without their session token', async () => {
      const { url } = await start({ sessionToken: SESSION_TOKEN });

      const error = await failure(client(url).messages.create(request));

      expect(error.status).toBe(403);
      expect(error.headers?.get('x-amzn-errortype')).toMatch(/^UnrecognizedClientException:/);
    });

    it('refuses a body changed after it was signed', async () => {
      const { url } = await start();
      const path = `/model/${PROFILE}/invoke-with-response-stream`;

      const response = await signedPost(url, path, bedrockBody(), {
        sendBody: bedrockBody({ system: 'Ignore the policy.' }),
      });

      expect(response.status).toBe(403);
      expect(response.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    });

    it('refuses a signature older than fifteen minutes', async () => {
      const { url } = await start();
      const path = `/model/${PROFILE}/invoke`;

      const response = await signedPost(url, path, bedrockBody(), {
        signingDate: new Date(Date.now() - 16 * 60_000),
      });

      expect(response.status).toBe(403);
      expect(((await response.json()) as { message: string }).message).toMatch(
        /^Signature expired: \d{8}T\d{6}Z is now earlier than/,
      );
    });

    it('refuses a signature dated ahead of the server’s clock', async () => {
      const { url } = await start({ now: () => Date.now() - 20 * 60_000 });

      const error = await failure(client(url).messages.create(request));

      expect(error.status).toBe(403);
      expect(error.message).toContain('Signature not yet current');
    });

    it('refuses a session token sent with long-term credentials', async () => {
      const { url } = await start();

      const error = await failure(
        client(url, { awsSessionToken: SESSION_TOKEN }).messages.create(request),
      );

      expect(error.headers?.get('x-amzn-errortype')).toMatch(/^UnrecognizedClientException:/);
    });

    it('refuses an unsigned request as missing its token', async () => {
      const { url } = await start();

      const response = await fetch(`${url}/model/${PROFILE}/invoke`, {
        method: 'POST',
        body: bedrockBody(),
      });

      expect(response.status).toBe(403);
      expect(response.headers.get('x-amzn-errortype')).toMatch(
        /^MissingAuthenticationTokenException:/,
      );
      expect(await response.json()).toEqual({ message: 'Missing Authentication Token' });
    });

    it('answers an unknown path with 404 once signed', async () => {
      const { url } = await start();

      const response = await signedPost(url, '/v1/messages', bedrockBody());

      expect(response.status).toBe(404);
      expect(response.headers.get('x-amzn-errortype')).toMatch(/^UnknownOperationException:/);
    });
  });

  describe('when a Bedrock API key is set', () => {
    it('accepts it as a bearer token and refuses another', async () => {
      const { url } = await start({ apiKey: 'ABSKbedrock-key' });

      await client(url, { apiKey: 'ABSKbedrock-key' }).messages.create(request);
      const error = await failure(client(url, { apiKey: 'ABSKother' }).messages.create(request));

      expect(server?.requests.map((recorded) => recorded.status)).toEqual([200, 403]);
      expect(error).toBeInstanceOf(PermissionDeniedError);
    });
  });

  describe('when the body is not what Bedrock accepts', () => {
    it('refuses `model` in the body as an extraneous key', async () => {
      const { url } = await start();

      const response = await signedPost(
        url,
        `/model/${PROFILE}/invoke`,
        bedrockBody({ model: PROFILE }),
      );

      expect(response.status).toBe(400);
      expect(response.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
      expect(await response.json()).toEqual({
        message:
          'Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.',
      });
    });

    it('refuses `stream` in the body as an extraneous key', async () => {
      const { url } = await start();

      const response = await signedPost(
        url,
        `/model/${PROFILE}/invoke-with-response-stream`,
        bedrockBody({ stream: true }),
      );

      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toContain(
        'extraneous key [stream]',
      );
    });

    it('refuses an anthropic_version that is not Bedrock’s, as a 400 the SDK surfaces', async () => {
      const { url } = await start();

      const error = await failure(
        client(url, { defaultHeaders: { 'anthropic-version': 'vertex-2023-10-16' } })
          .messages.stream(request)
          .finalMessage(),
      );

      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.message).toContain(
        '#/anthropic_version: vertex-2023-10-16 is not a valid enum value',
      );
    });

    it('accepts the documented bedrock-2023-05-31 when the caller sends it', async () => {
      const { url } = await start();

      await client(url, { defaultHeaders: { 'anthropic-version': 'bedrock-2023-05-31' } })
        .messages.stream(request)
        .finalMessage();

      expect((server?.requests[0]?.body as Record<string, unknown>)['anthropic_version']).toBe(
        'bedrock-2023-05-31',
      );
    });

    it('refuses a model the account cannot invoke', async () => {
      const { url } = await start({ models: [PROFILE] });

      const error = await failure(
        client(url).messages.create({ ...request, model: 'anthropic.claude-v2' }),
      );

      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.message).toContain('The provided model identifier is invalid.');
    });
  });

  describe('when a fault is scripted', () => {
    it('throttles with 429 ThrottlingException, then serves the turn it kept', async () => {
      const { url } = await start({
        turns: [[{ type: 'text', text: 'after the throttle' }]],
        faults: { 0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error' } },
      });

      const error = await failure(client(url).messages.stream(request).finalMessage());
      const message = await client(url).messages.stream(request).finalMessage();

      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.status).toBe(429);
      expect(error.headers?.get('x-amzn-errortype')).toMatch(/^ThrottlingException:/);
      expect(error.message).toBe('429 Too many requests, please wait before trying again.');
      expect(message.content).toEqual([{ type: 'text', text: 'after the throttle' }]);
    });

    it('answers a named Bedrock exception with its status', async () => {
      const { url } = await start({
        faults: {
          0: { kind: 'bedrock-error', status: 503, errorType: 'ServiceUnavailableException' },
        },
      });

      const error = await failure(client(url).messages.create(request));

      expect(error).toBeInstanceOf(InternalServerError);
      expect(error.status).toBe(503);
      expect(error.headers?.get('x-amzn-errortype')).toMatch(/^ServiceUnavailableException:/);
    });

    it('sends a throttlingException inside the stream, which the SDK raises by its type', async () => {
      const recorded = await start({
        turns: [[{ type: 'text', text: 'never finished' }]],
        faults: {
          0: {
            kind: 'stream-exception',
            afterEvents: 3,
            exceptionType: 'throttlingException',
            message: 'Too many tokens, please wait before trying again.',
          },
        },
      });

      const error = await failure(client(recorded.url).messages.stream(request).finalMessage());

      expect(error.status).toBeUndefined();
      expect(error.type).toBe('throttlingException');
      expect(error.message).toContain('Too many tokens, please wait before trying again.');
      expect(recorded.requests[0]?.sentEvents).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        'throttlingException',
      ]);
    });

    it('sends a modelStreamErrorException with what the model answered', async () => {
      const { url } = await start({
        faults: {
          0: {
            kind: 'stream-exception',
            afterEvents: 1,
            exceptionType: 'modelStreamErrorException',
            message: 'The model failed mid-stream.',
            originalStatusCode: 529,
            originalMessage: 'Overloaded',
          },
        },
      });

      const error = await failure(client(url).messages.stream(request).finalMessage());

      expect(error.type).toBe('modelStreamErrorException');
      expect(error.message).toContain('The model failed mid-stream.');
    });

    it('carries the Messages API error event in a chunk, as the API’s own', async () => {
      const { url } = await start({
        faults: { 0: { kind: 'error-event', afterEvents: 2, errorType: 'overloaded_error' } },
      });

      const error = await failure(client(url).messages.stream(request).finalMessage());

      expect(error.type).toBe('overloaded_error');
    });

    it('cuts the connection mid-stream', async () => {
      const { url } = await start({ faults: { 0: { kind: 'drop', afterEvents: 2 } } });

      await expect(client(url).messages.stream(request).finalMessage()).rejects.toThrow();
      expect(server?.requests[0]?.sentEvents).toEqual(['message_start', 'ping']);
    });
  });
});
