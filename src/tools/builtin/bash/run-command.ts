/**
 * Runs one shell script in a process scope of its own (util/process-scope.ts) and stops it
 * whole when needed.
 *
 * Sequence of a run:
 *   1. spawn `<shell> -c <script>` in the scope, leading a new process group; stdin is
 *      /dev/null, stdout and stderr are read separately into bounded buffers;
 *   2. on timeout or abort: SIGTERM to the group, SIGKILL after `killGraceMs` to the group and
 *      to whatever else of the scope still runs;
 *   3. when the shell exits but something it started in the background still holds the output
 *      open, that group is stopped the same way after `drainGraceMs` (background work outlives
 *      no call: there is no way to collect its output later);
 *   4. the result settles once the output is closed, and after a termination once no process of
 *      the group runs any more (or a second after SIGKILL, for one that cannot be killed);
 *   5. before it settles, the scope is ended: nothing the script started outlives the call.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { scopeCommand, type ProcessScopeMechanism } from '../../../util/process-scope.js';
import { HeadBuffer } from './output.js';

export interface RunCommandOptions {
  shell: string;
  script: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Characters kept per stream. */
  maxOutputChars: number;
  killGraceMs?: number;
  drainGraceMs?: number;
  onOutput?: (chunk: string) => void;
  /** Default: the best this process can have (util/process-scope.ts). */
  processScope?: ProcessScopeMechanism;
}

export type CommandOutcome = 'exited' | 'timed-out' | 'aborted' | 'failed-to-start';

export interface CommandResult {
  outcome: CommandOutcome;
  /** Exit status, or 128 + signal number when the shell died of a signal. */
  exitCode: number | null;
  stdout: HeadBuffer;
  stderr: HeadBuffer;
  /** Why the shell could not start (outcome failed-to-start). */
  error?: string;
  /** What made sure nothing outlived the call. */
  processScope: ProcessScopeMechanism;
  /** Processes the sweep had to kill after the call (left the group, or outlived the shell). */
  sweptProcesses: number;
}

export interface RunningCommand {
  /** The spawned process's pid (the shell, or unshare in a PID namespace): the group id. */
  pid: number | undefined;
  result: Promise<CommandResult>;
  /** Stops the group as an abort does; for a consumer that goes away early. */
  stop(): void;
}

const DEFAULT_KILL_GRACE_MS = 2_000;
const DEFAULT_DRAIN_GRACE_MS = 500;
/**
 * After SIGKILL the group is waited for this long at most: output still held open then belongs
 * to a process that left the group, and a member still there cannot be killed (uninterruptible).
 */
const ABANDON_AFTER_KILL_MS = 1_000;
const GROUP_POLL_MS = 20;

export function runCommand(options: RunCommandOptions): RunningCommand {
  const stdout = new HeadBuffer(options.maxOutputChars);
  const stderr = new HeadBuffer(options.maxOutputChars);
  const scoped = scopeCommand(
    options.shell,
    ['-c', options.script],
    options.env,
    options.processScope,
  );
  const { scope } = scoped;
  const base = { stdout, stderr, processScope: scope.mechanism, sweptProcesses: 0 };
  if (options.signal.aborted) {
    const result = { ...base, outcome: 'aborted' as const, exitCode: null };
    return { pid: undefined, result: Promise.resolve(result), stop: () => {} };
  }
  const child = spawn(scoped.file, scoped.args, {
    cwd: options.cwd,
    env: scoped.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  scope.attach(pid);
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };

  let outcome: CommandOutcome = 'exited';
  let exitCode: number | null = null;
  let terminating = false;
  /** Set when SIGKILL did not end the group in time: something left it or cannot die. */
  let gaveUp = false;
  let closed = false;
  let settle: (result: CommandResult) => void = () => {};
  let swept = 0;
  const result = new Promise<CommandResult>((resolve) => {
    settle = (value) => {
      for (const timer of timers) clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      swept += scope.end();
      resolve({ ...value, sweptProcesses: swept });
    };
  });
  const finish = () => settle({ ...base, outcome, exitCode });

  const sendKill = () => {
    // The whole scope, not only the group: what left it may be what holds the output open.
    scope.signal('SIGKILL');
    swept += scope.end();
    later(ABANDON_AFTER_KILL_MS, () => {
      gaveUp = true;
      if (closed) finish();
      else {
        child.stdout.destroy();
        child.stderr.destroy();
      }
    });
  };
  const terminate = (reason: CommandOutcome) => {
    if (terminating) return;
    terminating = true;
    if (reason !== 'exited') outcome = reason;
    scope.signal('SIGTERM');
    later(killGraceMs, sendKill);
  };
  const onAbort = () => terminate('aborted');

  for (const [stream, buffer] of [
    [child.stdout, stdout],
    [child.stderr, stderr],
  ] as const) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer.append(chunk);
      options.onOutput?.(chunk);
    });
  }
  child.on('error', (error) => {
    if (pid !== undefined) return;
    outcome = 'failed-to-start';
    settle({ ...base, outcome, exitCode: null, error: error.message });
  });
  child.on('exit', (code, signal) => {
    exitCode = code ?? (signal ? 128 + constants.signals[signal] : null);
    if (!terminating)
      later(options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS, () => terminate('exited'));
  });
  // After a termination the run is over once no member of the group runs any more: one that
  // survives SIGTERM gets its SIGKILL first, and one that has just closed its output may need a
  // moment more to finish exiting.
  const finishWhenGroupGone = () => {
    if (gaveUp || pid === undefined || !scope.groupRuns()) finish();
    else later(GROUP_POLL_MS, finishWhenGroupGone);
  };
  child.on('close', () => {
    closed = true;
    if (terminating) finishWhenGroupGone();
    else finish();
  });
  later(options.timeoutMs, () => terminate('timed-out'));
  options.signal.addEventListener('abort', onAbort, { once: true });
  return { pid, result, stop: () => terminate('aborted') };
}
