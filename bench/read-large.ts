/**
 * Read of one line of a 120 MB file: how much the process's peak memory rises over its baseline.
 *
 * 1. Generate a 120 MB file of short numbered lines in a temp dir.
 * 2. For each variant, run one Read (offset 10, limit 1) in a fresh child process
 *    (bench/read-peak-child.ts): the resident set just before the call is the baseline, the
 *    process's peak resident set (getrusage maxRSS) after it the peak. Median of RUNS children.
 *    Variants: this tree, and with CI_AGENT_BENCH_BASE_SRC=<src dir of an older tree> that tree
 *    (e.g. `git archive <rev> src | tar -x -C /tmp/base`, the implementation that loaded files).
 * Target: the peak within 150 MiB of the baseline.
 */
import { execa } from 'execa';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, median, printTable } from './stats.js';

const FILE_BYTES = 120 * 1024 * 1024;
const RUNS = 3;
const MIB = 1024 * 1024;
const CHILD = fileURLToPath(new URL('read-peak-child.ts', import.meta.url));
const SRC = fileURLToPath(new URL('../src', import.meta.url));

function generate(path: string): number {
  const block = Array.from(
    { length: 10_000 },
    (_, index) => `line ${index} of some ordinary text in a large generated file\n`,
  ).join('');
  const descriptor = openSync(path, 'w');
  let written = 0;
  while (written < FILE_BYTES) written += writeSync(descriptor, block);
  closeSync(descriptor);
  return written;
}

async function measure(src: string, file: string) {
  const started = performance.now();
  const { stdout } = await execa(
    process.execPath,
    ['--import', 'tsx', CHILD, src, file, '10', '1'],
    { maxBuffer: 16 * MIB },
  );
  const ms = performance.now() - started;
  const result = JSON.parse(stdout) as { baselineRss: number; peakRss: number; text: string };
  return { ...result, ms };
}

export async function runReadLargeBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'ci-agent-bench-read-'));
  try {
    const file = join(root, 'large.txt');
    const bytes = generate(file);
    console.log(`Generated ${fmt(bytes / MIB, 1)} MiB in ${file}`);
    const variants: Array<[string, string]> = [['this tree', SRC]];
    const base = process.env.CI_AGENT_BENCH_BASE_SRC;
    if (base) variants.push([`base tree (${base})`, base]);
    const rows: Array<Record<string, string>> = [];
    for (const [label, src] of variants) {
      const samples = [];
      for (let run = 0; run < RUNS; run++) samples.push(await measure(src, file));
      const growth = median(samples.map((sample) => sample.peakRss - sample.baselineRss));
      console.log(`  ${label}: ${JSON.stringify(samples[0]!.text)}`);
      rows.push({
        variant: label,
        'baseline MiB': fmt(median(samples.map((sample) => sample.baselineRss)) / MIB, 1),
        'peak MiB': fmt(median(samples.map((sample) => sample.peakRss)) / MIB, 1),
        'peak − baseline MiB': fmt(growth / MIB, 1),
        'child wall ms': fmt(median(samples.map((sample) => sample.ms)), 0),
      });
    }
    printTable(
      `Read of line 10 of a ${fmt(bytes / MIB, 0)} MiB file, median of ${RUNS} child processes (target: peak − baseline ≤ 150 MiB)`,
      rows,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runReadLargeBench();
