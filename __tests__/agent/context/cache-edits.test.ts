/**
 * The cache-aware decision on its own (cache-edits.ts), then through the context manager: the
 * boundary moves when the saving pays for the cache write, holds when it does not, moves when
 * the cache has gone cold and when the request nears the limit.
 */
import { describe, expect, it } from 'vitest';
import {
  CACHE_TTL_MS,
  decideBoundary,
  remainingTurns,
  turnsToLimit,
} from '../../../src/agent/context/cache-edits.js';
import { createContextManager } from '../../../src/agent/context/context-manager.js';
import type { ContextSettings } from '../../../src/agent/context/context-settings.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import { big, call, conversation, withPrepareMessages } from './conversation.js';

// A held request of 40k tokens that extends the previous one; moving shortens it to 10k, all of
// it written again. Moving costs 1.25 × 10k − (0.1 × 38k + 1.25 × 2k) ≈ 6.2k more now and saves
// 0.1 × 30k = 3k on each later turn: it pays from three turns on.
const held = { tokens: 40_000, cachedTokens: 38_000 };
const moved = { tokens: 10_000, cachedTokens: 0 };
const base = { held, moved, sincePreviousMs: 1_000, limitTokens: 100_000 };

describe('decideBoundary', () => {
  it('moves when the tokens saved over the turns still expected outweigh the cache write', () => {
    expect(decideBoundary({ ...base, turns: 3 })).toBe('pays');
    expect(decideBoundary({ ...base, turns: 20 })).toBe('pays');
  });

  it('holds when too few turns are expected to repay the write', () => {
    expect(decideBoundary({ ...base, turns: 2 })).toBe('hold');
    // Twenty turns so far, but max-turns leaves one.
    expect(decideBoundary({ ...base, turns: 20, maxTurns: 21 })).toBe('hold');
  });

  it('holds when moving saves little', () => {
    const small = { tokens: 39_000, cachedTokens: 0 };
    expect(decideBoundary({ ...base, moved: small, turns: 30 })).toBe('hold');
  });

  it('moves when the cache has gone cold (five minutes) or there was no request yet', () => {
    const late = { ...base, turns: 1 };
    expect(decideBoundary({ ...late, sincePreviousMs: CACHE_TTL_MS - 1 })).toBe('hold');
    expect(decideBoundary({ ...late, sincePreviousMs: CACHE_TTL_MS })).toBe('cold');
    const { sincePreviousMs: _, ...first } = late;
    expect(decideBoundary(first)).toBe('cold');
  });

  it('moves near the limit, whatever it costs', () => {
    expect(decideBoundary({ ...base, turns: 1, limitTokens: 40_001 })).toBe('hold');
    expect(decideBoundary({ ...base, turns: 1, limitTokens: 40_000 })).toBe('near-limit');
  });

  it('holds when the request reaches the limit before the saving repays the write', () => {
    // Twenty turns would repay it (three do), but at 30k tokens a turn the held request reaches
    // the limit (100k) in two, where the boundary moves up to the newest turn anyway.
    expect(decideBoundary({ ...base, turns: 20, growthPerTurn: 30_000 })).toBe('hold');
    // Growing slowly, the limit is far and the move pays, as without a growth estimate.
    expect(decideBoundary({ ...base, turns: 20, growthPerTurn: 1_000 })).toBe('pays');
    expect(decideBoundary({ ...base, turns: 20, growthPerTurn: 0 })).toBe('pays');
  });

  it('counts the turns to the limit at the rate the request grows, at least one', () => {
    expect(turnsToLimit(40_000, 100_000, 20_000)).toBe(3);
    expect(turnsToLimit(40_000, 100_000, 25_000)).toBe(3);
    expect(turnsToLimit(99_000, 100_000, 20_000)).toBe(1);
    expect(turnsToLimit(120_000, 100_000, 20_000)).toBe(1);
    expect(turnsToLimit(40_000, 100_000, 0)).toBe(Infinity);
    expect(turnsToLimit(40_000, 100_000)).toBe(Infinity);
  });

  it('expects as many turns again as have run, capped by max-turns, at least one', () => {
    expect(remainingTurns(12)).toBe(12);
    expect(remainingTurns(12, 15)).toBe(3);
    expect(remainingTurns(0)).toBe(1);
    expect(remainingTurns(15, 15)).toBe(1);
  });
});

