/**
 * The cost targets of context management, held by a test so a change that costs more fails here
 * and not only in the benchmark (bench/cost.ts, docs/BENCHMARKS.md): ci-agent's requests on the
 * scripted sessions, billed as the API bills them, against Claude Code's recorded bill.
 */
import { describe, expect, it } from 'vitest';
import { sumBilled, weightedInput } from '../../bench/billing.js';
import type { BilledInput } from '../../bench/billing.js';
import {
  COMPACTING,
  THIRTY_TURNS,
  WORKING,
  costRatio,
  readingSession,
  recordedReference,
  runOurs,
} from '../../bench/cost.js';
import type { CostSession, SessionBill } from '../../bench/cost.js';

async function ratio(session: CostSession) {
  const ours = await runOurs(session);
  const theirs = recordedReference(session.name);
  return { ours, theirs, ...costRatio(ours, theirs) };
}

describe('the cost of a session against Claude Code', () => {
  it('bills at most 0.4x Claude Code weighted input on the 30-turn session, every edit made', async () => {
    const { ours, weighted } = await ratio(THIRTY_TURNS);
    expect(ours.edits).toEqual({ done: 10, expected: 10 });
    expect(weighted).toBeLessThanOrEqual(0.4);
  }, 60_000);

  it('stays at its measured cost on the 200-turn reading session (0.93x; the 0.5x target is out of reach)', async () => {
    const { ours, weighted } = await ratio(COMPACTING);
    expect(ours.edits).toEqual({ done: 40, expected: 40 });
    // A guard against regressions at the level reached, with 2 % for small prompt changes.
    expect(weighted).toBeLessThanOrEqual(0.95);
  }, 120_000);

  it('holds history edits that cost more than they save on a session of 600-line reads', async () => {
    // Before the move was weighed against the turns left until the limit: 1.17x (0.84x after).
    const { ours, weighted } = await ratio(readingSession(200, 600));
    expect(ours.edits).toEqual({ done: 40, expected: 40 });
    expect(weighted).toBeLessThanOrEqual(0.86);
  }, 120_000);

  it('completes the 200-turn working session at most 0.5x over the requests Claude Code sent before it stopped', async () => {
    const { ours, theirs, weighted, wholeRun } = await ratio(WORKING);
    // The session has to compact: what the script returns is more than the 200k window.
    expect(ours.requests).toBe(200);
    expect(ours.edits).toEqual({ done: 40, expected: 40 });
    expect(theirs.stopped).toBe('Prompt is too long');
    expect(weighted).toBeLessThanOrEqual(0.5);
    // Our whole run against its partial one (0.65x when measured), with 3 % to spare.
    expect(wholeRun).toBeLessThanOrEqual(0.67);
  }, 120_000);
});

describe('costRatio', () => {
  const bill = (weighted: number[], stopped?: string): SessionBill => ({
    requests: weighted.length,
    summaries: 0,
    edits: { done: 0, expected: 0 },
    billed: weighted.map((uncached): BilledInput => ({
      cacheRead: 0,
      cacheWrite: 0,
      cacheWrite1h: 0,
      uncached,
    })),
    ...(stopped !== undefined && { stopped }),
  });

  it('compares whole runs when the reference finished', () => {
    const result = costRatio(bill([1, 1, 2]), bill([4, 4, 8]));
    expect(result).toEqual({ weighted: 0.25, input: 0.25 });
  });

  it('compares the requests both sent when the reference stopped, and our whole run as a bound', () => {
    const ours = bill([1, 1, 10, 10]);
    const theirs = bill([4, 4], 'Prompt is too long');
    expect(weightedInput(sumBilled(ours.billed))).toBe(22);
    expect(costRatio(ours, theirs)).toEqual({ weighted: 0.25, input: 0.25, wholeRun: 22 / 8 });
  });
});
