/**
 * Runs one hook command the way Claude Code does (CC-COMPAT §1.4).
 *
 * Sequence:
 *   1. spawn `/bin/sh -c <command>` in a process scope of its own (util/process-scope.ts),
 *      leading a process group of its own;
 *   2. write the payload to stdin (compact JSON, no trailing newline) and close it; a hook that
 *      exits without reading gives EPIPE, which is not an error;
 *   3. on timeout or abort: SIGTERM to the group, SIGKILL after a grace period;
 *   4. settle when stdout and stderr close. If the shell has exited but something it left in
 *      the background still holds them open, settle after a short drain with what was read;
 *   5. on settling, end the scope: nothing the hook started outlives it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { errorMessage } from '../util/errors.js';
import { scopeCommand, type ProcessScopeMechanism } from '../util/process-scope.js';

export interface HookProcessOptions {
  command: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
  shell?: string;
  /** Characters kept per stream; the rest is dropped. */
  maxOutputChars?: number;
  killGraceMs?: number;
  /** Default: the best this process can have (util/process-scope.ts). */
  processScope?: ProcessScopeMechanism;
}

export type HookProcessStatus = 'exited' | 'timed-out' | 'aborted' | 'failed-to-start';

export interface HookProcessResult {
  status: HookProcessStatus;
  /** Exit status, or 128 + signal number when the shell died of a signal. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Why the shell could not start. */
  error?: string;
  /** Processes that outlived the hook and were killed when it settled (sweep only). */
  sweptProcesses?: number;
}

const DEFAULT_MAX_OUTPUT_CHARS = 1_000_000;
const DEFAULT_KILL_GRACE_MS = 1_000;
/** After SIGKILL, or after the shell exited, output still open is waited for this long. */
const DRAIN_MS = 500;
/** setTimeout fires at once for longer delays; a timeout of about 24 days is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function runHookProcess(options: HookProcessOptions): Promise<HookProcessResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (options.signal?.aborted) {
    return Promise.resolve({
      status: 'aborted',
      exitCode: null,
      stdout: '',
      stderr: '',
      durationMs: 0,
    });
  }
  const notStarted = (error: string): HookProcessResult => ({
    status: 'failed-to-start',
    exitCode: null,
    stdout: '',
    stderr: '',
    durationMs: elapsed(),
    error,
  });
  const shell = options.shell ?? '/bin/sh';
  const limit = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const scoped = scopeCommand(shell, ['-c', options.command], options.env, options.processScope);
  const { scope } = scoped;
  // In a scope the shell is started by a wrapper, whose failure would not name the shell.
  if (!existsSync(shell)) return Promise.resolve(notStarted(`the shell ${shell} does not exist`));
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(scoped.file, scoped.args, {
      cwd: options.cwd,
      env: scoped.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
  } catch (error) {
    // Arguments Node refuses outright, such as a NUL byte in the command.
    return Promise.resolve(notStarted(errorMessage(error)));
  }
  const pid = child.pid;
  scope.attach(pid);

  return new Promise((resolve) => {
    let status: HookProcessStatus = 'exited';
    let exitCode: number | null = null;
    let stdout = '';
    let stderr = '';
    let settled = false;
    const timers = new Set<NodeJS.Timeout>();
    const later = (ms: number, action: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        action();
      }, ms);
      timers.add(timer);
    };
    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      const swept = scope.end();
      const result: HookProcessResult = { status, exitCode, stdout, stderr, durationMs: elapsed() };
      if (swept > 0) result.sweptProcesses = swept;
      resolve(error === undefined ? result : { ...result, error });
    };

    let terminating = false;
    const terminate = (reason: HookProcessStatus) => {
      if (terminating) return;
      terminating = true;
      status = reason;
      scope.signal('SIGTERM');
      later(options.killGraceMs ?? DEFAULT_KILL_GRACE_MS, () => {
        scope.signal('SIGKILL');
        later(DRAIN_MS, () => settle());
      });
    };
    let exited = false;
    // Once the shell has exited, an abort only cuts the wait for leftover output short.
    const onAbort = () => (exited ? settle() : terminate('aborted'));

    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < limit) stdout += chunk.slice(0, limit - stdout.length);
    });
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < limit) stderr += chunk.slice(0, limit - stderr.length);
    });
    child.stdin.on('error', () => {
      // EPIPE: the hook exited (or closed stdin) without reading its payload; that is its choice.
    });
    child.stdin.end(options.stdin);

    child.on('error', (error) => {
      if (pid !== undefined) return;
      status = 'failed-to-start';
      settle(startError(error, shell, options.cwd));
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code ?? (signal ? 128 + constants.signals[signal] : null);
      if (!terminating) {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        later(DRAIN_MS, () => settle());
      }
    });
    child.on('close', () => settle());
    later(Math.min(options.timeoutMs, MAX_TIMER_MS), () => terminate('timed-out'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Node reports a missing cwd as the shell being missing; say which one it really is. */
function startError(error: Error, shell: string, cwd: string): string {
  if (!existsSync(cwd)) return `its working directory ${cwd} does not exist`;
  return error.message;
}
