/**
 * The Glob tool against a pattern that backtracks, and its cost on ordinary patterns.
 *
 * 1. `*a*a*a*a*a*a*a*a*a*b` over a file with an 80-character name of a's: the wall time to a result
 *    with a 1 s limit, the time from an abort to the rejection, and the longest gap between 5 ms
 *    timer ticks meanwhile (the event loop's worst stall); with a base tree, that tree's Glob on
 *    six stars over that name and one of 60 a's, for scale.
 * 2. 200 Globs of ordinary patterns over this repository (node_modules is a symbolic link, not
 *    followed), interleaved in rounds after a warm-up: the Glob tool, and, with
 *    CI_AGENT_BENCH_BASE_SRC=<src dir of an older tree>, that tree's Glob tool (e.g. the one that
 *    matched on the main thread: `git archive <rev> src | tar -x -C /tmp/base`, and a symbolic
 *    link /tmp/base/node_modules to this tree's, so that its imports resolve).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defineGlobTool, globTool } from '../src/tools/builtin/glob.js';
import { FileStateCache } from '../src/tools/file-state.js';
import type { ToolContext } from '../src/tools/tool.js';
import { fmt, median, printTable, withStallWatch } from './stats.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PATTERNS = ['**/*.ts', 'src/**/*.{ts,json}', '**/*.md', '__tests__/**/glob*', '*.json'];
const ROUNDS = 40;

type GlobTool = typeof globTool;

function contextAt(root: string, signal = new AbortController().signal): ToolContext {
  return {
    projectDir: root,
    workspaceRoots: [root],
    shell: { cwd: root },
    fileState: new FileStateCache(),
    signal,
    toolUseId: 'bench',
    env: {},
    ripgrepPath: null,
  };
}

async function runGlob(tool: GlobTool, pattern: string, context: ToolContext): Promise<string> {
  const generator = tool.call({ pattern }, context);
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  const block = tool.mapToolResultToToolResultBlockParam(step.value.data, 'bench');
  return typeof block.content === 'string' ? block.content : '';
}

async function backtrackingRows(): Promise<Array<Record<string, string>>> {
  const root = mkdtempSync(join(tmpdir(), 'ci-agent-bench-glob-'));
  try {
    writeFileSync(join(root, 'a'.repeat(80)), '');
    const pattern = '*a*a*a*a*a*a*a*a*a*b';
    const tool = defineGlobTool(1_000);
    await runGlob(tool, '*.txt', contextAt(root));
    const stopped = await withStallWatch(() => runGlob(tool, pattern, contextAt(root)));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 200);
    const aborted = await withStallWatch(() =>
      runGlob(defineGlobTool(60_000), pattern, contextAt(root, controller.signal)),
    );
    const rows = [
      { case: 'limit 1 s', ...stopped },
      { case: 'abort at 200 ms', ...aborted },
    ];
    const base = await baseTool();
    if (base) {
      writeFileSync(join(root, 'a'.repeat(60)), '');
      const sixStars = '*a*a*a*a*a*a*b';
      rows.push({
        case: `base tree (main thread), ${sixStars}, names of 60 and 80 a`,
        ...(await withStallWatch(() => runGlob(base, sixStars, contextAt(root)))),
      });
    }
    return rows.map((row) => ({
      case: row.case,
      'to result ms': fmt(row.ms, 0),
      'longest stall ms': fmt(row.longestGap, 1),
    }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function baseTool(): Promise<GlobTool | undefined> {
  const base = process.env.CI_AGENT_BENCH_BASE_SRC;
  if (!base) return undefined;
  const path = join(resolve(base), 'tools/builtin/glob.ts');
  return ((await import(pathToFileURL(path).href)) as { globTool: GlobTool }).globTool;
}

async function ordinaryRows(): Promise<Array<Record<string, string>>> {
  const base = await baseTool();
  const variants: Array<[string, GlobTool]> = [['Glob (worker)', globTool]];
  if (base) variants.push(['Glob (base tree)', base]);
  const context = contextAt(REPO);
  const samples = variants.map(() => [] as number[]);
  const totals = variants.map(() => 0);
  for (const [, tool] of variants)
    for (const pattern of PATTERNS) await runGlob(tool, pattern, context);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [, tool]] of variants.entries()) {
      for (const pattern of PATTERNS) {
        const started = performance.now();
        await runGlob(tool, pattern, context);
        const ms = performance.now() - started;
        samples[index]!.push(ms);
        totals[index]! += ms;
      }
    }
  }
  if (base) {
    for (const pattern of PATTERNS) {
      const [mine, theirs] = await Promise.all(
        variants.map(([, tool]) => runGlob(tool, pattern, context)),
      );
      if (mine !== theirs) console.log(`  warning: the trees disagree on ${pattern}`);
    }
  }
  return variants.map(([variant], index) => ({
    variant,
    [`${ROUNDS * PATTERNS.length} Globs, total ms`]: fmt(totals[index]!, 0),
    'median ms': fmt(median(samples[index]!), 2),
  }));
}

export async function runGlobBench(): Promise<void> {
  printTable('Glob on *a*a*a*a*a*a*a*a*a*b against an 80-character name', await backtrackingRows());
  printTable(
    `Ordinary Globs over this repository (${PATTERNS.join(' ')}), ${ROUNDS} interleaved rounds`,
    await ordinaryRows(),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runGlobBench();
