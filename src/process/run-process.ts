/**
 * The one place ci-agent starts a child process (the OS sandbox of a later issue wraps this
 * function): the Bash tool, hooks, git, ripgrep, MCP stdio servers and the system prompt's git
 * calls all come through `runProcess`, which owns the process's lifetime.
 *
 * Sequence of a run:
 *   1. spawn (execa) the command in a process scope of its own (process-scope.ts), leading a new
 *      process group; stdin is /dev/null, a text written and closed, or a pipe left open; stdout
 *      and stderr are read separately, each into a buffer that keeps its head and counts the rest
 *      (head-buffer.ts), and handed on chunk by chunk to whoever streams them;
 *   2. on timeout, abort or `stop()`: SIGTERM to the group, SIGKILL after `killGraceMs` to the
 *      group and to whatever else of the scope still runs;
 *   3. when the leader exits but something it started in the background still holds the output
 *      open, that is given `drainGraceMs`; then either the group is stopped as in 2
 *      (`afterExit: 'terminate'`) or the run settles with what was read (`'kill'`);
 *   4. the result settles once the output is closed, and after a termination once no process of
 *      the group runs any more (or `abandonAfterKillMs` after SIGKILL, for one that cannot be
 *      killed or that left the group holding the output);
 *   5. before it settles, the scope is ended: nothing the command started outlives the call.
 *
 * execa's own `timeout`, `cancelSignal` and `forceKillAfterDelay` are not used: they signal the
 * one process execa started, and a shell's children, or the init of a PID namespace, would be
 * left to themselves. Here every signal goes to the group, and ending the scope covers the rest.
 */
import { execa, type ResultPromise } from 'execa';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { errorMessage } from '../util/errors.js';
import { HeadBuffer } from './head-buffer.js';
import { scopeCommand, type ProcessScopeKind } from './process-scope.js';

/**
 * What runs a command inside a boundary of its own (the OS sandbox, src/sandbox/): the command
 * in, what to spawn instead out. The wrapper owns the process's scope: its PID namespace ends
 * whatever the command left, so the call's scope is the process group bubblewrap leads.
 */
export interface CommandWrapper {
  wrap(file: string, args: readonly string[], cwd: string): { file: string; args: string[] };
  /** Whether a run's failure was the wrapper's own (it could not set up), not the command's. */
  isSetupFailure(result: { exitCode: number | null; stderr: string }): boolean;
  /**
   * Once nothing of a run is left in the boundary: undoes what it must not have done (the
   * sandbox removes judges that appeared) and says what, for `ProcessResult.undone`.
   */
  afterRun?(): readonly string[];
}

/** A wrapper with the variables every command run in it gets (the sandbox's TMPDIR, proxy). */
export interface CommandSandbox extends CommandWrapper {
  readonly env: Readonly<Record<string, string>>;
}

export interface RunProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment of the process: nothing else is inherited. */
  env: Readonly<Record<string, string>>;
  /** 'ignore' (default): /dev/null; `{ text }`: written, then closed; 'pipe': `stdin` stays open. */
  stdin?: 'ignore' | 'pipe' | { text: string };
  /** Default: none (a long-lived server). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Characters of each stream kept; the rest is counted and dropped. Default: all. */
  maxOutputChars?: number;
  /** Characters of stderr kept, when not maxOutputChars. */
  maxStderrChars?: number;
  /** Every chunk of text as it arrives. */
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
  /** Takes stdout as bytes instead: it is then neither decoded nor kept. */
  onStdoutBytes?: (chunk: Buffer) => void;
  /** SIGTERM to SIGKILL; default 2000 ms. */
  killGraceMs?: number;
  /** After the leader exits, how long output held open by a leftover is read; default 500 ms. */
  drainGraceMs?: number;
  /** What ends a drain that ran out (3. above); default 'kill'. */
  afterExit?: 'terminate' | 'kill';
  /** After SIGKILL, how long the output and the group are waited for; default 1000 ms. */
  abandonAfterKillMs?: number;
  /** Default: the best this process can have (process-scope.ts). */
  scope?: ProcessScopeKind;
  /** Runs the command inside it (the sandbox); the scope is then the sandbox's. */
  sandbox?: CommandWrapper;
}

export type ProcessOutcome = 'exited' | 'timed-out' | 'aborted' | 'failed-to-start';

