/**
 * Hook runner costs.
 *
 * 1. Overhead per PreToolUse firing with one trivial hook (`true`) against a runner with no
 *    hooks (baseline): one `sh -c` spawn, the payload on stdin, the interpretation and merge.
 * 2. Three hooks of 300 ms each on one event: they run in parallel, so a firing should take
 *    about 300 ms, not 900.
 */
import { execa } from 'execa';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HooksConfig } from '../src/hooks/config.js';
import { createHookRunner } from '../src/hooks/runner.js';
import type { SessionHookRunner } from '../src/hooks/types.js';
import { buildChildEnv } from '../src/util/child-env.js';
import { fmt, median, percentile, printTable } from './stats.js';

const handler = (command: string) => ({ type: 'command' as const, command, source: 'bench' });

function runnerFor(root: string, config: HooksConfig): SessionHookRunner {
  return createHookRunner({
    config,
    projectDir: root,
    sessionId: 'bench',
    transcriptPath: join(root, 'transcript.jsonl'),
    permissionMode: 'default',
    cwd: () => root,
    env: buildChildEnv(process.env),
  });
}

/**
 * The floor: what spawning the shell through execa (what runProcess is built on) costs on this
 * machine, with the hook's JSON on stdin and nothing else around it.
 */
async function spawnOnce(): Promise<void> {
  await execa('/bin/sh', ['-c', 'true'], { input: '{}', reject: false });
}

async function fireOnce(runner: SessionHookRunner, index: number): Promise<void> {
  await runner.preToolUse({
    toolName: 'Bash',
    toolInput: { command: 'npm test', description: 'run the tests' },
    toolUseId: `toolu_${index}`,
    signal: new AbortController().signal,
  });
}

async function time(action: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

const row = (run: string, samples: number[], digits: number) => ({
  run,
  median: fmt(median(samples), digits),
  p95: fmt(percentile(samples, 95), digits),
});

export async function runHooksBench(): Promise<{
  overheadMs: number;
  spawnFloorMs: number;
  parallelMedianMs: number;
}> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-bench-hooks-')));
  try {
    const none = runnerFor(root, {});
    const trivial = runnerFor(root, {
      PreToolUse: [{ matcher: 'Bash', hooks: [handler('true')] }],
    });
    const slow = runnerFor(root, {
      PreToolUse: [
        { hooks: [handler('sleep 0.3 # a'), handler('sleep 0.3 # b'), handler('sleep 0.3 # c')] },
      ],
    });

    const base: number[] = [];
    for (let index = 0; index < 20_000; index++) base.push(await time(() => fireOnce(none, index)));
    // Interleaved, so load from other processes falls on both series alike.
    const floor: number[] = [];
    const one: number[] = [];
    for (let index = 0; index < 220; index++) {
      const spawned = await time(spawnOnce);
      const fired = await time(() => fireOnce(trivial, index));
      if (index < 20) continue; // warm-up
      floor.push(spawned);
      one.push(fired);
    }
    const three: number[] = [];
    for (let index = 0; index < 5; index++) three.push(await time(() => fireOnce(slow, index)));

    printTable('PreToolUse firing (ms)', [
      row('no hooks (baseline)', base, 4),
      row('execa spawn of sh -c true (floor)', floor, 2),
      row('one trivial hook (`true`)', one, 2),
      row('three 300 ms hooks', three, 1),
    ]);
    const overheadMs = median(one) - median(base);
    const spawnFloorMs = median(floor);
    const parallelMedianMs = median(three);
    console.log(
      `overhead of one trivial hook: ${fmt(overheadMs, 2)} ms per call (an execa spawn alone: ${fmt(spawnFloorMs, 2)} ms)`,
    );
    console.log(
      `three 300 ms hooks: ${fmt(parallelMedianMs, 0)} ms per firing (sequential would be ≥ 900 ms)`,
    );
    return { overheadMs, spawnFloorMs, parallelMedianMs };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runHooksBench();
