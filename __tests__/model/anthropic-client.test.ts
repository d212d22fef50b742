import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicOptionsFromEnv,
  createAnthropicClient,
} from '../../src/model/anthropic-client.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../../src/model/model-client.js';
import { ModelError } from '../../src/model/model-client.js';
import { DEFAULT_MODEL } from '../../src/model/pricing.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../testkit/replay-server.js';

const API_KEY = 'sk-ant-test-key';
let server: ReplayServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(
  options: ReplayServerOptions,
): Promise<{ client: ModelClient; server: ReplayServer }> {
  server = await startReplayServer({ apiKey: API_KEY, ...options });
  return { client: createAnthropicClient({ apiKey: API_KEY, baseURL: server.url }), server };
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: DEFAULT_MODEL,
    system: 'You are a careful CI agent.',
    messages: [{ role: 'user', content: 'Run the tests.' }],
    tools: [],
    maxTokens: 1024,
    ...overrides,
  };
}

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function failure(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelError> {
  try {
    await collect(stream);
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the stream to fail');
}

function completed(events: ModelStreamEvent[]) {
  const last = events.at(-1);
  if (last?.type !== 'message-complete')
    throw new Error(`last event is ${last?.type}, not message-complete`);
  return last.message;
}

function ofType<T extends ModelStreamEvent['type']>(events: ModelStreamEvent[], type: T) {
  return events.filter(
    (event): event is Extract<ModelStreamEvent, { type: T }> => event.type === type,
  );
}

describe('createAnthropicClient', () => {
  describe('when the model answers with text', () => {
    it('streams text deltas and completes the message with the whole text', async () => {
      const text = 'All 42 tests passed; nothing to fix in this pull request.';
      const { client } = await clientFor({ turns: [[{ type: 'text', text }]], textChunkSize: 8 });

      const events = await collect(client.stream(request()));

      expect(events[0]).toMatchObject({
        type: 'message-start',
        messageId: 'msg_replay_0',
        model: DEFAULT_MODEL,
      });
      const deltas = ofType(events, 'text-delta');
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.map((delta) => delta.text).join('')).toBe(text);
      expect(ofType(events, 'block-complete')).toEqual([
        { type: 'block-complete', index: 0, block: { type: 'text', text } },
      ]);
      expect(completed(events)).toMatchObject({
        content: [{ type: 'text', text }],
        stopReason: 'end_turn',
      });
    });

    it('sends the request in the Messages API shape with streaming on', async () => {
      const { client, server } = await clientFor({ turns: [[{ type: 'text', text: 'ok' }]] });
      const tool = {
        name: 'Read',
        description: 'Read a file.',
        input_schema: { properties: { path: { type: 'string' } } },
      };

      await collect(client.stream(request({ tools: [tool] })));

      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]).toMatchObject({
        method: 'POST',
        path: '/v1/messages',
        status: 200,
        body: {
          model: DEFAULT_MODEL,
          max_tokens: 1024,
          // Prompt caching puts breakpoints on the system prompt and the last tool.
          system: [
            {
              type: 'text',
              text: 'You are a careful CI agent.',
              cache_control: { type: 'ephemeral' },
            },
          ],
          messages: [{ role: 'user', content: 'Run the tests.' }],
          tools: [
            {
              name: 'Read',
              description: 'Read a file.',
              input_schema: { type: 'object', ...tool.input_schema },
              cache_control: { type: 'ephemeral' },
            },
          ],
          stream: true,
        },
      });
    });

    it('leaves out an empty system prompt and an empty tool list', async () => {
      const { client, server } = await clientFor({ turns: [[{ type: 'text', text: 'ok' }]] });

      await collect(client.stream(request({ system: '' })));

      expect(server.requests[0]?.body).not.toHaveProperty('system');
      expect(server.requests[0]?.body).not.toHaveProperty('tools');
    });

    it('sends the default headers it was given', async () => {
      server = await startReplayServer({ turns: [[{ type: 'text', text: 'ok' }]] });
      const client = createAnthropicClient({
        apiKey: API_KEY,
        baseURL: server.url,
        defaultHeaders: { 'x-run-id': '77' },
      });

      await collect(client.stream(request()));

      expect(server.requests[0]?.headers['x-run-id']).toBe('77');
    });
  });

  describe('when the model calls tools', () => {
    it('reassembles a tool input split across many input_json_delta chunks', async () => {
      const input = {
        command: 'npm test -- --run __tests__/model',
        description: 'Run the model tests',
        timeout: 120000,
      };
      const { client } = await clientFor({
        turns: [[{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input }]],
        jsonChunkSize: 5,
      });

      const events = await collect(client.stream(request()));

      const deltas = ofType(events, 'tool-input-delta');
      expect(deltas.length).toBeGreaterThanOrEqual(JSON.stringify(input).length / 5);
      expect(deltas.map((delta) => delta.partialJson).join('')).toBe(JSON.stringify(input));
      expect(ofType(events, 'tool-use-start')).toEqual([
        { type: 'tool-use-start', index: 0, id: 'toolu_1', name: 'Bash' },
      ]);
      expect(ofType(events, 'block-complete')).toEqual([
        {
          type: 'block-complete',
          index: 0,
          block: { type: 'tool_use', id: 'toolu_1', name: 'Bash', input },
        },
      ]);
      expect(completed(events).stopReason).toBe('tool_use');
    });

    it('completes two tool_use blocks in order, each with its own input', async () => {
      const { client } = await clientFor({
        turns: [
          [
            { type: 'text', text: 'Reading both files.' },
            { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { file_path: '/repo/a.ts' } },
            {
              type: 'tool_use',
              id: 'toolu_b',
              name: 'Read',
              input: { file_path: '/repo/b.ts', offset: 10 },
            },
          ],
        ],
      });

      const events = await collect(client.stream(request()));

      const blocks = ofType(events, 'block-complete').map((event) => [event.index, event.block]);
      expect(blocks).toEqual([
        [0, { type: 'text', text: 'Reading both files.' }],
        [1, { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { file_path: '/repo/a.ts' } }],
        [
          2,
          {
            type: 'tool_use',
            id: 'toolu_b',
            name: 'Read',
            input: { file_path: '/repo/b.ts', offset: 10 },
          },
        ],
      ]);
      expect(completed(events).content).toEqual(blocks.map(([, block]) => block));
    });

    it('keeps an empty object as the input of a tool called without arguments', async () => {
      const { client } = await clientFor({
        turns: [[{ type: 'tool_use', id: 'toolu_1', name: 'TodoRead', rawInput: '' }]],
      });

      const events = await collect(client.stream(request()));

      expect(ofType(events, 'block-complete')[0]).toEqual({
        type: 'block-complete',
        index: 0,
        block: { type: 'tool_use', id: 'toolu_1', name: 'TodoRead', input: {} },
      });
    });

    it('reports malformed tool input JSON as inputError with an empty input', async () => {
      const { client } = await clientFor({
        turns: [
          [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', rawInput: '{"command": "ls -la' }],
        ],
      });

      const events = await collect(client.stream(request()));

      const [complete] = ofType(events, 'block-complete');
      expect(complete?.block).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} });
      expect(complete?.inputError).toMatch(/not valid JSON/);
      expect(complete?.inputError).toContain('{"command": "ls -la');
    });

    it('emits block-complete for a tool_use before the server sends the rest of the message', async () => {
      const pause = createPause();
      const { client, server } = await clientFor({
        turns: [
          {
            content: [
              { type: 'tool_use', id: 'toolu_first', name: 'Bash', input: { command: 'npm test' } },
              {
                type: 'tool_use',
                id: 'toolu_second',
                name: 'Read',
                input: { file_path: '/repo/a.ts' },
              },
            ],
            pauseAfter: { blockIndex: 0, event: 'content_block_stop', handle: pause },
          },
        ],
      });
      const seenWhileHeld: string[] = [];

      const events: ModelStreamEvent[] = [];
      for await (const event of client.stream(request())) {
        events.push(event);
        if (event.type === 'block-complete' && event.index === 0) {
          seenWhileHeld.push(...(server.requests[0]?.sentEvents ?? []));
          expect(pause.isReleased).toBe(false);
          // Only the consumer can release the server, so a late block-complete would hang here.
          pause.release();
        }
      }

      expect(seenWhileHeld.at(-1)).toBe('content_block_stop');
      expect(seenWhileHeld).not.toContain('message_stop');
      expect(ofType(events, 'block-complete').map((event) => event.index)).toEqual([0, 1]);
    }, 5_000);
  });

  describe('when the model thinks first', () => {
    it('completes a thinking block with its signature', async () => {
      const { client } = await clientFor({
        turns: [
          [
            {
              type: 'thinking',
              thinking: 'The failing test imports a renamed module.',
              signature: 'sig-abc123',
            },
            { type: 'text', text: 'Fixing the import.' },
          ],
        ],
        textChunkSize: 6,
      });

      const events = await collect(client.stream(request()));

      expect(completed(events).content).toEqual([
        {
          type: 'thinking',
          thinking: 'The failing test imports a renamed module.',
          signature: 'sig-abc123',
        },
        { type: 'text', text: 'Fixing the import.' },
      ]);
      expect(ofType(events, 'text-delta').map((delta) => delta.index)).not.toContain(0);
    });

    it('passes a redacted thinking block through unchanged', async () => {
      const { client } = await clientFor({
        turns: [[{ type: 'redacted_thinking', data: 'opaque-bytes' }]],
      });

      const events = await collect(client.stream(request()));

      expect(completed(events).content).toEqual([
        { type: 'redacted_thinking', data: 'opaque-bytes' },
      ]);
    });
  });

  describe('when usage is reported', () => {
    it('takes input and cache tokens from message_start and the final output tokens from message_delta', async () => {
      const usage = {
        input_tokens: 1200,
        output_tokens: 345,
        cache_creation_input_tokens: 50,
        cache_read_input_tokens: 900,
      };
      const { client } = await clientFor({
        turns: [{ content: [{ type: 'text', text: 'done' }], usage }],
      });

      const events = await collect(client.stream(request()));

      expect(ofType(events, 'message-start')[0]?.usage).toEqual({ ...usage, output_tokens: 1 });
      expect(completed(events).usage).toEqual(usage);
    });

    it('lets input and cache counts repeated in message_delta replace the earlier ones', async () => {
      const { client } = await clientFor({
        turns: [
          {
            content: [{ type: 'text', text: 'done' }],
            usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 0 },
            messageDeltaUsage: { input_tokens: 15, cache_read_input_tokens: 7 },
          },
        ],
      });

      const events = await collect(client.stream(request()));

      expect(completed(events).usage).toEqual({
        input_tokens: 15,
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 7,
      });
    });
  });

  describe('when the API answers with an error status', () => {
    it('maps 401 to a non-retryable error that names ANTHROPIC_API_KEY', async () => {
      server = await startReplayServer({ apiKey: API_KEY });
      const client = createAnthropicClient({ apiKey: 'sk-ant-wrong', baseURL: server.url });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'authentication', status: 401, retryable: false });
      expect(error.message).toContain('ANTHROPIC_API_KEY');
      expect(error.requestId).toBe('req_replay_0');
    });

    it('maps 403 to a non-retryable permission error that names ANTHROPIC_API_KEY', async () => {
      const { client } = await clientFor({
        faults: {
          0: {
            kind: 'http-error',
            status: 403,
            errorType: 'permission_error',
            message: 'no access',
          },
        },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'permission', status: 403, retryable: false });
      expect(error.message).toContain('ANTHROPIC_API_KEY');
      expect(error.message).toContain('no access');
    });

    it('maps 529 overloaded to a retryable error and does not retry inside the SDK', async () => {
      const { client, server } = await clientFor({
        faults: {
          0: {
            kind: 'http-error',
            status: 529,
            errorType: 'overloaded_error',
            message: 'Overloaded',
          },
        },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({
        kind: 'overloaded',
        status: 529,
        retryable: true,
        errorType: 'overloaded_error',
      });
      expect(server.requests).toHaveLength(1);
    });

    it('maps 429 to a retryable error with the retry-after delay in milliseconds', async () => {
      const { client } = await clientFor({
        faults: {
          0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error', retryAfter: '7' },
        },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({
        kind: 'rate-limit',
        status: 429,
        retryable: true,
        retryAfterMs: 7000,
      });
    });

    it('maps a 500 api_error to a retryable server error', async () => {
      const { client } = await clientFor({
        faults: { 0: { kind: 'http-error', status: 500, errorType: 'api_error' } },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
      expect(error.retryAfterMs).toBeUndefined();
    });

    it('maps a 400 invalid request to a non-retryable error carrying the API message', async () => {
      const { client } = await clientFor({
        faults: {
          0: {
            kind: 'http-error',
            status: 400,
            errorType: 'invalid_request_error',
            message: 'prompt is too long',
          },
        },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'invalid-request', status: 400, retryable: false });
      expect(error.message).toContain('prompt is too long');
    });
  });

  describe('when the stream breaks', () => {
    it('turns a connection reset mid-stream into a retryable error', async () => {
      const { client } = await clientFor({
        turns: [[{ type: 'text', text: 'a long answer that never arrives in full' }]],
        faults: { 0: { kind: 'drop', afterEvents: 4 } },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'stream-dropped', retryable: true });
    });

    it('treats a response that ends before message_stop as dropped, not as a short answer', async () => {
      const { client } = await clientFor({
        turns: [[{ type: 'text', text: 'a long answer that never arrives in full' }]],
        faults: { 0: { kind: 'drop', afterEvents: 4, how: 'end' } },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'stream-dropped', retryable: true });
    });

    it('maps an overloaded error event inside the stream to a retryable error', async () => {
      const { client } = await clientFor({
        turns: [[{ type: 'text', text: 'partial' }]],
        faults: {
          0: {
            kind: 'error-event',
            afterEvents: 3,
            errorType: 'overloaded_error',
            message: 'Overloaded',
          },
        },
      });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({
        kind: 'overloaded',
        retryable: true,
        errorType: 'overloaded_error',
      });
    });

    it('reports an unreachable server as a retryable connection error', async () => {
      const closed = await startReplayServer();
      await closed.close();
      const client = createAnthropicClient({ apiKey: API_KEY, baseURL: closed.url });

      const error = await failure(client.stream(request()));

      expect(error).toMatchObject({ kind: 'connection', retryable: true });
    });
  });

  describe('when the signal aborts', () => {
    it('stops a stream in progress with a non-retryable aborted error', async () => {
      const pause = createPause();
      const { client } = await clientFor({
        turns: [
          {
            content: [
              { type: 'text', text: 'first part' },
              { type: 'text', text: 'second part' },
            ],
            pauseAfter: { blockIndex: 0, event: 'content_block_stop', handle: pause },
          },
        ],
      });
      const controller = new AbortController();
      const seen: string[] = [];

      const error = await failure(
        (async function* () {
          for await (const event of client.stream(request({ signal: controller.signal }))) {
            seen.push(event.type);
            if (event.type === 'block-complete') controller.abort();
            yield event;
          }
        })(),
      );

      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(seen).not.toContain('message-complete');
    });

    it('fails at once when the signal is already aborted', async () => {
      const { client, server } = await clientFor({
        turns: [[{ type: 'text', text: 'never sent' }]],
      });
      const controller = new AbortController();
      controller.abort();

      const error = await failure(client.stream(request({ signal: controller.signal })));

      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when the API key is empty', () => {
    it('refuses to build a client and names ANTHROPIC_API_KEY', () => {
      expect(() => createAnthropicClient({ apiKey: '  ' })).toThrow(/ANTHROPIC_API_KEY/);
    });
  });
});

describe('anthropicOptionsFromEnv', () => {
  it.each([
    [{ ANTHROPIC_API_KEY: 'sk-1' }, { apiKey: 'sk-1' }],
    [
      { ANTHROPIC_API_KEY: ' sk-1 ', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9000' },
      { apiKey: 'sk-1', baseURL: 'http://127.0.0.1:9000' },
    ],
    [{ ANTHROPIC_API_KEY: 'sk-1', ANTHROPIC_BASE_URL: '' }, { apiKey: 'sk-1' }],
    [{}, { apiKey: '' }],
  ])('reads %j as %j', (env, expected) => {
    expect(anthropicOptionsFromEnv(env)).toEqual(expected);
  });
});
