/**
 * Runs one shell script through the process module (process/run-process.ts), which owns its
 * lifetime: `<shell> -c <script>` in a process scope of its own, stdin /dev/null, stdout and
 * stderr kept apart up to the output limit; on timeout or abort SIGTERM to the group, SIGKILL
 * after `killGraceMs`; background work that still holds the output open when the shell exits
 * is stopped the same way after `drainGraceMs` (it outlives no call: there is no way to collect
 * its output later); nothing the script started outlives the call.
 */
import type { ProcessScopeKind, ProcessScopeMechanism } from '../../../process/process-scope.js';
import { runProcess, type CommandWrapper } from '../../../process/run-process.js';
import type { HeadBuffer } from './output.js';

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
  /** Default: the best this process can have (process/process-scope.ts). */
  processScope?: ProcessScopeMechanism;
  /** The OS sandbox to run the shell in. */
  sandbox?: CommandWrapper;
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
  processScope: ProcessScopeKind;
  /** Processes the sweep had to kill after the call (left the group, or outlived the shell). */
  sweptProcesses: number;
  /** The sandbox could not be set up for this call: the command did not run. */
  sandboxFailed?: boolean;
  /** Judges the command created where there were none: the sandbox removed them. */
  judgesRemoved?: readonly string[];
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

export function runCommand(options: RunCommandOptions): RunningCommand {
  const running = runProcess({
    file: options.shell,
    args: ['-c', options.script],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    maxOutputChars: options.maxOutputChars,
    ...(options.onOutput && { onStdout: options.onOutput, onStderr: options.onOutput }),
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    drainGraceMs: options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS,
    afterExit: 'terminate',
    ...(options.processScope && { scope: options.processScope }),
    ...(options.sandbox && { sandbox: options.sandbox }),
  });
  const result = running.result.then((done): CommandResult => ({
    outcome: done.outcome,
    exitCode: done.exitCode,
    stdout: done.stdout,
    stderr: done.stderr,
    ...(done.error !== undefined && { error: done.error }),
    processScope: done.scope,
    sweptProcesses: done.sweptProcesses,
    ...(done.undone && { judgesRemoved: done.undone }),
    ...(options.sandbox?.isSetupFailure({
      exitCode: done.exitCode,
      stderr: done.stderr.text,
    }) && { sandboxFailed: true }),
  }));
  return { pid: running.pid, result, stop: () => running.stop() };
}
