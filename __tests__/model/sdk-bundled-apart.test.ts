/**
 * An SDK bundled apart from the engine (the Bedrock and Vertex AI SDKs in dist/: provider-sdks.ts)
 * throws its own copy of the Anthropic SDK's error classes, which `instanceof` against the
 * engine's copy does not see. The CommonJS build of @anthropic-ai/sdk is such a copy for real: a
 * client made from it, against the loopback server, fails with classes the engine's ES module
 * copy does not know, and the error conversion sorts them only through `ErrorContext.sdk`.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type { BaseAnthropic } from '@anthropic-ai/sdk/client';
import type { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { createStreamingClient } from '../../src/model/anthropic-client.js';
import { ANTHROPIC_API_KEY_ERRORS } from '../../src/model/anthropic-errors.js';
import type { ErrorContext } from '../../src/model/anthropic-errors.js';
import { APIError } from '../../src/model/anthropic-sdk.js';
import type { ModelRequest } from '../../src/model/model-client.js';
import { ModelError } from '../../src/model/model-client.js';
import { DEFAULT_MODEL } from '../../src/model/pricing.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../testkit/replay-server.js';

const require = createRequire(import.meta.url);
const { BaseAnthropic: OtherBase } = require('@anthropic-ai/sdk/client') as {
  BaseAnthropic: typeof BaseAnthropic;
};
const { Messages: OtherMessages } = require('@anthropic-ai/sdk/resources/messages/messages') as {
  Messages: typeof Messages;
};

/** The slim client as anthropic-sdk.ts makes it, from the other copy of the SDK. */
class OtherClient extends OtherBase {
  messages: Messages = new OtherMessages(this);
}

const API_KEY = 'sk-ant-test-key';
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(options: ReplayServerOptions, errors: ErrorContext): Promise<ModelError> {
  server = await startReplayServer({ apiKey: API_KEY, ...options });
  const sdk = new OtherClient({ apiKey: API_KEY, baseURL: server.url, maxRetries: 0 });
  const client = createStreamingClient(sdk, { caching: false, urlOf: () => 'the URL', errors });
  const request: ModelRequest = {
    model: DEFAULT_MODEL,
    system: '',
    messages: [{ role: 'user', content: 'Run the tests.' }],
    tools: [],
    maxTokens: 1024,
  };
  try {
    for await (const _event of client.stream(request));
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the stream to fail');
}

const WITH_SDK: ErrorContext = { ...ANTHROPIC_API_KEY_ERRORS, sdk: OtherBase };

describe('an SDK with its own copy of the error classes', () => {
  it('is a copy the engine does not recognise by itself', async () => {
    const rateLimited = { 0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error' } };
    const error = await failure(
      { faults: rateLimited } as ReplayServerOptions,
      ANTHROPIC_API_KEY_ERRORS,
    );

    expect(error.cause).not.toBeInstanceOf(APIError);
    expect(error.cause).toBeInstanceOf(OtherBase.APIError);
    expect(error).toMatchObject({ kind: 'unknown', retryable: false });
  });

  it('has its API errors sorted through the context: a 429 is a retryable rate limit', async () => {
    const error = await failure(
      {
        faults: {
          0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error', retryAfter: '3' },
        },
      },
      WITH_SDK,
    );

    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryable: true,
      retryAfterMs: 3000,
    });
  });

  it('has a 401 named as the rejected key, not retried', async () => {
    const error = await failure(
      { faults: { 0: { kind: 'http-error', status: 401, errorType: 'authentication_error' } } },
      WITH_SDK,
    );

    expect(error).toMatchObject({ kind: 'authentication', retryable: false });
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });

  it('has an unreachable host reported as a retryable connection error', async () => {
    const closed = await startReplayServer();
    await closed.close();
    const sdk = new OtherClient({ apiKey: API_KEY, baseURL: closed.url, maxRetries: 0 });
    const client = createStreamingClient(sdk, {
      caching: false,
      urlOf: () => closed.url,
      errors: WITH_SDK,
    });
    const stream = client.stream({
      model: DEFAULT_MODEL,
      system: '',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      maxTokens: 16,
    });

    const error = await (async () => {
      try {
        for await (const _ of stream);
      } catch (caught) {
        return caught;
      }
      throw new Error('expected the stream to fail');
    })();

    expect(error).toMatchObject({ kind: 'connection', retryable: true });
  });
});
