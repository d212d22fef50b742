import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookProcessOptions } from '../../src/hooks/hook-process.js';
import { runHookProcess } from '../../src/hooks/hook-process.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import { sleepMarkers, survivorsWith } from '../helpers/processes.js';

let workspace: Workspace;
/** `sleep` arguments this file's processes can be found by, and cleaned up by. */
const { marker, killAll: killMarked } = sleepMarkers();
beforeEach(() => {
  workspace = makeWorkspace('ci-agent-hook-process-');
});
afterEach(() => {
  killMarked();
  workspace.cleanup();
});

const run = (command: string, overrides: Partial<HookProcessOptions> = {}) =>
  runHookProcess({
    command,
    cwd: workspace.root,
    env: buildChildEnv(process.env),
    stdin: '{"a":1}',
    timeoutMs: 10_000,
    ...overrides,
  });

describe('runHookProcess', () => {
  it('passes the payload on stdin exactly, without a trailing newline, then closes it', async () => {
    const result = await run('cat > stdin.bin; echo done', { stdin: '{"x":"ü"}' });
    expect(result).toMatchObject({ status: 'exited', exitCode: 0, stdout: 'done\n' });
    expect(readFileSync(workspace.path('stdin.bin'), 'utf8')).toBe('{"x":"ü"}');
  });

  it('runs the command through sh -c, so shell syntax and multi-line scripts work', async () => {
    const result = await run('# a comment\nx=4\necho "$((x * 2))" >&2\nexit 3');
    expect(result).toMatchObject({ exitCode: 3, stderr: '8\n' });
  });

  it('tolerates a hook that exits without reading a large payload', async () => {
    const result = await run('exit 0', { stdin: `{"big":"${'x'.repeat(2_000_000)}"}` });
    expect(result).toMatchObject({ status: 'exited', exitCode: 0 });
    expect(result.error).toBeUndefined();
  });

  it('reports death by a signal as 128 + the signal number', async () => {
    const result = await run('kill -9 $$');
    expect(result).toMatchObject({ status: 'exited', exitCode: 137 });
  });

  it('keeps at most maxOutputChars of each stream', async () => {
    const result = await run('head -c 5000 /dev/zero | tr "\\0" a', { maxOutputChars: 100 });
    expect(result.stdout).toBe('a'.repeat(100));
  });

  describe('when the hook outlives its timeout', () => {
    it('kills its whole process group and reports timed-out', async () => {
      const [shell, sleep] = [marker(), marker(5)];
      const result = await run(`sh -c 'sleep ${sleep} & wait' ${shell}`, { timeoutMs: 300 });
      expect(result.status).toBe('timed-out');
      expect(result.durationMs).toBeLessThan(4_000);
      expect(await survivorsWith(shell)).toEqual([]);
      expect(await survivorsWith(sleep)).toEqual([]);
    });

    it('escalates to SIGKILL when the hook ignores SIGTERM', async () => {
      const shell = marker();
      const loop = `trap "" TERM; while :; do sleep 0.05; done`;
      const result = await run(`sh -c '${loop}' ${shell}`, { timeoutMs: 300, killGraceMs: 200 });
      expect(result.status).toBe('timed-out');
      expect(await survivorsWith(shell)).toEqual([]);
    });
  });

  it('stops the hook when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = run('echo started; sleep 5', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await pending).status).toBe('aborted');
  });

  it('does not start at all when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run('touch ran', { signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(() => readFileSync(workspace.path('ran'))).toThrow();
  });

  it('settles soon after the shell exits even when a background child holds the output', async () => {
    const sleep = marker(3);
    const result = await run(`sleep ${sleep} & echo hi`);
    expect(result).toMatchObject({ status: 'exited', exitCode: 0, stdout: 'hi\n' });
    expect(result.durationMs).toBeLessThan(2_500);
    expect(await survivorsWith(sleep)).toEqual([]);
  });

  describe('when the shell cannot start', () => {
    it('names a working directory that does not exist', async () => {
      const result = await run('true', { cwd: workspace.path('missing') });
      expect(result).toMatchObject({ status: 'failed-to-start', exitCode: null });
      expect(result.error).toBe(
        `its working directory ${workspace.path('missing')} does not exist`,
      );
    });

    it('names a shell that does not exist', async () => {
      const result = await run('true', { shell: '/nonexistent/sh' });
      expect(result.status).toBe('failed-to-start');
      expect(result.error).toBe('the shell /nonexistent/sh does not exist');
    });

    it('reports a command Node refuses to pass on', async () => {
      const result = await run('echo a\0b');
      expect(result.status).toBe('failed-to-start');
      expect(result.error).toMatch(/null bytes/);
    });
  });
});
