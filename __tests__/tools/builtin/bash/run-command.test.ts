import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  runCommand,
  type RunCommandOptions,
} from '../../../../src/tools/builtin/bash/run-command.js';
import { buildChildEnv } from '../../../../src/util/child-env.js';
import { makeWorkspace, type Workspace } from '../../../helpers/tool-harness.js';
import { isAlive, sleepMarkers, survivorsWith } from '../../../helpers/processes.js';

let workspace: Workspace;
/** `sleep` arguments this file's processes can be found by, and cleaned up by. */
const { marker, killAll: killMarked } = sleepMarkers();

beforeEach(() => {
  workspace = makeWorkspace();
});

afterEach(() => {
  killMarked();
  workspace.cleanup();
});

function run(script: string, overrides: Partial<RunCommandOptions> = {}) {
  return runCommand({
    shell: '/bin/bash',
    script,
    cwd: workspace.root,
    env: buildChildEnv(process.env),
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    maxOutputChars: 10_000,
    ...overrides,
  });
}

describe('runCommand', () => {
  it('collects stdout and stderr apart with the exit status', async () => {
    const result = await run('echo out; echo err >&2; exit 3').result;
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 3 });
    expect([result.stdout.text, result.stderr.text]).toEqual(['out\n', 'err\n']);
  });

  it('runs in the given directory with stdin closed', async () => {
    const result = await run('pwd; cat; echo end').result;
    expect(result.stdout.text).toBe(`${workspace.root}\nend\n`);
  });

  it('reports death by a signal as 128 + the signal number', async () => {
    expect((await run('kill -9 $$').result).exitCode).toBe(137);
  });

  it('keeps only the head of a large output', async () => {
    const result = await run('yes | head -n 100000', { maxOutputChars: 1_000 }).result;
    expect(result.stdout.text).toHaveLength(1_000);
    expect(result.stdout.truncatedLines).toBe(100_000 - 500);
  });

  it('hands every chunk to onOutput as it arrives', async () => {
    const chunks: string[] = [];
    await run('echo a; echo b >&2', { onOutput: (chunk) => chunks.push(chunk) }).result;
    expect(chunks.join('').split('\n').sort()).toEqual(['', 'a', 'b']);
  });

  describe('when the timeout expires', () => {
    it('kills the whole process group, grandchildren included', async () => {
      const [child, grandchild] = [marker(), marker()];
      const running = run(`sleep ${child} & bash -c "sleep ${grandchild} & wait" & wait`, {
        timeoutMs: 300,
      });
      const result = await running.result;
      expect(result.outcome).toBe('timed-out');
      expect(isAlive(running.pid ?? 0)).toBe(false);
      expect([await survivorsWith(child, 0), await survivorsWith(grandchild, 0)]).toEqual([[], []]);
    });

    it('sends SIGKILL after the grace period to what ignores SIGTERM', async () => {
      const started = Date.now();
      const sleep = marker();
      const running = run(`trap '' TERM; sleep ${sleep} & wait`, {
        timeoutMs: 200,
        killGraceMs: 100,
      });
      const result = await running.result;
      expect(result.outcome).toBe('timed-out');
      expect(await survivorsWith(sleep, 0)).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2_000);
    });
  });

  describe('when the signal aborts', () => {
    it('kills the process group and reports the abort', async () => {
      const controller = new AbortController();
      const sleep = marker();
      const running = run(`sleep ${sleep} & echo started; wait`, {
        signal: controller.signal,
        onOutput: () => controller.abort(),
      });
      const result = await running.result;
      expect(result.outcome).toBe('aborted');
      expect(await survivorsWith(sleep, 0)).toEqual([]);
    });

    it('does not start a command whose signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const running = run('touch started', { signal: controller.signal });
      expect(running.pid).toBeUndefined();
      expect((await running.result).outcome).toBe('aborted');
    });

    it('stops the group when stop() is called', async () => {
      const sleep = marker();
      const running = run(`sleep ${sleep} & echo started; wait`, {
        onOutput: () => running.stop(),
      });
      const result = await running.result;
      expect(result.outcome).toBe('aborted');
      expect(await survivorsWith(sleep, 0)).toEqual([]);
    });
  });

  describe('when a background process outlives the shell', () => {
    it('stops it once the drain grace has passed and keeps the exit status', async () => {
      const sleep = marker();
      const result = await run(`sleep ${sleep} & exit 5`, { drainGraceMs: 50 }).result;
      expect(result).toMatchObject({ outcome: 'exited', exitCode: 5 });
      expect(await survivorsWith(sleep, 0)).toEqual([]);
    });
  });

  describe('when the shell cannot start', () => {
    it('reports why', async () => {
      const result = await run('true', { cwd: workspace.path('missing') }).result;
      expect(result.outcome).toBe('failed-to-start');
      expect(result.error).toContain('ENOENT');
    });
  });
});
