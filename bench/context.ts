/**
 * Context management: bytes sent per turn with and without it.
 *
 * The 200-turn reading session of context-session.ts (30 files of 300 lines, about 13 kB each,
 * read in turn; every fifth turn edits the file read the turn before) runs three times through the
 * real loop, Read/Edit tools and SDK against the replay server: with context management off (the
 * whole conversation every turn), on with the model's 200k window (stale reads replaced, old
 * results shortened; never near the limit), and on with a 60k window (compaction as well).
 * Measured from the request bodies the server received. Targets: the request at turn 200 at
 * least 10× smaller than without context management; with the 60k window, no request above the
 * compaction threshold (48k tokens at four characters per token).
 */
import type { ContextSettings } from '../src/agent/context/context-settings.js';
import { runReadingSession } from './context-session.js';
import { fmt, printTable } from './stats.js';

const TURNS = 200;

interface Row {
  run: string;
  summaries: number;
  totalMB: number;
  meanKB: number;
  at: number[];
  maxTokens: number;
  /** Mean bytes per turn past the part the previous request also began with: what a cache misses. */
  uncachedKB: number;
  wallMs: number;
}

async function measure(
  run: string,
  contextManagement: Partial<ContextSettings> | false,
): Promise<Row> {
  const started = performance.now();
  const session = await runReadingSession({
    turns: TURNS,
    files: 30,
    linesPerFile: 300,
    editEvery: 5,
    contextManagement,
  });
  const wallMs = performance.now() - started;
  if (session.result.subtype !== 'success')
    throw new Error(`${run}: ${session.result.errors.join('; ')}`);
  const sent = session.requests.filter((request) => !request.summary);
  const turns = sent.map((request) => request.bytes);
  const bodies = sent.map((request) => withoutBreakpoints(request.body));
  let uncached = bodies[0]?.length ?? 0;
  for (let index = 1; index < bodies.length; index++) {
    uncached +=
      (bodies[index] as string).length -
      commonPrefix(bodies[index - 1] as string, bodies[index] as string);
  }
  const total = turns.reduce((sum, bytes) => sum + bytes, 0);
  return {
    run,
    summaries: session.requests.length - turns.length,
    totalMB: total / 1e6,
    meanKB: total / turns.length / 1e3,
    at: [1, 50, 100, 150, 200].map((turn) => (turns[turn - 1] ?? 0) / 1e3),
    maxTokens: Math.max(...turns) / 4,
    uncachedKB: uncached / turns.length / 1e3,
    wallMs,
  };
}

export async function runContextBench(): Promise<void> {
  const rows = [
    await measure('off (whole conversation)', false),
    await measure('on, 200k window', {}),
    await measure('on, 60k window (compacts)', { contextWindow: 60_000 }),
  ];
  printTable(
    `Context management: ${TURNS} turns reading 30 files of ~13 kB; kB = request body size`,
    rows.map((row) => ({
      run: row.run,
      'turn 1 kB': fmt(row.at[0] ?? 0, 1),
      'turn 50 kB': fmt(row.at[1] ?? 0, 0),
      'turn 100 kB': fmt(row.at[2] ?? 0, 0),
      'turn 150 kB': fmt(row.at[3] ?? 0, 0),
      'turn 200 kB': fmt(row.at[4] ?? 0, 0),
      'mean kB/turn': fmt(row.meanKB, 0),
      'uncached kB/turn': fmt(row.uncachedKB, 1),
      'total MB': fmt(row.totalMB, 1),
      'max tokens': fmt(row.maxTokens, 0),
      summaries: row.summaries,
      'wall ms': fmt(row.wallMs, 0),
    })),
  );
  const [off, on, compacting] = rows as [Row, Row, Row];
  console.log(
    `turn 200: off/on = ${fmt((off.at[4] ?? 0) / (on.at[4] ?? 1), 1)}× (target ≥ 10×); ` +
      `total bytes off/on = ${fmt(off.totalMB / on.totalMB, 1)}×; ` +
      `60k window: largest request ${fmt(compacting.maxTokens, 0)} tokens (threshold 48000)`,
  );
}

/** The messages as sent, without the breakpoints (they move every turn, the content does not). */
function withoutBreakpoints(body: unknown): string {
  const messages = (body as { messages: unknown }).messages;
  return JSON.stringify(messages).replaceAll(',"cache_control":{"type":"ephemeral"}', '');
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

if (import.meta.url === `file://${process.argv[1]}`) await runContextBench();
