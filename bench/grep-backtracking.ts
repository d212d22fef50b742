/**
 * The built-in Grep engine (no ripgrep) against a pattern that backtracks, and its cost on an
 * ordinary search.
 *
 * 1. `(a|aa)+$` over a file with one line of 44 a's and a `!` (about 10^9 backtracking steps):
 *    the wall time to a result with a 1 s timeout, the time from an abort to the rejection, and
 *    the longest gap between 5 ms timer ticks meanwhile (the event loop's worst stall). For
 *    scale, how long the same match holds a thread when run where it was before (the main
 *    thread) on shorter lines.
 * 2. Three ordinary searches over this repository's src/, median of interleaved runs after a
 *    warm-up: (a) rg directly, (b) the Grep tool with the built-in engine, and, with
 *    CI_AGENT_BENCH_BASE_SRC=<src dir of an older tree>, (c) that tree's built-in engine (e.g.
 *    the one that matched on the main thread: `git archive <rev> src | tar -x -C /tmp/base`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { grepTool, buildQuery } from '../src/tools/builtin/grep.js';
import { builtinSearchEngine } from '../src/tools/builtin/search/builtin-search.js';
import { findRipgrep } from '../src/tools/builtin/search/find-ripgrep.js';
import { ripgrepArgs } from '../src/tools/builtin/search/ripgrep.js';
import type { SearchQuery } from '../src/tools/builtin/search/types.js';
import { FileStateCache } from '../src/tools/file-state.js';
import type { ToolContext } from '../src/tools/tool.js';
import { runRipgrepDirectly } from './grep.js';
import { fmt, median, printTable, withStallWatch } from './stats.js';

const RUNS = 7;
const SRC = fileURLToPath(new URL('../src', import.meta.url));

type GrepTool = typeof grepTool;

function query(root: string, pattern: string): SearchQuery {
  return {
    pattern,
    target: root,
    targetIsFile: false,
    mode: 'content',
    globs: [],
    type: undefined,
    ignoreCase: false,
    lineNumbers: true,
    before: 0,
    after: 0,
    multiline: false,
  };
}

async function backtrackingRows(): Promise<Array<Record<string, string>>> {
  const root = mkdtempSync(join(tmpdir(), 'ci-agent-bench-redos-'));
  try {
    writeFileSync(join(root, 'banner.txt'), `${'a'.repeat(44)}!\n`);
    writeFileSync(join(root, 'plain.txt'), 'plain\n');
    const engine = builtinSearchEngine({});
    // Warm-up: the worker's source is bundled on first use when running from source.
    await engine(query(root, 'plain'), {
      signal: new AbortController().signal,
      timeoutMs: 10_000,
      onLine: () => true,
    });
    const stopped = await withStallWatch(() =>
      engine(query(root, '(a|aa)+$'), {
        signal: new AbortController().signal,
        timeoutMs: 1_000,
        onLine: () => true,
      }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 200);
    const aborted = await withStallWatch(() =>
      engine(query(root, '(a|aa)+$'), {
        signal: controller.signal,
        timeoutMs: 60_000,
        onLine: () => true,
      }),
    );
    const rows = [
      {
        case: 'timeout 1 s, 44 a',
        'to result ms': stopped.ms,
        'longest stall ms': stopped.longestGap,
      },
      {
        case: 'abort at 200 ms, 44 a',
        'to result ms': aborted.ms,
        'longest stall ms': aborted.longestGap,
      },
    ].map((row) => ({
      ...row,
      'to result ms': fmt(row['to result ms'], 0),
      'longest stall ms': fmt(row['longest stall ms'], 1),
    }));
    const regex = /(a|aa)+$/u;
    // V8 interprets a regular expression's first runs before compiling it: warm it up first.
    for (let run = 0; run < 3; run++) regex.test(`${'a'.repeat(20)}!`);
    for (const length of [26, 28, 30]) {
      const started = performance.now();
      regex.test(`${'a'.repeat(length)}!`);
      const ms = performance.now() - started;
      rows.push({
        case: `the match on the main thread, ${length} a`,
        'to result ms': fmt(ms, 0),
        'longest stall ms': fmt(ms, 0),
      });
    }
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function runGrep(tool: GrepTool, input: Record<string, unknown>, context: ToolContext) {
  const generator = tool.call(input, context);
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  const block = tool.mapToolResultToToolResultBlockParam(step.value.data, 'bench');
  return typeof block.content === 'string' ? block.content : '';
}

async function ordinaryRows(rg: string): Promise<Array<Record<string, string>>> {
  const context: ToolContext = {
    projectDir: SRC,
    workspaceRoots: [SRC],
    shell: { cwd: SRC },
    fileState: new FileStateCache(),
    signal: new AbortController().signal,
    toolUseId: 'bench',
    env: { PATH: process.env.PATH ?? '' },
    ripgrepPath: null,
  };
  const base = process.env.CI_AGENT_BENCH_BASE_SRC;
  const baseTool = base
    ? (
        (await import(pathToFileURL(join(resolve(base), 'tools/builtin/grep.ts')).href)) as {
          grepTool: GrepTool;
        }
      ).grepTool
    : undefined;
  const inputs: Array<Record<string, unknown>> = [
    { pattern: 'function\\s+\\w+', output_mode: 'content', head_limit: 0 },
    { pattern: 'TODO|FIXME' },
    { pattern: 'import .* from', output_mode: 'count' },
  ];
  const rows: Array<Record<string, string>> = [];
  for (const input of inputs) {
    const parsed = grepTool.inputSchema.parse(input) as Parameters<typeof buildQuery>[0];
    const args = ripgrepArgs(buildQuery(parsed, SRC, false));
    const variants: Array<[string, () => Promise<unknown>]> = [
      ['(a) rg directly', () => runRipgrepDirectly(rg, args, SRC)],
      ['(b) Grep, built-in (worker)', () => runGrep(grepTool, input, context)],
    ];
    if (baseTool)
      variants.push(['(c) Grep, built-in (base tree)', () => runGrep(baseTool, input, context)]);
    for (const [, action] of variants) await action();
    const samples = variants.map(() => [] as number[]);
    for (let run = 0; run < RUNS; run++) {
      for (const [index, [, action]] of variants.entries()) {
        const started = performance.now();
        await action();
        samples[index]!.push(performance.now() - started);
      }
    }
    const withRipgrep = await runGrep(grepTool, input, { ...context, ripgrepPath: rg });
    if (withRipgrep !== (await runGrep(grepTool, input, context))) {
      console.log(`  warning: the engines disagree on ${JSON.stringify(input)}`);
    }
    const direct = median(samples[0]!);
    for (const [index, [variant]] of variants.entries()) {
      const ms = median(samples[index]!);
      rows.push({
        pattern: String(input.pattern),
        variant,
        'median ms': fmt(ms, 1),
        'vs (a)': `${fmt(ms / direct, 2)}×`,
      });
    }
  }
  return rows;
}

export async function runGrepBacktrackingBench(): Promise<void> {
  printTable('Built-in Grep on (a|aa)+$ (stopped in a worker thread)', await backtrackingRows());
  const rg = findRipgrep(process.env.PATH);
  if (!rg) {
    console.log('bench/grep-backtracking: no rg on PATH; ordinary searches not compared.');
    return;
  }
  printTable(
    `Ordinary searches over src/, median of ${RUNS} interleaved runs after a warm-up`,
    await ordinaryRows(rg),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runGrepBacktrackingBench();
