/**
 * The done-criteria of context management, measured on the requests the loopback server received:
 * a 200-turn session reading many large files stays under its context budget, and the tokens sent
 * per request stop growing with the turn count.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_SUMMARY, runReadingSession } from '../../../bench/context-session.js';
import type { ReadingSession } from '../../../bench/context-session.js';
import type { Message } from '../../../src/model/types.js';
import { billRequests } from '../../../bench/billing.js';
import { firstChange } from '../../../src/agent/context/context-manager.js';

const WINDOW = 60_000;
const BUDGET = WINDOW * 0.8;
/** So small that the notes of 200 shortened results alone outgrow it: compaction must happen. */
const SMALL_WINDOW = 20_000;
let session: ReadingSession;
let small: ReadingSession;

const reading = (contextWindow: number) =>
  runReadingSession({
    turns: 200,
    files: 30,
    linesPerFile: 300,
    editEvery: 5,
    contextManagement: { contextWindow },
  });

beforeAll(async () => {
  session = await reading(WINDOW);
  small = await reading(SMALL_WINDOW);
}, 120_000);

const turnRequests = () => session.requests.filter((request) => !request.summary);
/** The replay server's own estimate: four characters per token. */
const tokens = (bytes: number) => bytes / 4;
const mean = (values: number[]) =>
  values.reduce((total, value) => total + value, 0) / values.length;
const messagesOf = (body: unknown) => (body as { messages: Message[] }).messages;
const withoutCacheControl = (value: unknown) =>
  JSON.stringify(value).replaceAll(/,"cache_control":\{"type":"ephemeral"\}/g, '');

describe('runAgent with context management over 200 turns', () => {
  it('finishes the session with every edit on disk', () => {
    expect(session.result).toMatchObject({ subtype: 'success', numTurns: 201 });
    expect(session.editsOnDisk).toBe(40);
  });

  it('keeps every request under the context budget', () => {
    const largest = Math.max(...turnRequests().map((request) => tokens(request.bytes)));
    expect(largest).toBeLessThan(BUDGET);
    // Without it, the last request alone would carry all 160 file reads (about 13 kB each).
    expect(largest).toBeGreaterThan(BUDGET / 2);
  });

  it('sends requests whose size stops growing with the turn count', () => {
    const sizes = turnRequests().map((request) => tokens(request.bytes));
    const middle = mean(sizes.slice(50, 100));
    const last = mean(sizes.slice(150, 200));
    // Linear growth would make the later mean 2.3 times the earlier one.
    expect(last / middle).toBeLessThan(1.3);
  });

  it('stays under the compaction threshold by shortening old results: it never compacts', () => {
    // Holding four turns whole, it compacted; shortening all but the newest near the limit keeps
    // each request under half the window.
    expect(session.events.filter((event) => event.type === 'compact-boundary')).toEqual([]);
    const largest = Math.max(...turnRequests().map((request) => tokens(request.bytes)));
    expect(largest).toBeLessThan(WINDOW * 0.55);
  });

  it('compacts only when shortening cannot keep it under, and keeps the task and the summary', () => {
    expect(small.result).toMatchObject({ subtype: 'success', numTurns: 201 });
    expect(small.editsOnDisk).toBe(40);
    const boundaries = small.events.filter((event) => event.type === 'compact-boundary');
    // Without shortening up to the newest turn it compacted 79 times.
    expect(boundaries.length).toBeGreaterThanOrEqual(1);
    expect(boundaries.length).toBeLessThan(10);
    for (const boundary of boundaries) {
      expect(boundary).toMatchObject({ trigger: 'auto' });
      expect(boundary.type === 'compact-boundary' && boundary.preTokens).toBeGreaterThanOrEqual(
        SMALL_WINDOW * 0.8,
      );
    }
    const last = messagesOf(small.requests.filter((request) => !request.summary).at(-1)?.body);
    expect(JSON.stringify(last[0])).toContain('Read every source file');
    expect(JSON.stringify(last[0])).toContain(SESSION_SUMMARY);
  });

  it('replaces stale reads and shortens old results, but sends the recent turns whole', () => {
    const sent = JSON.stringify(turnRequests()[120]?.body);
    expect(sent).toContain('Earlier read of');
    expect(sent).toContain('was changed later by Edit');
    expect(sent).toContain('Old tool result shortened');
    const last = messagesOf(turnRequests().at(-1)?.body);
    const recent = JSON.stringify(last.slice(-4));
    expect(recent).toMatch(/F\d+L299: lorem/);
  });

  it('keeps the previous request as the prefix of the next on most turns, for the prompt cache', () => {
    const requests = turnRequests();
    let extended = 0;
    for (let index = 1; index < requests.length; index++) {
      const previous = withoutCacheControl(messagesOf(requests[index - 1]?.body)).slice(0, -1);
      if (withoutCacheControl(messagesOf(requests[index]?.body)).startsWith(previous)) extended++;
    }
    // The boundary moves every 4 turns, and up to the newest turn whenever the request reaches
    // half the window (about every eight reads here).
    expect(extended / (requests.length - 1)).toBeGreaterThan(0.6);
  });

  it('reads the unchanged part of a rewritten request from the cache, not only the system prompt', () => {
    const requests = turnRequests();
    const billed = billRequests(requests.map((request) => request.body));
    const fixed = billed[0]!.cacheWrite;
    const plain = (index: number) =>
      JSON.parse(withoutCacheControl(messagesOf(requests[index]?.body))) as Message[];
    const blocksOf = (messages: Message[]) =>
      messages.reduce(
        (total, message) =>
          total + (typeof message.content === 'string' ? 1 : message.content.length),
        0,
      );
    const found: boolean[] = [];
    for (let index = 1; index < requests.length; index++) {
      const next = plain(index);
      const change = firstChange(plain(index - 1), next);
      // Only changes further back than the lookback from the newest block (20 blocks), and
      // after the first turn (before which no request has cached anything).
      if (change === undefined || change.message <= 2) continue;
      if (blocksOf(next) - blocksOf(next.slice(0, change.message)) <= 20) continue;
      found.push(billed[index]!.cacheRead > fixed + 1_000);
    }
    expect(found.length).toBeGreaterThan(10);
    // Not every time: a move right after another finds no request that cached its new prefix.
    expect(found.filter(Boolean).length / found.length).toBeGreaterThan(0.9);
  });

  it('never sends more than four cache breakpoints', () => {
    for (const request of [...session.requests, ...small.requests]) {
      const count = JSON.stringify(request.body).match(/"cache_control"/g)?.length ?? 0;
      expect(count).toBeLessThanOrEqual(4);
    }
  });
});
