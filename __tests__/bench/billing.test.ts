/**
 * The billing counter on hand-made request pairs: each case states what the API bills and would
 * fail on a counter that read too much, wrote too much or ignored a rule of prompt caching.
 */
import { describe, expect, it } from 'vitest';
import { BillingCounter, billRequests, weightedInput } from '../../bench/billing.js';

const EPHEMERAL = { type: 'ephemeral' };
/** A text block of about `tokens` tokens (the counter's estimate: characters / 4). */
const text = (tag: string, tokens: number, marked = false) => ({
  type: 'text',
  text: `${tag} `.padEnd(tokens * 4, 'x'),
  ...(marked ? { cache_control: EPHEMERAL } : {}),
});
const tool = (name: string, tokens: number, marked = false) => ({
  name,
  description: 'd'.repeat(tokens * 4),
  input_schema: { type: 'object' },
  ...(marked ? { cache_control: EPHEMERAL } : {}),
});
const user = (...content: object[]) => ({ role: 'user', content });
const assistant = (...content: object[]) => ({ role: 'assistant', content });
const body = (messages: object[], extra: Record<string, unknown> = {}) => ({
  model: 'claude-x',
  tools: [tool('Read', 500), tool('Edit', 700, true)],
  system: [text('system', 400, true)],
  messages,
  ...extra,
});
/** Tokens of the tools and system of `body`: what its system breakpoint caches. */
const FIXED = billRequests([body([])])[0]!.cacheWrite;
const sum = (bill: { cacheRead: number; cacheWrite: number; uncached: number }) =>
  bill.cacheRead + bill.cacheWrite + bill.uncached;

