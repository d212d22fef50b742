/**
 * The baseline the process benches measure against: Node's own detached spawn of `bash -c true`,
 * with nothing of execa or runProcess around it.
 */
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the raw spawn is the baseline
import { spawn } from 'node:child_process';

export function bareSpawn(env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', 'true'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.on('close', () => resolve());
  });
}
