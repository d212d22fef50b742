/**
 * What the sandbox adds to one Bash call: the same command (`bash -c true`, and `git status` in
 * a small repository) run through runProcess as the Bash tool runs it, unsandboxed and in the
 * sandbox, RUNS times each, interleaved call by call so that load from other processes falls on
 * both alike. Also the sandbox's start (once per session: the probe, the mount plan). Needs bwrap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { runProcess, type CommandWrapper } from '../src/process/run-process.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { fmt, median, percentile, printTable } from './stats.js';

const RUNS = Number(process.env.CI_AGENT_BENCH_RUNS ?? 100);
const WARM_UP = 10;
const EMPTY = { allowedDomains: [], allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] };

async function timed(script: string, cwd: string, sandbox?: CommandWrapper): Promise<number> {
  const start = performance.now();
  await runProcess({
    file: '/bin/bash',
    args: ['-c', script],
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    ...(sandbox ? { sandbox } : { scope: 'process-sweep' as const }),
  }).result;
  return performance.now() - start;
}

export async function runSandboxCallBench(): Promise<Record<string, number>> {
  const root = mkdtempSync(join(tmpdir(), 'ci-agent-bench-sandbox-'));
  const workspace = join(root, 'ws');
  await execa('git', ['init', '-q', workspace]);
  const starts: number[] = [];
  for (let i = 0; i < 10; i++) {
    const begun = performance.now();
    const sandbox = await startSandbox({
      workspaceRoots: [workspace],
      home: process.env.HOME ?? '/root',
      env: process.env,
      policy: EMPTY,
      judges: [],
    });
    starts.push(performance.now() - begun);
    await sandbox.close();
  }
  const sandbox = await startSandbox({
    workspaceRoots: [workspace],
    home: process.env.HOME ?? '/root',
    env: process.env,
    policy: EMPTY,
    judges: [],
  });
  const series: Record<string, number[]> = {
    'bash -c true, unsandboxed': [],
    'bash -c true, sandboxed': [],
    'git status, unsandboxed': [],
    'git status, sandboxed': [],
  };
  try {
    for (let i = 0; i < WARM_UP + RUNS; i++) {
      const results = [
        await timed('true', workspace),
        await timed('true', workspace, sandbox),
        await timed('git status --short', workspace),
        await timed('git status --short', workspace, sandbox),
      ];
      if (i < WARM_UP) continue;
      Object.values(series).forEach((values, index) => values.push(results[index] ?? 0));
    }
  } finally {
    await sandbox.close();
    rmSync(root, { recursive: true, force: true });
  }
  const rows = Object.entries(series).map(([run, values]) => ({
    run,
    'median ms': fmt(median(values), 1),
    'p95 ms': fmt(percentile(values, 95), 1),
  }));
  rows.push({
    run: 'startSandbox (once per session)',
    'median ms': fmt(median(starts), 1),
    'p95 ms': fmt(percentile(starts, 95), 1),
  });
  printTable(`The sandbox per call (${RUNS} runs, interleaved)`, rows);
  const added = (name: string) =>
    median(series[`${name}, sandboxed`] ?? []) - median(series[`${name}, unsandboxed`] ?? []);
  console.log(
    `added per call (median): bash -c true +${fmt(added('bash -c true'), 1)} ms, git status +${fmt(added('git status'), 1)} ms`,
  );
  return {
    addedTrueMs: added('bash -c true'),
    addedGitMs: added('git status'),
    startMs: median(starts),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await runSandboxCallBench();