describe('createContextManager with a prompt cache to keep', () => {
  const settings: Partial<ContextSettings> = {
    keepRecentTurns: 1,
    boundaryStep: 1,
    shortenAboveChars: 100,
    contextWindow: 1e6,
  };
  const bash = (index: number, lines = 40) => [
    call(`b${index}`, 'Bash', { command: `step ${index}` }, big(`out${index}`, lines)),
  ];
  function manager(
    options: { maxTurns?: number; window?: number; settings?: Partial<ContextSettings> } = {},
  ) {
    let clock = 0;
    const context = withPrepareMessages(
      createContextManager({
        model: 'claude-sonnet-5-5',
        // Never asked: no request here reaches the compaction threshold.
        modelClient: createAnthropicClient({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' }),
        cwd: '/repo',
        systemPrompt: 'you are a test',
        tools: [],
        events: () => undefined,
        settings: {
          ...settings,
          ...options.settings,
          ...(options.window ? { contextWindow: options.window } : {}),
        },
        ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
        now: () => clock,
      }),
    );
    return { context, advance: (ms: number) => (clock += ms) };
  }
  const shortened = (sent: unknown) =>
    JSON.stringify(sent).split('Old tool result shortened').length - 1;

  it('holds a small saving while the cache is warm, so the previous request stays the prefix', async () => {
    const { context, advance } = manager({ maxTurns: 3 });
    const first = await context.prepareMessages(conversation(bash(0)));
    advance(1_000);
    // Turn 0's result (about 1 kB) came of age; one turn is left to repay rewriting the rest.
    const second = await context.prepareMessages(conversation(bash(0), bash(1)));
    expect(shortened(second)).toBe(0);
    expect(JSON.stringify(second).startsWith(JSON.stringify(first).slice(0, -1))).toBe(true);
  });

  it('shortens once the saving pays over the turns expected', async () => {
    const { context, advance } = manager();
    const turns = Array.from({ length: 12 }, (_, index) => bash(index, 400));
    await context.prepareMessages(conversation(...turns.slice(0, 11)));
    advance(1_000);
    const sent = await context.prepareMessages(conversation(...turns));
    expect(shortened(sent)).toBe(11);
  });

  it('holds while the request nears the limit faster than a move repays its write', async () => {
    // Twelve turns of about 2k tokens each, three kept whole, moved in steps of three. In a
    // window of 1M tokens the move at turn 12 pays over the turns expected; in one of 60k (a limit
    // of 30k) the held request reaches the limit within a few turns, where everything older is
    // shortened anyway: moving now would only write the kept turns again.
    const turns = Array.from({ length: 12 }, (_, index) => bash(index, 400));
    const run = async (window: number) => {
      const { context, advance } = manager({
        window,
        settings: { keepRecentTurns: 3, boundaryStep: 3 },
      });
      const counts: number[] = [];
      for (let count = 1; count <= turns.length; count++) {
        counts.push(
          shortened(await context.prepareMessages(conversation(...turns.slice(0, count)))),
        );
        advance(1_000);
      }
      return counts;
    };
    expect((await run(1e6)).slice(-2)).toEqual([6, 9]);
    expect((await run(60_000)).slice(-2)).toEqual([6, 6]);
  });

  it('shortens when the cache has gone cold, however few turns are left', async () => {
    const { context, advance } = manager({ maxTurns: 3 });
    await context.prepareMessages(conversation(bash(0)));
    advance(CACHE_TTL_MS + 1);
    expect(shortened(await context.prepareMessages(conversation(bash(0), bash(1))))).toBe(1);
  });

  it('shortens near the limit, however few turns are left', async () => {
    // The held request is about 2100 characters (530 tokens): past half of a 1000-token window,
    // short of the compaction threshold (800).
    const { context, advance } = manager({ maxTurns: 3, window: 1_000 });
    await context.prepareMessages(conversation(bash(0, 80)));
    advance(1_000);
    expect(shortened(await context.prepareMessages(conversation(bash(0, 80), bash(1, 10))))).toBe(
      1,
    );
  });
});
