/**
 * What one Bash tool call costs on top of the process it runs: the tool (parse, validate, call)
 * runs `true` RUNS times, interleaved with a bare detached spawn of `bash -c true`, so load from
 * other processes falls on every series alike. With CI_AGENT_BENCH_BASE_SRC=<src dir of an older
 * tree> (e.g. `git archive <rev> src | tar -x -C /tmp/base`, with a node_modules link beside it)
 * that tree's Bash tool runs in the same interleaving: the before of a change to how processes
 * are started (src/process/run-process.ts). Every series uses the scope this process gets
 * (a PID namespace as root where unshare works, else the sweep).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool, ToolContext } from '../src/tools/tool.js';
import { buildChildEnv } from '../src/util/child-env.js';
import { bareSpawn } from './bare-spawn.js';
import { fmt, median, percentile, printTable } from './stats.js';

const RUNS = 200;
const WARM_UP = 20;
const env = buildChildEnv(process.env);

/** The Bash tool of the tree at `src`, with a call that runs `true` the way the pipeline does. */
async function bashCall(src: string, root: string): Promise<() => Promise<void>> {
  const load = (path: string) => import(pathToFileURL(join(src, path)).href);
  const { bashTool } = (await load('tools/builtin/bash.ts')) as { bashTool: Tool };
  const { FileStateCache } = (await load('tools/file-state.ts')) as {
    FileStateCache: new () => ToolContext['fileState'];
  };
  return async () => {
    const context: ToolContext = {
      projectDir: root,
      workspaceRoots: [root],
      shell: { cwd: root },
      fileState: new FileStateCache(),
      signal: new AbortController().signal,
      toolUseId: 'toolu_bench',
      env,
      ripgrepPath: null,
    };
    const input = bashTool.inputSchema.parse({ command: 'true' });
    const validation = await bashTool.validateInput(input, context);
    if (!validation.result)
      throw new Error(`the Bash tool refused \`true\`: ${validation.message}`);
    const generator = bashTool.call(input, context);
    while (!(await generator.next()).done);
  };
}

async function time(action: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

export async function runBashCallBench(): Promise<Record<string, number>> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-bench-bash-')));
  try {
    const series: Array<[string, () => Promise<void>]> = [
      ['bare spawn of bash -c true', () => bareSpawn(env)],
      ['Bash tool, this tree', await bashCall(join(import.meta.dirname, '../src'), root)],
    ];
    const base = process.env.CI_AGENT_BENCH_BASE_SRC;
    if (base) series.push([`Bash tool, base tree (${base})`, await bashCall(base, root)]);
    const samples = series.map(() => [] as number[]);
    for (let index = 0; index < RUNS + WARM_UP; index++) {
      for (const [position, [, action]] of series.entries()) {
        const ms = await time(action);
        if (index >= WARM_UP) samples[position]?.push(ms);
      }
    }
    printTable(
      `one Bash tool call of \`true\`, ${RUNS} runs each, interleaved (ms)`,
      series.map(([name], position) => ({
        run: name,
        median: fmt(median(samples[position] ?? []), 2),
        p95: fmt(percentile(samples[position] ?? [], 95), 2),
      })),
    );
    const medians = series.map((_, position) => median(samples[position] ?? []));
    const bare = medians[0] ?? 0;
    for (const [position, [name]] of series.entries()) {
      if (position === 0) continue;
      console.log(`${name}: +${fmt((medians[position] ?? 0) - bare, 2)} ms over the bare spawn`);
    }
    if (base) {
      const [, now = 0, before = 0] = medians;
      console.log(
        `overhead over the bare spawn, this tree / base tree: ${fmt((now - bare) / (before - bare), 2)}; ` +
          `whole call: ${fmt(now / before, 2)}`,
      );
    }
    return Object.fromEntries(series.map(([name], position) => [name, medians[position] ?? 0]));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runBashCallBench();
