/**
 * The host's programs the sandbox is made with (bubblewrap, socat, sudo, apt-get,
 * apparmor_parser), run from ci-agent's own process, never inside the sandbox; they are found on
 * the PATH with util/find-executable.ts.
 */
import { runProcess } from '../process/run-process.js';

export interface ToolRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Why it could not start. */
  error?: string;
}

export async function runHostTool(
  file: string,
  args: readonly string[],
  options: { path: string | undefined; timeoutMs?: number; input?: string },
): Promise<ToolRun> {
  const result = await runProcess({
    file,
    args,
    cwd: '/',
    env: { PATH: options.path ?? '/usr/bin:/bin', LC_ALL: 'C' },
    timeoutMs: options.timeoutMs ?? 30_000,
    scope: 'process-group',
    ...(options.input !== undefined && { stdin: { text: options.input } }),
  }).result;
  return {
    exitCode: result.exitCode,
    stdout: result.stdout.text,
    stderr: result.stderr.text,
    ...(result.error !== undefined && { error: result.error }),
  };
}
