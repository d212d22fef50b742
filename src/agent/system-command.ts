/**
 * Commands the system itself runs (the configured test command, a verification after the run)
 * go through the Bash tool like the model's, with the same secret-free environment and
 * process-group handling, but with the hidden `_systemTimeoutMs`: a test suite may need longer
 * than the 10 minutes a model's call may take. The model can never set that key.
 */
import { realpathSync } from 'node:fs';
import type { BashOutput } from '../tools/builtin/bash/output.js';
import { bashTool } from '../tools/builtin/bash.js';
import { FileStateCache } from '../tools/file-state.js';
import type { SandboxView, ToolContext } from '../tools/tool.js';
import { sandboxEnvironment } from '../sandbox/tool-environment.js';
import { buildChildEnv } from '../util/child-env.js';

export interface SystemCommandResult {
  exitCode: number | null;
  /** What the model would have seen: stdout, stderr and notes, capped. */
  output: string;
  /** Stopped by its timeout or the signal before it finished. */
  interrupted: boolean;
}

export async function runSystemCommand(
  command: string,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    signal?: AbortSignal;
    sandbox?: SandboxView;
    /** Names the policy passes to tools although they are not on the sandbox's allow-list. */
    passEnv?: readonly string[];
  },
): Promise<SystemCommandResult> {
  const root = realpathSync(options.cwd);
  const context: ToolContext = {
    projectDir: root,
    workspaceRoots: [root],
    shell: { cwd: root },
    fileState: new FileStateCache(),
    signal: options.signal ?? new AbortController().signal,
    toolUseId: 'system',
    env: options.sandbox
      ? sandboxEnvironment(options.env, options.passEnv)
      : buildChildEnv(options.env, options.passEnv),
    ripgrepPath: null,
    ...(options.sandbox && { sandbox: options.sandbox }),
  };
  const input = bashTool.internalInputSchema.parse({
    command,
    _systemTimeoutMs: options.timeoutMs,
  });
  const generator = bashTool.call(input, context);
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  const data = step.value.data as BashOutput;
  const block = bashTool.mapToolResultToToolResultBlockParam(data, 'system');
  return {
    exitCode: data.exitCode,
    output: typeof block.content === 'string' ? block.content : '',
    interrupted: data.interrupted,
  };
}
