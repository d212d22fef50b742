/**
 * What the process scope (src/process/process-scope.ts) adds to one Bash call: `true` run through
 * runCommand 200 times under each mechanism, interleaved with a bare detached spawn of
 * `bash -c true` (what a call cost before the scope, less its bookkeeping), so load from other
 * processes falls on every series alike. The PID namespace runs only as root where unshare works.
 */
import { tmpdir } from 'node:os';
import { runCommand } from '../src/tools/builtin/bash/run-command.js';
import { buildChildEnv } from '../src/util/child-env.js';
import { processScopeMechanism, type ProcessScopeMechanism } from '../src/process/process-scope.js';
import { bareSpawn } from './bare-spawn.js';
import { fmt, median, percentile, printTable } from './stats.js';

const RUNS = 200;
const WARM_UP = 20;
const env = buildChildEnv(process.env);

async function scoped(mechanism: ProcessScopeMechanism): Promise<void> {
  await runCommand({
    shell: '/bin/bash',
    script: 'true',
    cwd: tmpdir(),
    env,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    maxOutputChars: 1_000,
    processScope: mechanism,
  }).result;
}

async function time(action: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

export async function runProcessScopeBench(): Promise<Record<string, number>> {
  const series: Array<[string, () => Promise<void>]> = [
    ['bare spawn of bash -c true (before)', () => bareSpawn(env)],
    ['runCommand, process-sweep', () => scoped('process-sweep')],
  ];
  if (processScopeMechanism() === 'pid-namespace') {
    series.push(['runCommand, pid-namespace', () => scoped('pid-namespace')]);
  }
  const samples = series.map(() => [] as number[]);
  for (let index = 0; index < RUNS + WARM_UP; index++) {
    for (const [position, [, action]] of series.entries()) {
      const ms = await time(action);
      if (index >= WARM_UP) samples[position]?.push(ms);
    }
  }
  printTable(
    `one Bash call of \`true\`, ${RUNS} runs each (ms)`,
    series.map(([name], position) => ({
      run: name,
      median: fmt(median(samples[position] ?? []), 2),
      p95: fmt(percentile(samples[position] ?? [], 95), 2),
    })),
  );
  const medians = Object.fromEntries(
    series.map(([name], position) => [name, median(samples[position] ?? [])]),
  );
  const before = median(samples[0] ?? []);
  for (const [name, value] of Object.entries(medians).slice(1)) {
    console.log(`${name}: +${fmt(value - before, 2)} ms per call over the bare spawn`);
  }
  return medians;
}

if (import.meta.url === `file://${process.argv[1]}`) await runProcessScopeBench();