export interface ProcessResult {
  outcome: ProcessOutcome;
  /** Exit status, or 128 + signal number when the leader died of a signal. */
  exitCode: number | null;
  /** The signal the leader died of. */
  exitSignal: NodeJS.Signals | null;
  stdout: HeadBuffer;
  stderr: HeadBuffer;
  /** Why the process could not start (outcome failed-to-start). */
  error?: string;
  /** What made sure nothing outlived the call. */
  scope: ProcessScopeKind;
  /** Processes the sweep had to kill after the call (left the group, or outlived the leader). */
  sweptProcesses: number;
  durationMs: number;
  /** What the wrapper undid after the run (`CommandWrapper.afterRun`); absent when nothing. */
  undone?: readonly string[];
}

export interface LeaderExit {
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
}

export interface RunningProcess {
  /** The spawned process's pid (unshare in a PID namespace): the group id too. */
  pid: number | undefined;
  /** Settles when the run is over (step 4), never rejects. */
  result: Promise<ProcessResult>;
  /** Resolves when the leader is running; rejects with why it could not start. */
  started: Promise<void>;
  /** Resolves when the leader exits (or never started); the output may still be open. */
  exited: Promise<LeaderExit>;
  /** Open with `stdin: 'pipe'`. */
  stdin: Writable | undefined;
  /** Stops the group as an abort does (SIGTERM, grace, SIGKILL). */
  stop(): void;
  /** SIGKILL to the group and the scope, now. */
  kill(): void;
}

