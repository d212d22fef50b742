/**
 * The Bash tool (docs/CC-COMPAT.md §3 Bash). Each call runs one `bash -c` in a process group of its own;
 * only the working directory carries over to the next call, and only inside the workspace.
 *
 * A call: limits from the environment → script wrapped so that the shell reports its final cwd →
 * run, with git's configuration pinned (bash/git-environment.ts) and output relayed as progress
 * → cwd kept or reset → output shaped for the model.
 */
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { readRegularFile } from '../../util/regular-file.js';
import { randomUUID } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { isInsideWorkspace } from '../paths.js';
import { defineTool } from '../tool.js';
import type { ToolContext } from '../tool.js';
import { interpretExitCode } from './bash/exit-code.js';
import { bashFileOperands } from './bash/file-operands.js';
import { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from './bash/limits.js';
import { effectiveTimeoutMs, readBashLimits } from './bash/limits.js';
import type { BashOutput } from './bash/output.js';
import { isNoOutputExpected } from './bash/no-output.js';
import { formatStderr, formatStdout, isErrorOutput, renderBashOutput } from './bash/output.js';
import { possibleWrites } from './bash/possible-writes.js';
import { isReadOnlyCommand } from './bash/read-only.js';
import { readScope } from './bash/read-scope.js';
import type { CommandResult } from './bash/run-command.js';
import { taskLimitNote } from './bash/task-limit.js';

const PROGRESS_INTERVAL_MS = 100;

const inputSchema = z.object({
  command: z.string().describe('The shell command to run'),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(
      `How long the command may run, in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})`,
    ),
  description: z
    .string()
    .optional()
    .describe('What the command does, in 5-10 words, for the log (e.g. "Run the unit tests")'),
  run_in_background: z
    .boolean()
    .optional()
    .describe('Not available in this environment: commands always run in the foreground'),
  _systemTimeoutMs: z
    .number()
    .positive()
    .optional()
    .describe('Set by the system only: a timeout in milliseconds that ignores the usual maximum'),
});

const description = `Runs a command in bash and returns what it printed.

- Every call starts a new shell: variables, functions and options set in one call are gone in the next. The working directory carries over while it stays inside the workspace; a cd that leaves the workspace is undone.
- Standard input is closed. Commands that wait for a person (editors, prompts, interactive rebase) cannot work: use their non-interactive flags.
- A command is stopped after its timeout: ${DEFAULT_TIMEOUT_MS} ms unless you set \`timeout\` (at most ${MAX_TIMEOUT_MS} ms).
- Each of stdout and stderr is cut after ${DEFAULT_MAX_OUTPUT_LENGTH} characters; filter large output (head, tail, grep) before it reaches you.
- For reading, finding and changing files prefer the dedicated file tools over cat, find, grep, sed or echo redirections.
- Quote paths that contain spaces. Join commands that depend on each other with &&; make independent commands separate calls.
- A non-zero exit status comes back as an error whose first line is "Exit code N".
- Background execution is not available: run_in_background is refused.`;

export const bashTool = defineTool({
  name: 'Bash',
  description,
  internalInputSchema: inputSchema,
  hiddenKeys: ['_systemTimeoutMs'],
  isReadOnly: (input) => isReadOnlyCommand(input.command),
  isConcurrencySafe: (input) => isReadOnlyCommand(input.command),
  async validateInput(input) {
    if (input.run_in_background) {
      return {
        result: false,
        message:
          'Background execution is not available in CI. Run the command in the foreground (leave out run_in_background); raise timeout if it needs longer.',
        errorCode: 1,
      };
    }
    if (input.command.trim() === '') {
      return { result: false, message: 'The command is empty.', errorCode: 2 };
    }
    return { result: true };
  },
  checkPermissions(input, context) {
    // The files it names, for Read/Edit deny and ask rules (bash/file-operands.ts).
    const fileOperands = bashFileOperands(input.command, {
      cwd: context.shell.cwd,
      homeDir: context.env.HOME ?? homedir(),
      env: context.env,
    });
    const readOnly = isReadOnlyCommand(input.command);
    // What it may change that its words do not show, for the judges floor (fails closed).
    const mayWrite = readOnly
      ? []
      : possibleWrites(input.command, {
          cwd: context.shell.cwd,
          homeDir: context.env.HOME ?? homedir(),
          env: context.env,
        });
    // What a read-only command reads, for the mode default's workspace check.
    const scope = readOnly
      ? readScope(input.command, {
          cwd: context.shell.cwd,
          homeDir: context.env.HOME ?? homedir(),
          env: context.env,
          workspaceRoots: context.workspaceRoots,
        })
      : undefined;
    return {
      access: readOnly ? 'read' : 'execute',
      ruleContent: input.command,
      ...(fileOperands.length > 0 && { fileOperands }),
      ...(mayWrite.length > 0 && { mayWrite }),
      ...(scope && scope.paths.length > 0 && { paths: scope.paths }),
      ...(scope && scope.outside.length > 0 && { readsOutside: scope.outside }),
    };
  },
  async *call(input, context) {
    // Running a command loads with the first call, not at start-up (docs/ARCHITECTURE.md,
    // "Start-up"); the permission side above stays loaded, since it is synchronous.
    const [{ runCommand }, { withGitPins }, { ProgressFeed, relayProgress }] = await Promise.all([
      import('./bash/run-command.js'),
      import('./bash/git-environment.js'),
      import('./bash/progress.js'),
    ]);
    const limits = readBashLimits(context.env);
    const timeoutMs = input._systemTimeoutMs ?? effectiveTimeoutMs(input.timeout, limits);
    const cwdReset = restoreMissingCwd(context);
    // Inside the sandbox /tmp is its private one: the shell writes there, this process reads
    // the same file where that folder is.
    const cwdName = `ci-agent-cwd-${randomUUID()}`;
    const { sandbox } = context;
    const cwdFile = sandbox ? sandbox.hostPath(`/tmp/${cwdName}`) : join(tmpdir(), cwdName);
    const feed = new ProgressFeed();
    const networkMark = sandbox?.networkMark();
    const running = runCommand({
      shell: shellPath(),
      script: reportingCwd(input.command, sandbox ? `/tmp/${cwdName}` : cwdFile),
      cwd: context.shell.cwd,
      env: withGitPins(sandbox ? { ...context.env, ...sandbox.env } : context.env, input.command),
      ...(sandbox && { sandbox }),
      timeoutMs,
      signal: context.signal,
      maxOutputChars: limits.maxOutputLength,
      onOutput: (chunk) => feed.push(chunk),
    });
    let result: CommandResult | undefined;
    let cwdResetTo = cwdReset;
    try {
      result = yield* relayProgress(running.result, feed, PROGRESS_INTERVAL_MS);
      if (result.outcome === 'exited') {
        cwdResetTo = (await adoptFinalCwd(cwdFile, context)) ?? cwdReset;
      }
    } finally {
      // The consumer went away before the command settled: stop the process group and wait
      // until it is gone, so nothing keeps running behind a finished call.
      if (!result) {
        running.stop();
        await running.result;
      }
      await rm(cwdFile, { force: true });
    }
    const refused =
      sandbox && networkMark !== undefined ? sandbox.networkRefusalsSince(networkMark) : [];
    return {
      data: toOutput(input.command, result, timeoutMs, cwdResetTo, refused, sandbox?.maxTasks),
    };
  },
  mapToolResultToToolResultBlockParam: (output: BashOutput, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: renderBashOutput(output),
    ...(isErrorOutput(output) ? { is_error: true } : {}),
  }),
});

