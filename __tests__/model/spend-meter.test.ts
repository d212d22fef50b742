/**
 * The spend meter with the real SDK against the loopback replay server: what each attempt is
 * counted at (the server's own record of the usage it sent), how max_tokens is lowered, when a
 * request is refused or waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../../src/model/model-client.js';
import { costUSD } from '../../src/model/pricing.js';
import { withRetries } from '../../src/model/retrying-client.js';
import { BudgetExceededError, MIN_OUTPUT_TOKENS, SpendMeter } from '../../src/model/spend-meter.js';
import type { Usage } from '../../src/model/types.js';
import type {
  RecordedRequest,
  ReplayServer,
  ReplayServerOptions,
} from '../../testkit/replay-server.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import { ManualClock } from '../helpers/manual-clock.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODEL = 'claude-sonnet-5-5'; // $2 in, $10 out, $2.50 cache write per MTok
const usage = (input: number, output: number): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

async function serve(options: ReplayServerOptions): Promise<ModelClient> {
  server = await startReplayServer(options);
  return createAnthropicClient({ apiKey: 'k', baseURL: server.url });
}

/** A server whose first answer stops mid-stream until `pause` is released: a request in flight. */
async function serveFirstInFlight(first: string, ...later: string[]) {
  const pause = createPause();
  const inner = await serve({
    turns: [
      {
        content: [{ type: 'text', text: first }],
        pauseAfter: { event: 'content_block_delta', handle: pause },
      },
      ...later.map((text) => [{ type: 'text' as const, text }]),
    ],
  });
  return { inner, pause };
}

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: MODEL,
  system: 'you are a test',
  messages: [{ role: 'user', content: 'say hello' }],
  tools: [],
  maxTokens: 32_000,
  ...extra,
});

async function drain(client: ModelClient, sent = request()): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of client.stream(sent)) events.push(event);
  return events;
}

/** The events an iterator has left. */
async function restOf(iterator: AsyncIterator<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next())
    events.push(next.value);
  return events;
}

/** What the server says it reported, priced as the meter prices. */
function serverCost(requests: readonly RecordedRequest[]): number {
  return requests.reduce(
    (total, recorded) => total + (recorded.usage ? costUSD(MODEL, recorded.usage) : 0),
    0,
  );
}

const sentMaxTokens = (index: number) =>
  (server?.requests[index]?.body as { max_tokens: number }).max_tokens;

