/**
 * The retrying client around the real Anthropic adapter, against the loopback Messages API with
 * scripted faults. Backoff waits and the stall watchdog run on a clock the test drives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { ModelError, ModelStreamEvent } from '../../src/model/model-client.js';
import type { ReplayServer, ReplayServerOptions } from '../../testkit/replay-server.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import type { RetryingClientOptions, RetryNotice } from '../../src/model/retrying-client.js';
import { withRetries } from '../../src/model/retrying-client.js';
import { ManualClock } from '../helpers/manual-clock.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answer = [{ type: 'text' as const, text: 'Hello.' }];
const toolTurn = [
  { type: 'tool_use' as const, id: 'toolu_1', name: 'Read', input: { id: 'a' } },
  { type: 'text' as const, text: 'and some text after it' },
];

async function setUp(
  serverOptions: Partial<ReplayServerOptions>,
  options: Omit<RetryingClientOptions, 'clock' | 'onRetry'> = {},
) {
  // One delta per block: message_start, ping, then start/delta/stop per block (block 0: 2–4).
  server = await startReplayServer({
    jsonChunkSize: 1_000,
    textChunkSize: 1_000,
    ...serverOptions,
  });
  const clock = new ManualClock();
  const notices: RetryNotice[] = [];
  const client = withRetries(createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }), {
    maxRetries: 4,
    ...options,
    clock,
    onRetry: (notice) => notices.push(notice),
  });
  return { client, clock, notices, server };
}

async function collect(
  stream: AsyncIterable<ModelStreamEvent>,
  onEvent: (event: ModelStreamEvent) => void = () => undefined,
): Promise<{ events: ModelStreamEvent[]; error?: ModelError }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      onEvent(event);
    }
    return { events };
  } catch (error) {
    return { events, error: error as ModelError };
  }
}

const request = (signal?: AbortSignal) => ({
  model: 'claude-sonnet-5-5',
  system: '',
  messages: [{ role: 'user' as const, content: 'hi' }],
  tools: [],
  maxTokens: 100,
  ...(signal ? { signal } : {}),
});

const completed = (events: ModelStreamEvent[]) =>
  events.filter((event) => event.type === 'message-complete');

describe('withRetries', () => {
  describe('when the API is overloaded for the first requests', () => {
    it('retries with growing waits, reports each retry, and delivers the answer', async () => {
      const overloaded = {
        kind: 'http-error',
        status: 529,
        errorType: 'overloaded_error',
      } as const;
      const { client, clock, notices } = await setUp({
        turns: [answer],
        faults: { 0: overloaded, 1: overloaded, 2: overloaded },
      });
      const { events, error } = await collect(client.stream(request()));
      expect(error).toBeUndefined();
      expect(completed(events)).toHaveLength(1);
      expect(server?.requests.map((recorded) => recorded.status)).toEqual([529, 529, 529, 200]);
      // base 500 ms doubling, shortened by an eighth at random = 0.5
      expect(clock.sleeps).toEqual([438, 875, 1_750]);
      expect(
        notices.map(({ attempt, maxRetries, delayMs }) => [attempt, maxRetries, delayMs]),
      ).toEqual([
        [1, 4, 438],
        [2, 4, 875],
        [3, 4, 1_750],
      ]);
      expect(notices[0]?.error).toMatchObject({ kind: 'overloaded', status: 529 });
    });
  });

  it('waits what retry-after says after a 429', async () => {
    const { client, clock, notices } = await setUp({
      turns: [answer],
      faults: {
        0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error', retryAfter: '7' },
      },
    });
    const { error } = await collect(client.stream(request()));
    expect(error).toBeUndefined();
    expect(clock.sleeps).toEqual([7_000]);
    expect(notices[0]?.error).toMatchObject({ kind: 'rate-limit', status: 429 });
  });

  it('retries a 500', async () => {
    const { client } = await setUp({
      turns: [answer],
      faults: { 0: { kind: 'http-error', status: 500, errorType: 'api_error' } },
    });
    const { events, error } = await collect(client.stream(request()));
    expect(error).toBeUndefined();
    expect(completed(events)).toHaveLength(1);
    expect(server?.requests).toHaveLength(2);
  });

  it('gives up after the last retry with the error and the count', async () => {
    const fault = { kind: 'http-error', status: 503, errorType: 'api_error' } as const;
    const { client, notices } = await setUp(
      { turns: [answer], faults: { 0: fault, 1: fault, 2: fault } },
      { maxRetries: 2 },
    );
    const { error } = await collect(client.stream(request()));
    expect(error).toMatchObject({ kind: 'server', status: 503, retryable: false });
    expect(error?.message).toMatch(/Gave up after 2 retries\.$/);
    expect(notices).toHaveLength(2);
    expect(server?.requests).toHaveLength(3);
  });

  describe('when the error cannot be fixed by retrying', () => {
    it.each([
      ['a rejected key (401)', { apiKey: 'other-key' }, 'authentication'],
      [
        'a bad request (400)',
        { faults: { 0: { kind: 'http-error', status: 400, errorType: 'invalid_request_error' } } },
        'invalid-request',
      ],
      [
        'an unknown model (404)',
        { faults: { 0: { kind: 'http-error', status: 404, errorType: 'not_found_error' } } },
        'invalid-request',
      ],
    ] as const)('stops at once on %s', async (_name, serverOptions, kind) => {
      const { client, clock, notices } = await setUp({ turns: [answer], ...serverOptions });
      const { error } = await collect(client.stream(request()));
      expect(error).toMatchObject({ kind, retryable: false });
      expect(server?.requests).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
      expect(notices).toEqual([]);
    });
  });

  describe('when the stream is cut', () => {
    it('asks again when it breaks inside a tool_use block, before the block is complete', async () => {
      const { client, notices } = await setUp({
        turns: [toolTurn],
        faults: { 0: { kind: 'drop', afterEvents: 4, how: 'end' } },
      });
      const { events, error } = await collect(client.stream(request()));
      expect(error).toBeUndefined();
      expect(server?.requests[0]?.sentEvents).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
      ]);
      expect(notices[0]?.error.kind).toBe('stream-dropped');
      expect(events.filter((event) => event.type === 'message-start')).toHaveLength(2);
      const toolUses = events.filter(
        (event) => event.type === 'block-complete' && event.block.type === 'tool_use',
      );
      expect(toolUses).toHaveLength(1);
      expect(completed(events)).toHaveLength(1);
    });

    it('does not ask again once a tool_use block was passed on, and throws the retryable error', async () => {
      const { client, notices } = await setUp({
        turns: [toolTurn],
        faults: { 0: { kind: 'drop', afterEvents: 6, how: 'end' } },
      });
      const { events, error } = await collect(client.stream(request()));
      expect(error).toMatchObject({ kind: 'stream-dropped', retryable: true });
      expect(server?.requests).toHaveLength(1);
      expect(notices).toEqual([]);
      expect(events.map((event) => event.type)).toContain('block-complete');
    });

    it('asks again after the connection is reset', async () => {
      const { client, notices } = await setUp({
        turns: [toolTurn],
        faults: { 0: { kind: 'drop', afterEvents: 3, how: 'reset' } },
      });
      const { events, error } = await collect(client.stream(request()));
      expect(error).toBeUndefined();
      expect(notices).toHaveLength(1);
      expect(server?.requests).toHaveLength(2);
      expect(completed(events)).toHaveLength(1);
    });

    it('asks again after an overloaded error event inside the stream', async () => {
      const { client, notices } = await setUp({
        turns: [answer],
        faults: { 0: { kind: 'error-event', afterEvents: 3, errorType: 'overloaded_error' } },
      });
      const { events, error } = await collect(client.stream(request()));
      expect(error).toBeUndefined();
      expect(notices[0]?.error.kind).toBe('overloaded');
      expect(completed(events)).toHaveLength(1);
    });
  });

  describe('when the stream stalls', () => {
    it('aborts the silent request and asks again', async () => {
      const pause = createPause();
      const { client, clock, notices } = await setUp(
        {
          turns: [
            { content: answer, pauseAfter: { event: 'message_start', handle: pause } },
            answer,
          ],
        },
        { stallTimeoutMs: 30_000 },
      );
      const running = collect(client.stream(request()));
      await pause.reached;
      await clock.stall();
      const { events, error } = await running;
      expect(error).toBeUndefined();
      expect(clock.timerPeriods.every((ms) => ms === 30_000)).toBe(true);
      expect(notices[0]?.error.message).toBe(
        'The model response stream stalled: no event for 30 s.',
      );
      expect(server?.requests).toHaveLength(2);
      expect(completed(events)).toHaveLength(1);
      expect(pause.isReleased).toBe(false);
    });
  });

  describe('when the run is aborted', () => {
    it('stops waiting for the next retry at once', async () => {
      const { client, clock } = await setUp({
        turns: [answer],
        faults: { 0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' } },
      });
      clock.holdSleeps = true;
      const controller = new AbortController();
      const running = collect(client.stream(request(controller.signal)));
      while (clock.sleeps.length === 0) await new Promise((resolve) => setImmediate(resolve));
      controller.abort(new Error('received SIGTERM'));
      const { error } = await running;
      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(server?.requests).toHaveLength(1);
    });

    it('stops a stream that is still coming without retrying', async () => {
      const pause = createPause();
      const { client, notices } = await setUp({
        turns: [{ content: answer, pauseAfter: { event: 'message_start', handle: pause } }],
      });
      const controller = new AbortController();
      const running = collect(client.stream(request(controller.signal)));
      await pause.reached;
      controller.abort(new Error('received SIGINT'));
      const { error } = await running;
      expect(error).toMatchObject({ kind: 'aborted' });
      expect(notices).toEqual([]);
      expect(server?.requests).toHaveLength(1);
    });
  });

  it('does not retry at all with maxRetries 0', async () => {
    const { client } = await setUp(
      {
        turns: [answer],
        faults: { 0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' } },
      },
      { maxRetries: 0 },
    );
    const { error } = await collect(client.stream(request()));
    expect(error?.message).toMatch(/Gave up after 0 retries\.$/);
    expect(server?.requests).toHaveLength(1);
  });
});