const DEFAULT_KILL_GRACE_MS = 2_000;
const DEFAULT_DRAIN_GRACE_MS = 500;
const DEFAULT_ABANDON_AFTER_KILL_MS = 1_000;
const GROUP_POLL_MS = 20;
/** setTimeout fires at once for longer delays; a timeout of about 24 days is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function runProcess(options: RunProcessOptions): RunningProcess {
  const startedAt = performance.now();
  const stdout = new HeadBuffer(options.maxOutputChars ?? Infinity);
  const stderr = new HeadBuffer(options.maxStderrChars ?? options.maxOutputChars ?? Infinity);
  const wrapped = options.sandbox?.wrap(options.file, options.args, options.cwd);
  const scoped = wrapped
    ? scopeCommand(wrapped.file, wrapped.args, options.env, 'sandbox')
    : scopeCommand(options.file, options.args, options.env, options.scope);
  const { scope } = scoped;
  const snapshot = (outcome: ProcessOutcome, exit: LeaderExit, swept: number): ProcessResult => ({
    outcome,
    ...exit,
    stdout,
    stderr,
    scope: scope.mechanism,
    sweptProcesses: swept,
    durationMs: Math.round(performance.now() - startedAt),
  });
  const notRun = (outcome: ProcessOutcome, error?: string): RunningProcess => {
    const exit = { exitCode: null, exitSignal: null };
    const result = { ...snapshot(outcome, exit, 0), ...(error !== undefined && { error }) };
    const started = Promise.reject(
      new Error(error ?? 'the process was cancelled before it started'),
    );
    started.catch(() => undefined);
    return {
      pid: undefined,
      result: Promise.resolve(result),
      started,
      exited: Promise.resolve(exit),
      stdin: undefined,
      stop: () => {},
      kill: () => {},
    };
  };
  if (options.signal?.aborted) return notRun('aborted');

  let child: ResultPromise;
  try {
    child = execa(scoped.file, scoped.args, {
      cwd: options.cwd,
      env: scoped.env,
      extendEnv: false,
      stdin: options.stdin === undefined || options.stdin === 'ignore' ? 'ignore' : 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      detached: true,
      // The streams are read here, as they come; execa's buffering and rejection would only
      // duplicate what the result below reports.
      buffer: false,
      reject: false,
      cleanup: false,
    });
  } catch (error) {
    // Arguments refused outright, such as a NUL byte in the command.
    return notRun('failed-to-start', errorMessage(error));
  }
  // Settled through the events below; execa's own promise carries nothing more.
  child.catch(() => undefined);
  const pid = child.pid;
  scope.attach(pid);

  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, action: () => void): NodeJS.Timeout => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        action();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    timers.add(timer);
    return timer;
  };

  let outcome: ProcessOutcome = 'exited';
  let exit: LeaderExit = { exitCode: null, exitSignal: null };
  let exited = false;
  let terminating = false;
  let settled = false;
  let swept = 0;
  let error: string | undefined;
  let markExited: (exit: LeaderExit) => void = () => {};
  const exitedPromise = new Promise<LeaderExit>((resolve) => (markExited = resolve));
  let markStarted: (error?: Error) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    markStarted = (failure) => (failure ? reject(failure) : resolve());
  });
  started.catch(() => undefined);

  let resolveResult: (result: ProcessResult) => void = () => {};
  const result = new Promise<ProcessResult>((resolve) => (resolveResult = resolve));
  const settle = () => {
    if (settled) return;
    settled = true;
    for (const timer of timers) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    child.stdout?.destroy();
    child.stderr?.destroy();
    swept += scope.end();
    const undone = options.sandbox?.afterRun?.() ?? [];
    const value = {
      ...snapshot(outcome, exit, swept),
      ...(undone.length > 0 && { undone }),
    };
    resolveResult(error === undefined ? value : { ...value, error });
  };

  const sendKill = () => {
    // The whole scope, not only the group: what left it may be what holds the output open.
    scope.signal('SIGKILL');
    swept += scope.end();
    later(options.abandonAfterKillMs ?? DEFAULT_ABANDON_AFTER_KILL_MS, settle);
  };
  const terminate = (reason: ProcessOutcome) => {
    if (terminating || settled) return;
    terminating = true;
    if (reason !== 'exited') outcome = reason;
    scope.signal('SIGTERM');
    later(killGraceMs, sendKill);
  };
  const afterExit = options.afterExit ?? 'kill';
  // Once the leader has exited (and the run would only wait for leftover output), an abort
  // just cuts that wait short.
  const onAbort = () => (exited && afterExit === 'kill' ? settle() : terminate('aborted'));

  if (options.onStdoutBytes) {
    const onBytes = options.onStdoutBytes;
    child.stdout?.on('data', (chunk: Buffer) => onBytes(chunk));
  } else {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout.append(chunk);
      options.onStdout?.(chunk);
    });
  }
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr.append(chunk);
    options.onStderr?.(chunk);
  });
  // EPIPE: the process exited (or closed stdin) without reading it all; its exit is what counts.
  child.stdin?.on('error', () => undefined);
  if (typeof options.stdin === 'object') child.stdin?.end(options.stdin.text);

  child.on('spawn', () => markStarted());
  child.on('error', (failure) => {
    if (pid !== undefined) return;
    outcome = 'failed-to-start';
    error = failure.message;
    markStarted(failure);
    markExited(exit);
    settle();
  });
  child.on('exit', (code, signal) => {
    exited = true;
    exit = {
      exitCode: code ?? (signal ? 128 + constants.signals[signal] : null),
      exitSignal: signal,
    };
    markExited(exit);
    if (terminating) return;
    // The leader finished first: a timeout from now on would misreport how it ended.
    clearTimeout(timeout);
    const drainMs = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
    later(drainMs, afterExit === 'terminate' ? () => terminate('exited') : settle);
  });
  // After a termination the run is over once no member of the group runs any more: one that
  // survives SIGTERM gets its SIGKILL first, and one that has just closed its output may need a
  // moment more to finish exiting.
  const settleWhenGroupGone = () => {
    if (pid === undefined || !scope.groupRuns()) settle();
    else later(GROUP_POLL_MS, settleWhenGroupGone);
  };
  child.on('close', () => {
    if (terminating) settleWhenGroupGone();
    else settle();
  });
  const timeout =
    options.timeoutMs === undefined
      ? undefined
      : later(options.timeoutMs, () => terminate('timed-out'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    pid,
    result,
    started,
    exited: exitedPromise,
    stdin: child.stdin ?? undefined,
    stop: () => terminate('aborted'),
    kill: () => {
      if (settled) return;
      terminating = true;
      sendKill();
    },
  };
}

/** ci-agent's own environment, for a command that inherits it (the loopback GitHub's git). */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined) env[name] = value;
  return env;
}

/** A short command that did not end with status 0. */
export class ProcessFailed extends Error {
  override readonly name = 'ProcessFailed';
  constructor(
    readonly command: readonly string[],
    readonly result: ProcessResult,
  ) {
    const how =
      result.outcome === 'failed-to-start'
        ? `could not start: ${result.error ?? 'no reason given'}`
        : result.outcome === 'exited'
          ? `exited with status ${result.exitCode}`
          : `was stopped (${result.outcome})`;
    const stderr = result.stderr.text.trim();
    super(`Command failed: ${command.join(' ')}: ${how}${stderr ? `: ${stderr}` : ''}`);
  }
}

/**
 * Runs a short command to its end in its own process group and returns its stdout; throws
 * ProcessFailed, naming the command, how it ended and its stderr, unless it exited with 0.
 */
export async function processOutput(
  options: Omit<RunProcessOptions, 'scope'> & { scope?: ProcessScopeKind },
): Promise<string> {
  const result = await runProcess({ scope: 'process-group', ...options }).result;
  if (result.outcome !== 'exited' || result.exitCode !== 0) {
    throw new ProcessFailed([options.file, ...options.args], result);
  }
  return result.stdout.text;
}
