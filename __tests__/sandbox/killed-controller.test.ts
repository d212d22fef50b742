/**
 * Nothing the agent started outlives ci-agent, even when ci-agent is killed outright (SIGKILL:
 * no handler of its own runs): the sandbox's bubblewrap dies with it (setpriv --pdeathsig), and
 * the kernel ends the sandbox's PID namespace with it.
 */
import { execa } from 'execa';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TSX = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'tsx');
const CONTROLLER = join(import.meta.dirname, 'fixtures', 'killed-controller.ts');

async function running(marker: string): Promise<string> {
  return (await execa('pgrep', ['-f', marker], { reject: false })).stdout.trim();
}

describe.skipIf(!existsSync('/usr/bin/bwrap'))(
  'a sandboxed command when ci-agent is killed',
  () => {
    it('ends with it', async () => {
      const workspace = mkdtempSync(join(tmpdir(), 'ci-agent-killed-'));
      const marker = `ci-agent-orphan-${randomUUID()}`;
      const controller = execa(TSX, [CONTROLLER, workspace, marker], { reject: false });
      try {
        await new Promise<void>((resolve, reject) => {
          controller.stdout?.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes('running')) resolve();
          });
          void controller.then(() =>
            reject(new Error('the controller ended before its command ran')),
          );
        });
        expect(await running(marker)).not.toBe('');
        // tsx runs the script in a child node: kill the whole controller, not only its launcher.
        const node = (
          await execa('pgrep', ['-f', `${CONTROLLER} ${workspace}`], { reject: false })
        ).stdout
          .split('\n')
          .filter(Boolean);
        for (const pid of node) process.kill(Number(pid), 'SIGKILL');
        let left = await running(marker);
        for (let i = 0; i < 50 && left !== ''; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          left = await running(marker);
        }
        expect(left).toBe('');
      } finally {
        controller.kill('SIGKILL');
        rmSync(workspace, { recursive: true, force: true });
      }
    }, 30_000);
  },
);
