/**
 * The host's programs the sandbox is made with, found and run from ci-agent's own process
 * (never inside the sandbox): bubblewrap, socat, sudo, apt-get, apparmor_parser.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from '../process/run-process.js';

/** The first executable file named `name` on `path`, as a shell would find it. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const folder of (path ?? '').split(':')) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

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
