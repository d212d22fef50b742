import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processScopeMechanism, type ProcessScopeKind } from '../../src/process/process-scope.js';
import {
  processOutput,
  runProcess,
  type RunProcessOptions,
} from '../../src/process/run-process.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import { processesWith, sleepMarkers, survivorsWith } from '../helpers/processes.js';
import { makeWorkspace, type Workspace } from '../helpers/tool-harness.js';

let workspace: Workspace;
/** `sleep` arguments this file's processes can be found by, and cleaned up by. */
const { marker, killAll: killMarked } = sleepMarkers();

beforeEach(() => {
  workspace = makeWorkspace('ci-agent-run-process-');
});

afterEach(() => {
  killMarked();
  workspace.cleanup();
});

function sh(script: string, overrides: Partial<RunProcessOptions> = {}) {
  return runProcess({
    file: '/bin/sh',
    args: ['-c', script],
    cwd: workspace.root,
    env: buildChildEnv(process.env),
    timeoutMs: 10_000,
    killGraceMs: 200,
    drainGraceMs: 100,
    ...overrides,
  });
}

/** Waits until `ready` holds (a process is up, a file written), at most two seconds. */
async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(ready()).toBe(true);
}

const SCOPES: Array<[ProcessScopeKind, boolean]> = [
  ['process-group', true],
  ['process-sweep', true],
  ['pid-namespace', processScopeMechanism() === 'pid-namespace'],
];

describe('runProcess', () => {
  it('reads stdout and stderr apart, writes a text to stdin, and reports the exit status', async () => {
    const result = await sh('cat; echo err >&2; exit 3', { stdin: { text: 'in' } }).result;
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 3, exitSignal: null });
    expect([result.stdout.text, result.stderr.text]).toEqual(['in', 'err\n']);
  });

  it('reports death by a signal as 128 + its number, with the signal', async () => {
    // The leader itself: in a PID namespace it would be unshare, which reports the status only.
    const result = await sh('kill -9 $$', { scope: 'process-group' }).result;
    expect(result).toMatchObject({ exitCode: 137, exitSignal: 'SIGKILL' });
  });

  it('keeps the first N characters of each stream and counts the rest', async () => {
    const script = 'head -c 5000 /dev/zero | tr "\\0" a; yes | head -n 300 >&2';
    const result = await sh(script, { maxOutputChars: 100 }).result;
    expect(result.stdout.text).toBe('a'.repeat(100));
    expect(result.stdout.truncatedChars).toBe(4_900);
    expect(result.stderr.text).toBe('y\n'.repeat(50));
    expect([result.stderr.truncatedChars, result.stderr.truncatedLines]).toEqual([500, 250]);
  });

  it('streams the output as it comes, before the process exits', async () => {
    const file = workspace.path('go');
    const chunks: string[] = [];
    const running = sh(`echo first; while [ ! -e ${file} ]; do sleep 0.02; done; echo second`, {
      onStdout: (chunk) => chunks.push(chunk),
    });
    await until(() => chunks.join('') === 'first\n');
    await workspace.write('go', '');
    await running.result;
    expect(chunks.join('')).toBe('first\nsecond\n');
  });

  it('rejects `started` with the spawn error, code and all', async () => {
    const running = runProcess({
      file: '/nonexistent/tool',
      args: [],
      cwd: '/',
      env: {},
      scope: 'process-group',
    });
    await expect(running.started).rejects.toMatchObject({ code: 'ENOENT' });
    const result = await running.result;
    expect(result.outcome).toBe('failed-to-start');
    expect(result.error).toContain('ENOENT');
  });

  describe.each(SCOPES)('in a %s scope', (scope, runs) => {
    it.runIf(runs)('kills the whole group, grandchild too, at its timeout', async () => {
      const sleep = marker();
      const termed = workspace.path('termed');
      // The grandchild notes the SIGTERM the group gets, then lingers: it takes the SIGKILL.
      const grandchild = `trap 'echo TERM > ${termed}' TERM; sleep ${sleep} & wait; sleep ${sleep}`;
      const started = performance.now();
      const result = await sh(`sh -c "${grandchild}" & wait`, { scope, timeoutMs: 300 }).result;
      expect(result.outcome).toBe('timed-out');
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(readFileSync(termed, 'utf8')).toBe('TERM\n');
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    });

    it.runIf(runs)('kills the whole group when its signal aborts', async () => {
      const sleep = marker();
      const controller = new AbortController();
      const running = sh(`sh -c 'sleep ${sleep}' & sleep ${sleep}`, {
        scope,
        signal: controller.signal,
      });
      await until(() => processesWith(sleep).length === 2);
      controller.abort();
      const result = await running.result;
      expect(result.outcome).toBe('aborted');
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    });

    it.runIf(runs)('SIGKILLs what ignores SIGTERM once the grace is over', async () => {
      const sleep = marker();
      // The ignored SIGTERM is inherited: sleep ignores it too.
      const running = sh(`trap '' TERM; sleep ${sleep}; sleep ${sleep}`, {
        scope,
        killGraceMs: 300,
      });
      await until(() => processesWith(sleep).length === 1);
      const stopped = performance.now();
      running.stop();
      await new Promise((r) => setTimeout(r, 150));
      expect(processesWith(sleep)).toHaveLength(1);
      const result = await running.result;
      expect(performance.now() - stopped).toBeGreaterThanOrEqual(290);
      // Killed by the SIGKILL that ends the grace, not left for the scope's end to find.
      expect(result).toMatchObject({ outcome: 'aborted', exitSignal: 'SIGKILL' });
      expect(await survivorsWith(sleep, 100)).toEqual([]);
    });

    it.runIf(runs)('leaves nothing running that the command put in the background', async () => {
      const sleep = marker();
      const result = await sh(`sleep ${sleep} >/dev/null 2>&1 & echo started`, { scope }).result;
      expect(result).toMatchObject({ outcome: 'exited', exitCode: 0 });
      expect(result.stdout.text).toBe('started\n');
      expect(await survivorsWith(sleep, 100)).toEqual([]);
    });
  });

  it.each(SCOPES.filter(([scope, runs]) => runs && scope !== 'process-group'))(
    'in a %s scope, also ends what left the group (setsid)',
    async (scope) => {
      const sleep = marker();
      const result = await sh(`setsid sleep ${sleep} >/dev/null 2>&1 & sleep 0.1`, { scope })
        .result;
      expect(result.outcome).toBe('exited');
      expect(await survivorsWith(sleep, 100)).toEqual([]);
    },
  );

  it('settles with what was read once leftover output outlives the drain', async () => {
    const sleep = marker();
    const started = performance.now();
    const result = await sh(`echo done; sleep ${sleep} & exit 0`, { afterExit: 'kill' }).result;
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 0 });
    expect(result.stdout.text).toBe('done\n');
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(await survivorsWith(sleep, 100)).toEqual([]);
  });
});

describe('processOutput', () => {
  it('returns stdout of a command that exits with 0', async () => {
    const args = ['-c', 'echo out; echo noise >&2'];
    expect(await processOutput({ file: '/bin/sh', args, cwd: workspace.root, env: {} })).toBe(
      'out\n',
    );
  });

  it('throws naming the command, its status and its stderr', async () => {
    const args = ['-c', 'echo bad thing >&2; exit 4'];
    await expect(
      processOutput({ file: '/bin/sh', args, cwd: workspace.root, env: {} }),
    ).rejects.toThrow(
      `Command failed: /bin/sh -c echo bad thing >&2; exit 4: exited with status 4: bad thing`,
    );
  });
});