describe('SpendMeter', () => {
  describe('when an attempt fails after the server reported usage', () => {
    it('counts it (an overloaded_error event mid-stream) as a failed attempt, and the retry under its part', async () => {
      const inner = await serve({
        turns: [
          { content: [{ type: 'text', text: 'hello there, all of you' }], usage: usage(2_000, 40) },
        ],
        faults: { 0: { kind: 'error-event', afterEvents: 5, errorType: 'overloaded_error' } },
        textChunkSize: 4,
      });
      const meter = new SpendMeter();
      const client = withRetries(meter.client(inner, { role: 'turn' }), {
        clock: new ManualClock(),
      });
      const events = await drain(client);
      expect(events.at(-1)?.type).toBe('message-complete');
      expect(server?.requests).toHaveLength(2);
      // The server sent message_start's usage (2,000 in) and some text before the failure.
      expect(server?.requests[0]?.usage?.input_tokens).toBe(2_000);
      const [failed, main] = meter.rows();
      expect(failed).toMatchObject({ kind: 'failed', requests: 1 });
      expect(failed?.usage.input_tokens).toBe(2_000);
      // The streamed text counts as output: more than the 1 token message_start said.
      expect(failed?.usage.output_tokens).toBeGreaterThan(
        server?.requests[0]?.usage?.output_tokens ?? 0,
      );
      expect(main).toMatchObject({ kind: 'main', requests: 1, usage: usage(2_000, 40) });
      expect(meter.spentUsd).toBeGreaterThan(serverCost(server?.requests ?? []));
      expect(meter.summary().modelUsage[MODEL]?.inputTokens).toBe(4_000);
    });

    it('counts an attempt whose connection was reset at no less than the server sent', async () => {
      const inner = await serve({
        turns: [[{ type: 'text', text: 'hello there, all of you' }]],
        faults: { 0: { kind: 'drop', afterEvents: 5 } },
        textChunkSize: 4,
      });
      const meter = new SpendMeter();
      const client = withRetries(meter.client(inner, { role: 'turn' }), {
        clock: new ManualClock(),
      });
      await drain(client);
      const [failed] = meter.rows();
      expect(failed).toMatchObject({ kind: 'failed', requests: 1 });
      // Whatever of message_start reached the client, the input counted covers what was sent.
      const sent = server?.requests[0]?.usage;
      expect(sent?.input_tokens).toBeGreaterThan(0);
      expect(failed?.usage.input_tokens).toBeGreaterThanOrEqual(sent?.input_tokens ?? Infinity);
      expect(meter.spentUsd).toBeGreaterThanOrEqual(serverCost(server?.requests ?? []));
    });

    it('counts a 529 answered before any stream as an attempt that cost nothing', async () => {
      const inner = await serve({
        turns: [[{ type: 'text', text: 'ok' }]],
        faults: { 0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' } },
      });
      const meter = new SpendMeter();
      const client = withRetries(meter.client(inner, { role: 'side-query' }), {
        clock: new ManualClock(),
      });
      await drain(client);
      expect(meter.rows().map((row) => [row.kind, row.requests, row.costUsd > 0])).toEqual([
        ['failed', 1, false],
        ['side-query', 1, true],
      ]);
    });
  });

  describe('with a budget', () => {
    it.each([
      { limitUsd: 0.05, capped: true, what: 'lowers max_tokens to what is left, and says so' },
      { limitUsd: 5, capped: false, what: 'leaves max_tokens alone when the budget covers it' },
    ])('$what', async ({ limitUsd, capped }) => {
      const inner = await serve({ turns: [[{ type: 'text', text: 'hi' }]] });
      const meter = new SpendMeter({ limitUsd });
      const events = await drain(meter.client(inner, { role: 'turn' }));
      const maxTokens = sentMaxTokens(0);
      const start = events.find((event) => event.type === 'message-start');
      expect(start?.type === 'message-start' && meter.wasCapped(start.messageId)).toBe(capped);
      if (!capped) {
        expect(maxTokens).toBe(32_000);
        return;
      }
      expect(maxTokens).toBeLessThan(32_000);
      expect(maxTokens).toBeGreaterThanOrEqual(MIN_OUTPUT_TOKENS);
      // Its whole answer at the output price, and its input, fit in the budget.
      expect(maxTokens * 10e-6).toBeLessThan(limitUsd);
    });

    it.each([
      {
        what: 'refuses a request the budget left cannot cover, and sends nothing',
        limitUsd: 0.005,
        spentInput: 0,
        part: { role: 'compaction' as const, agent: { type: 'Explore', id: 'a1' } },
        said: /^Reached the budget: \$0\.0000 spent, the limit is \$0\.005; the next request \(compaction of subagent Explore a1's conversation\) was not sent/,
      },
      {
        what: 'refuses once what was spent leaves too little, though the request alone would fit',
        limitUsd: 1,
        spentInput: 495_000, // $0.99
        part: { role: 'turn' as const },
        said: /^Reached the budget: \$0\.9900 spent, the limit is \$1; the next request \(the main agent\) was not sent/,
      },
    ])('$what', async ({ limitUsd, spentInput, part, said }) => {
      const inner = await serve({ turns: [[{ type: 'text', text: 'never' }]] });
      const meter = new SpendMeter({ limitUsd });
      if (spentInput > 0) meter.add({ role: 'turn' }, MODEL, usage(spentInput, 0));
      const spent = meter.spentUsd;
      const sending = drain(meter.client(inner, part));
      await expect(sending).rejects.toThrow(BudgetExceededError);
      await expect(sending).rejects.toThrow(said);
      expect(server?.requests).toHaveLength(0);
      expect(meter.spentUsd).toBe(spent);
    });

    it('reserves every search a request may make', async () => {
      const inner = await serve({ turns: [[{ type: 'text', text: 'hi' }]] });
      const web = {
        type: 'web_search_20250305' as const,
        name: 'web_search' as const,
        max_uses: 8,
      };
      const plain = new SpendMeter({ limitUsd: 0.1 });
      await drain(plain.client(inner, { role: 'turn' }));
      const searching = new SpendMeter({ limitUsd: 0.1 });
      await drain(searching.client(inner, { role: 'turn' }), request({ serverTools: [web] }));
      // Eight searches at $0.01 leave $0.08 less for the answer: 8,000 tokens at $10 per MTok.
      const difference = sentMaxTokens(0) - sentMaxTokens(1);
      // (and its spec's few bytes of input a few tokens more)
      expect(difference).toBeGreaterThanOrEqual(8_000);
      expect(difference).toBeLessThan(8_050);
    });

    it('estimates later requests at the densest one the API reported', async () => {
      const inner = await serve({
        turns: [
          { content: [{ type: 'text', text: 'hi' }], usage: usage(50_000, 1) },
          [{ type: 'text', text: 'hi' }],
        ],
      });
      const meter = new SpendMeter({ limitUsd: 0.2 });
      const client = meter.client(inner, { role: 'turn' });
      await drain(client);
      const spentAfterFirst = meter.spentUsd;
      await drain(client);
      // The same request again, now estimated at one token a byte rather than two bytes a token.
      const left = 0.2 - spentAfterFirst;
      expect(sentMaxTokens(1)).toBeLessThan(Math.floor(left / 10e-6) - 100);
    });

    it('makes a request wait for one in flight whose reservation it needs, then sends it', async () => {
      const { inner, pause } = await serveFirstInFlight('first answer', 'second answer');
      // The first reserves $0.32 of answer; what is left would not cover 1,024 tokens more.
      const meter = new SpendMeter({ limitUsd: 0.33, waitNoticeMs: 10 });
      const client = meter.client(inner, { role: 'turn' });
      const first = drain(client);
      await pause.reached;
      const second = client.stream(request({ maxTokens: 2_000 }))[Symbol.asyncIterator]();
      // Its first event says it is held; nothing has been sent for it yet.
      expect((await second.next()).value).toEqual({ type: 'waiting-for-budget' });
      expect(server?.requests).toHaveLength(1);
      pause.release();
      await first;
      const rest = await restOf(second);
      expect(rest.at(-1)?.type).toBe('message-complete');
      expect(server?.requests).toHaveLength(2);
      expect(sentMaxTokens(1)).toBe(2_000);
      expect(meter.spentUsd).toBeLessThanOrEqual(0.33);
    });

    it('says it is waiting, so that a stall watchdog above does not take the wait for a stall', async () => {
      const { inner, pause } = await serveFirstInFlight('first answer', 'second answer');
      const meter = new SpendMeter({ limitUsd: 0.33, waitNoticeMs: 40 });
      const retries: string[] = [];
      const watched = withRetries(meter.client(inner, { role: 'turn' }), {
        stallTimeoutMs: 150,
        onRetry: (notice) => retries.push(notice.error.message),
      });
      const first = drain(meter.client(inner, { role: 'turn' }));
      await pause.reached;
      const stream = watched.stream(request({ maxTokens: 2_000 }))[Symbol.asyncIterator]();
      const events: ModelStreamEvent[] = [];
      // Held past the watchdog's 150 ms: five notices 40 ms apart.
      while (events.filter((event) => event.type === 'waiting-for-budget').length < 5)
        events.push((await stream.next()).value as ModelStreamEvent);
      pause.release();
      await first;
      events.push(...(await restOf(stream)));
      expect(retries).toEqual([]);
      expect(events.filter((event) => event.type === 'waiting-for-budget').length).toBeGreaterThan(
        3,
      );
      expect(events.at(-1)?.type).toBe('message-complete');
      expect(server?.requests).toHaveLength(2);
    });

    it('stops waiting when the request is aborted', async () => {
      const { inner, pause } = await serveFirstInFlight('first');
      const meter = new SpendMeter({ limitUsd: 0.33 });
      const client = meter.client(inner, { role: 'turn' });
      const first = drain(client);
      await pause.reached;
      const controller = new AbortController();
      const second = drain(client, request({ signal: controller.signal }));
      controller.abort(new Error('the run was cancelled'));
      await expect(second).rejects.toThrow('the run was cancelled');
      pause.release();
      await first;
      expect(server?.requests).toHaveLength(1);
    });
  });

  it('without a budget counts everything and refuses nothing', async () => {
    const inner = await serve({
      turns: [{ content: [{ type: 'text', text: 'hi' }], usage: usage(5_000_000, 1) }],
    });
    const meter = new SpendMeter();
    await drain(meter.client(inner, { role: 'turn' }));
    expect(sentMaxTokens(0)).toBe(32_000);
    expect(meter.spentUsd).toBeCloseTo(costUSD(MODEL, usage(5_000_000, 1)), 10);
  });
});
