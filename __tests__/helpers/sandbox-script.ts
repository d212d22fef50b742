/**
 * What the sandbox attack tests share: a policy sandbox section with nothing allowed, and a
 * bash script run in a real sandbox as a test command the agent wrote would run, with what it
 * printed and what the sandbox undid after it.
 */
import { runProcess } from '../../src/process/run-process.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

export const EMPTY_SANDBOX_POLICY = {
  allowedDomains: [],
  allowWrite: [],
  denyWrite: [],
  denyRead: [],
  allowRead: [],
};

export async function runInSandbox(sandbox: Sandbox, cwd: string, script: string) {
  const done = await runProcess({
    file: '/bin/bash',
    args: ['-c', script],
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', ...sandbox.env },
    sandbox,
    timeoutMs: 20_000,
  }).result;
  return { output: `${done.stdout.text}${done.stderr.text}`, undone: done.undone ?? [] };
}
