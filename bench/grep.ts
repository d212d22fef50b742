/**
 * Grep on a 50 000-file tree: the tool against ripgrep itself.
 *
 * 1. Generate the tree in a temp dir: nested directories, mixed extensions, ignored `node_modules`
 *    and `dist` directories (a `.git` marks it a repository), the needle in a few files.
 * 2. For each query, take the median of several interleaved runs (after a warm-up) of
 *    (a) rg run directly with the arguments the tool gives it (printed below),
 *    (b) the Grep tool with ripgrep — (a) plus spawning, parsing, sorting and rendering,
 *    (c) the Grep tool with the built-in engine.
 * 3. Print the table with ratios against (a), and remove the tree.
 * Target: (b) within 1.5× of (a).
 */
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grepTool } from '../src/tools/builtin/grep.js';
import { buildQuery } from '../src/tools/builtin/grep.js';
import { findRipgrep } from '../src/tools/builtin/search/find-ripgrep.js';
import { ripgrepArgs } from '../src/tools/builtin/search/ripgrep.js';
import { FileStateCache } from '../src/tools/file-state.js';
import type { ToolContext } from '../src/tools/tool.js';
import { fmt, median, printTable } from './stats.js';

const FILES = 50_000;
const RUNS = 5;
const NEEDLE = 'NEEDLE_TOKEN_42';
const EXTENSIONS = ['ts', 'js', 'py', 'md', 'json', 'txt', 'go', 'rs'];

function generateTree(root: string): { total: number; ignored: number; needles: number } {
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, '.gitignore'), 'node_modules/\ndist/\n*.log\n');
  let total = 0;
  let ignored = 0;
  let needles = 0;
  // 20 × 10 × 5 directories of 50 files; every tenth leaf is an ignored directory.
  for (let a = 0; a < 20 && total < FILES; a++) {
    for (let b = 0; b < 10 && total < FILES; b++) {
      for (let c = 0; c < 5 && total < FILES; c++) {
        const leaf =
          (a * 50 + b * 5 + c) % 10 === 0 ? (c % 2 === 0 ? 'node_modules' : 'dist') : `leaf${c}`;
        const directory = join(root, `pkg${a}`, `mod${b}`, leaf);
        mkdirSync(directory, { recursive: true });
        for (let index = 0; index < 50 && total < FILES; index++, total++) {
          const extension = EXTENSIONS[(total * 7) % EXTENSIONS.length]!;
          const withNeedle = total % 2_500 === 1_234;
          if (leaf === 'node_modules' || leaf === 'dist') ignored++;
          else if (withNeedle) needles++;
          writeFileSync(join(directory, `file${index}.${extension}`), fileText(total, withNeedle));
        }
      }
    }
  }
  return { total, ignored, needles };
}

function fileText(seed: number, withNeedle: boolean): string {
  const lines: string[] = [];
  const count = 10 + (seed % 40);
  for (let line = 0; line < count; line++) {
    lines.push(`const value${line} = compute(${seed}, ${line}); // some ordinary source text here`);
    if (withNeedle && line === 5) lines.push(`export const marker = '${NEEDLE}';`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Median milliseconds of each action. Runs are interleaved (a, b, c, a, b, c, …) after one warm-up
 * each, so that load from other processes on a shared machine hits every variant alike.
 */
async function timeInterleaved(actions: ReadonlyArray<() => Promise<unknown>>): Promise<number[]> {
  for (const action of actions) await action();
  const samples = actions.map(() => [] as number[]);
  for (let run = 0; run < RUNS; run++) {
    for (const [index, action] of actions.entries()) {
      const started = performance.now();
      await action();
      samples[index]!.push(performance.now() - started);
    }
  }
  return samples.map((values) => median(values));
}

export async function runRipgrepDirectly(
  binary: string,
  args: string[],
  cwd: string,
): Promise<void> {
  const child = execa(binary, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
    buffer: false,
    reject: false,
  });
  child.stdout.resume();
  // Any exit is a result (rg exits 1 when nothing matches); only failing to start is an error.
  const result = await child;
  if (result instanceof Error && result.exitCode === undefined && result.signal === undefined)
    throw result;
}

async function runTool(input: Record<string, unknown>, context: ToolContext): Promise<string> {
  const generator = grepTool.call(input, context);
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  const block = grepTool.mapToolResultToToolResultBlockParam(step.value.data, context.toolUseId);
  return typeof block.content === 'string' ? block.content : '';
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

export async function runGrepBench(): Promise<{ ratios: Record<string, number> }> {
  const rg = findRipgrep(process.env.PATH);
  if (!rg) {
    console.log('bench/grep: no rg on PATH; nothing to compare against.');
    return { ratios: {} };
  }
  const root = mkdtempSync(join(tmpdir(), 'ci-agent-bench-grep-'));
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  const onInterrupt = () => {
    cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  const ratios: Record<string, number> = {};
  try {
    const started = performance.now();
    const tree = generateTree(root);
    console.log(
      `Generated ${tree.total} files (${tree.ignored} in ignored directories, ${tree.needles} searchable with the needle) in ${fmt((performance.now() - started) / 1000, 1)} s`,
    );
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    const context = (ripgrepPath: string | null): ToolContext => ({
      projectDir: root,
      workspaceRoots: [root],
      shell: { cwd: root },
      fileState: new FileStateCache(),
      signal: new AbortController().signal,
      toolUseId: 'bench',
      env,
      ripgrepPath,
    });
    const queries: Array<{ label: string; input: Record<string, unknown> }> = [
      { label: 'files_with_matches', input: { pattern: NEEDLE } },
      { label: 'content -n', input: { pattern: NEEDLE, output_mode: 'content' } },
      {
        label: 'count -i',
        input: { pattern: 'needle_token_42', output_mode: 'count', '-i': true },
      },
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const { label, input } of queries) {
      const parsed = grepTool.inputSchema.parse(input) as Parameters<typeof buildQuery>[0];
      const args = ripgrepArgs(buildQuery(parsed, root, false));
      console.log(`\n[${label}] (a) cd ${root} && ${[rg, ...args].map(shellQuote).join(' ')}`);
      const [direct, withRipgrep, builtin] = (await timeInterleaved([
        () => runRipgrepDirectly(rg, args, root),
        () => runTool(input, context(rg)),
        () => runTool(input, context(null)),
      ])) as [number, number, number];
      const sample = await runTool(input, context(rg));
      if (sample !== (await runTool(input, context(null)))) {
        console.log(`  warning: the engines disagree on ${label}`);
      }
      ratios[label] = withRipgrep / direct;
      for (const [variant, ms] of [
        ['(a) rg directly', direct],
        ['(b) Grep tool, ripgrep', withRipgrep],
        ['(c) Grep tool, built-in', builtin],
      ] as const) {
        rows.push({
          query: label,
          variant,
          'median ms': fmt(ms, 1),
          'vs (a)': `${fmt(ms / direct, 2)}×`,
        });
      }
    }
    printTable(
      `Grep over ${tree.total} files, median of ${RUNS} runs after a warm-up (target: (b) ≤ 1.5× (a))`,
      rows,
    );
    return { ratios };
  } finally {
    process.off('SIGINT', onInterrupt);
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runGrepBench();
