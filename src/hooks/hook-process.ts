/**
 * Runs one hook command the way Claude Code does (docs/CC-COMPAT.md §1.4), through the process module
 * (process/run-process.ts), which owns its lifetime.
 *
 * Sequence:
 *   1. run `/bin/sh -c <command>` in a process scope of its own, leading a process group;
 *   2. write the payload to stdin (compact JSON, no trailing newline) and close it; a hook that
 *      exits without reading gives EPIPE, which is not an error;
 *   3. on timeout or abort: SIGTERM to the group, SIGKILL after a grace period;
 *   4. settle when stdout and stderr close. If the shell has exited but something it left in
 *      the background still holds them open, settle after a short drain with what was read;
 *   5. on settling, end the scope: nothing the hook started outlives it.
 */
import { existsSync } from 'node:fs';
import type { ProcessScopeMechanism } from '../process/process-scope.js';
import { runProcess, type CommandSandbox } from '../process/run-process.js';

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
  /** Default: the best this process can have (process/process-scope.ts). */
  processScope?: ProcessScopeMechanism;
  /** The OS sandbox: a hook is trusted configuration, but it runs over what the agent wrote. */
  sandbox?: CommandSandbox;
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

export async function runHookProcess(options: HookProcessOptions): Promise<HookProcessResult> {
  const shell = options.shell ?? '/bin/sh';
  // In a scope the shell is started by a wrapper, whose failure would not name the shell.
  if (!options.signal?.aborted && !existsSync(shell)) {
    return notStarted(`the shell ${shell} does not exist`, 0);
  }
  const done = await runProcess({
    file: shell,
    args: ['-c', options.command],
    cwd: options.cwd,
    env: options.sandbox ? { ...options.env, ...options.sandbox.env } : options.env,
    stdin: { text: options.stdin },
    ...(options.sandbox && { sandbox: options.sandbox }),
    timeoutMs: options.timeoutMs,
    ...(options.signal && { signal: options.signal }),
    maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    drainGraceMs: DRAIN_MS,
    afterExit: 'kill',
    abandonAfterKillMs: DRAIN_MS,
    ...(options.processScope && { scope: options.processScope }),
  }).result;
  if (done.outcome === 'failed-to-start') {
    const error = startError(done.error ?? 'it could not be started', options.cwd);
    return notStarted(error, done.durationMs);
  }
  const result: HookProcessResult = {
    status: done.outcome,
    exitCode: done.exitCode,
    stdout: done.stdout.text,
    stderr: done.stderr.text,
    durationMs: done.durationMs,
  };
  if (done.sweptProcesses > 0) result.sweptProcesses = done.sweptProcesses;
  return result;
}

function notStarted(error: string, durationMs: number): HookProcessResult {
  return { status: 'failed-to-start', exitCode: null, stdout: '', stderr: '', durationMs, error };
}

/** Node reports a missing cwd as the shell being missing; say which one it really is. */
function startError(message: string, cwd: string): string {
  if (!existsSync(cwd)) return `its working directory ${cwd} does not exist`;
  return message;
}