describe('BillingCounter', () => {
  it('writes everything up to the last breakpoint of a first request and sends the rest uncached', () => {
    const first = body([user(text('task', 300, true)), assistant(text('answer', 50))]);
    const [bill] = billRequests([first]);
    expect(bill?.cacheRead).toBe(0);
    // tools + system + task (300 tokens) written, the assistant text after the last breakpoint not.
    expect(FIXED).toBeGreaterThan(1_600);
    expect(bill?.cacheWrite).toBeGreaterThan(FIXED + 300);
    expect(bill?.cacheWrite).toBeLessThan(FIXED + 320);
    expect(bill?.uncached).toBeGreaterThan(45);
    expect(bill?.uncached).toBeLessThan(65);
  });

  it('reads the prefix the previous request cached and writes only what was added', () => {
    const task = user(text('task', 300, true));
    const first = body([task]);
    const second = body([
      user(text('task', 300)),
      assistant(text('a1', 200)),
      user(text('r1', 1000, true)),
    ]);
    const [one, two] = billRequests([first, second]);
    expect(two?.cacheRead).toBe(sum(one!));
    expect(two?.cacheWrite).toBeGreaterThan(1_200);
    expect(two?.cacheWrite).toBeLessThan(1_230);
    expect(two?.uncached).toBe(0);
  });

  it('reads only up to the first byte that changed: an edited old message rewrites all after it', () => {
    const first = body([
      user(text('task', 300)),
      assistant(text('a1', 200)),
      user(text('r1', 1000, true)),
    ]);
    const second = body([
      user(text('task!', 300)),
      assistant(text('a1', 200)),
      user(text('r1', 1000, true)),
    ]);
    const [one, two] = billRequests([first, second]);
    // Only the system breakpoint's prefix (tools + system) is read.
    expect(two?.cacheRead).toBe(FIXED);
    expect(two?.cacheWrite).toBe(sum(one!) - two!.cacheRead);
  });

  it('shares nothing across a change in the tools, the first part of every prefix', () => {
    const messages = [user(text('task', 300, true))];
    const changed = { ...body(messages), tools: [tool('Read', 500), tool('Edit', 701, true)] };
    const [, two] = billRequests([body(messages), changed]);
    expect(two?.cacheRead).toBe(0);
  });

  it('shares nothing with another model', () => {
    const messages = [user(text('task', 300, true))];
    const [, two] = billRequests([body(messages), body(messages, { model: 'claude-y' })]);
    expect(two?.cacheRead).toBe(0);
  });

  it('ignores where cache_control sits when it compares content', () => {
    const first = body([user(text('task', 300, true)), assistant(text('a1', 200, true))]);
    const second = body([
      user(text('task', 300)),
      assistant(text('a1', 200)),
      user(text('r1', 100, true)),
    ]);
    const [one, two] = billRequests([first, second]);
    expect(two?.cacheRead).toBe(sum(one!));
  });

  it('lets a cached prefix expire after five minutes without use, and refreshes it on a read', () => {
    const first = body([user(text('task', 300, true))]);
    const five = 5 * 60_000;
    const [, late] = billRequests([first, first], { times: [0, five + 1] });
    expect(late?.cacheRead).toBe(0);
    const [, inTime] = billRequests([first, first], { times: [0, five - 1] });
    expect(inTime?.cacheRead).toBeGreaterThan(0);
    // Read at 4 min, the entry lives until 9 min: a third request at 8 min still reads it.
    const [, , refreshed] = billRequests([first, first, first], {
      times: [0, 4 * 60_000, 8 * 60_000],
    });
    expect(refreshed?.cacheRead).toBeGreaterThan(0);
  });

  it('keeps a 1-hour breakpoint for an hour and bills its write at the 1-hour rate', () => {
    const marked = {
      type: 'text',
      text: 'x'.repeat(8_000),
      cache_control: { type: 'ephemeral', ttl: '1h' },
    };
    const first = { model: 'm', messages: [user(marked)] };
    const [write, read] = billRequests([first, first], { times: [0, 30 * 60_000] });
    expect(write?.cacheWrite).toBe(0);
    expect(write?.cacheWrite1h).toBeGreaterThan(1_990);
    expect(read?.cacheRead).toBe(write?.cacheWrite1h);
    expect(weightedInput(write!)).toBeCloseTo(2 * write!.cacheWrite1h + write!.uncached);
  });

  it('finds an earlier prefix 20 blocks before a breakpoint, not 21', () => {
    const blocks = (count: number) =>
      Array.from({ length: count }, (_, index) => text(`b${index}`, 10));
    const head = [user(text('task', 300, true))];
    const extended = (count: number) =>
      body([user(text('task', 300), ...blocks(count - 1), text('end', 10, true))]);
    expect(billRequests([body(head), extended(20)])[1]?.cacheRead).toBeGreaterThan(FIXED + 300);
    // 21 blocks after the cached one: the lookback stops at the system breakpoint's prefix.
    const missed = billRequests([body(head), extended(21)])[1];
    expect(missed?.cacheRead).toBe(FIXED);
  });

  it('caches nothing below the minimum cacheable length', () => {
    const small = {
      model: 'm',
      system: [text('system', 500, true)],
      messages: [user(text('hi', 10))],
    };
    const [one, two] = billRequests([small, small]);
    expect(one).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
    expect(two).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
    expect(two?.uncached).toBe(sum(one!));
    const [, cached] = billRequests([small, small], { minCacheableTokens: 400 });
    expect(cached?.cacheRead).toBeGreaterThan(0);
  });

  it('refuses more than four breakpoints, naming the request', () => {
    const five = body([user(text('a', 10, true), text('b', 10, true), text('c', 10, true))]);
    expect(() => new BillingCounter().bill(five, 0, 'turn 3')).toThrow(
      'turn 3: 5 cache_control breakpoints; the API allows at most 4',
    );
  });

  it('refuses a body that is not a Messages request, naming the field', () => {
    const counter = new BillingCounter();
    expect(() => counter.bill({ model: 'm' }, 0)).toThrow('request: messages is not an array');
    expect(() => counter.bill({ messages: [{ role: 'user', content: 3 }] }, 0)).toThrow(
      'messages[0].content is neither a string nor an array',
    );
    const ttl = {
      messages: [
        user({ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '2h' } }),
      ],
    };
    expect(() => counter.bill(ttl, 0)).toThrow('cache_control.ttl is "2h"; expected "5m" or "1h"');
  });

  it('weighs reads at 0.1 and writes at 1.25 of the input price', () => {
    expect(weightedInput({ cacheRead: 1000, cacheWrite: 100, cacheWrite1h: 0, uncached: 10 })).toBe(
      100 + 125 + 10,
    );
  });
});
