/**
 * Test support for MCP: the reference servers installed from npm, a way to tell whether a
 * process (group) is still there, and server-everything over streamable HTTP on loopback.
 */
import { execa } from 'execa';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SPAWN_LIKE } from '../helpers/spawn-like.js';
import type { McpServerConfig } from '../../src/mcp/server-config.js';

const BIN = join(process.cwd(), 'node_modules', '.bin');
export const EVERYTHING_BIN = join(BIN, 'mcp-server-everything');
export const FILESYSTEM_BIN = join(BIN, 'mcp-server-filesystem');

export type StdioConfig = Extract<McpServerConfig, { type: 'stdio' }>;

export const everythingStdio: StdioConfig = {
  type: 'stdio',
  command: EVERYTHING_BIN,
  args: [],
  env: {},
};

export function filesystemStdio(root: string): StdioConfig {
  return { type: 'stdio', command: FILESYSTEM_BIN, args: [root], env: {} };
}

/** Whether any process of the group led by `pid` is still alive (zombies aside). */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls (without sleeping the test on a fixed delay) until the group is gone, or gives up. */
export async function waitForGroupGone(pid: number, withinMs = 5_000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (!groupAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !groupAlive(pid);
}

/** Ids of the live processes whose command line contains `marker` (Linux /proc). */
export function processesRunning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (commandLine.includes(marker) && state !== 'Z') found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface HttpEverything {
  url: string;
  stop(): Promise<void>;
}

/** server-everything over streamable HTTP (or the older SSE transport) on a free loopback port. */
export async function startHttpEverything(
  transport: 'streamableHttp' | 'sse' = 'streamableHttp',
): Promise<HttpEverything> {
  const port = await freePort();
  const child: ChildProcess = execa(EVERYTHING_BIN, [transport], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    ...SPAWN_LIKE,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no listen line: ${seen}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/(listening|running) on port/.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${seen}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`,
    stop: async () => {
      const pid = child.pid;
      if (pid === undefined) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await waitForGroupGone(pid);
    },
  };
}