let cachedShell: string | undefined;

function shellPath(): string {
  return (cachedShell ??= existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');
}

/**
 * Prefixes an EXIT trap that writes the shell's final directory to `cwdFile`. The trap runs on
 * the command's own `exit N` too and leaves the exit status alone; on the same line as the
 * command, so line numbers in error messages stay those of the command.
 */
export function reportingCwd(command: string, cwdFile: string): string {
  const report = `pwd -P >| ${shellQuote(cwdFile)} 2>/dev/null`;
  return `trap ${shellQuote(report)} EXIT; ${command}`;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A cwd deleted since the last call cannot be started in: fall back to the project directory. */
function restoreMissingCwd(context: ToolContext): string | undefined {
  if (isDirectory(context.shell.cwd)) return undefined;
  context.shell.cwd = context.projectDir;
  return context.projectDir;
}

/**
 * Takes the directory the command ended in as the next call's cwd when it is inside the
 * workspace. Returns the directory kept instead when the command ended outside.
 */
async function adoptFinalCwd(cwdFile: string, context: ToolContext): Promise<string | undefined> {
  // The command can replace the file (the sandbox's /tmp is its own): never a FIFO to wait on.
  const reported = await readRegularFile(cwdFile, 'utf8').catch(() => '');
  const finalCwd = reported.endsWith('\n') ? reported.slice(0, -1) : reported;
  // No report: the command replaced the shell (exec), set its own EXIT trap, or was killed.
  if (finalCwd === '' || finalCwd === context.shell.cwd) return undefined;
  if (isInsideWorkspace(finalCwd, context.workspaceRoots)) {
    context.shell.cwd = finalCwd;
    return undefined;
  }
  return context.shell.cwd;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function toOutput(
  command: string,
  result: CommandResult,
  timeoutMs: number,
  cwdReset: string | undefined,
  networkRefusals: readonly string[] = [],
  maxTasks?: number,
): BashOutput {
  const interrupted = result.outcome === 'timed-out' || result.outcome === 'aborted';
  const notes: string[] = [];
  if (result.outcome === 'timed-out') notes.push(`Command timed out after ${timeoutMs / 1000}s`);
  if (result.outcome === 'failed-to-start')
    notes.push(`The shell could not start: ${result.error}`);
  for (const refusal of networkRefusals)
    notes.push(`The sandbox's network proxy refused: ${refusal}`);
  if (result.judgesRemoved)
    notes.push(
      `Permission denied: the command created ${result.judgesRemoved.join(', ')}, where the files that configure and check this run (policy, settings, MCP servers, CI workflows, git's configuration) live; they are not the agent's to change, and the sandbox removed what was created`,
    );
  const taskLimit = taskLimitNote(result.stderr.text, maxTasks);
  if (taskLimit) notes.push(taskLimit);
  if (result.sandboxFailed)
    notes.push(
      "The sandbox could not be set up for this command, so it did not run (the message above is the sandbox's, not the command's)",
    );
  const stderr = [...notes, formatStderr(result.stderr)];
  if (result.outcome === 'aborted')
    stderr.push('<error>Command was aborted before completion</error>');
  const exitCode = result.outcome === 'exited' ? result.exitCode : null;
  const returnCodeInterpretation = interpretExitCode(command, exitCode);
  return {
    stdout: formatStdout(result.stdout),
    stderr: stderr.filter((part) => part !== '').join('\n'),
    interrupted,
    isImage: false,
    noOutputExpected: isNoOutputExpected(command),
    exitCode,
    ...(returnCodeInterpretation !== undefined ? { returnCodeInterpretation } : {}),
    ...(cwdReset !== undefined ? { cwdReset } : {}),
  };
}
