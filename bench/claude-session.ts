/**
 * The reading session of context-session.ts run through the reference CLI (`claude -p`) against
 * the replay server: the same files, the same scripted turns, its request bodies recorded. Only
 * the cost benchmark uses it, and only when CI_AGENT_BENCH_CLAUDE names the binary.
 */
import { execa } from 'execa';
import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedRequest } from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';
import {
  SESSION_PROMPT,
  countEditsOnDisk,
  hasTools,
  readingScript,
  writeSessionFiles,
} from './context-session.js';
import type { ScriptOptions } from './context-session.js';

export interface ClaudeSession {
  version: string;
  /** Every POST /v1/messages body, in order. */
  bodies: unknown[];
  /** The bodies that were turns of the script (not summaries or side requests). */
  turnIndexes: number[];
  numTurns: number;
  editsOnDisk: number;
}

/**
 * A summarising request of the reference: its last user message asks for a summary of the
 * conversation (it may keep the tools, so that it shares the cached prefix).
 */
export function isClaudeSummary(request: RecordedRequest): boolean {
  if (!hasTools(request.body)) return true;
  const messages = (request.body as { messages?: { role?: unknown }[] }).messages ?? [];
  const lastUser = messages.findLast((message) => message.role === 'user');
  const text = JSON.stringify(lastUser ?? '');
  return /detailed summary of the conversation/i.test(text) && !text.includes('tool_result');
}

export async function runClaudeSession(
  claude: string,
  options: ScriptOptions,
): Promise<ClaudeSession> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'ci-agent-cost-claude-')));
  const home = await mkdtemp(join(tmpdir(), 'ci-agent-cost-home-'));
  try {
    await writeSessionFiles(root, options);
    const turnIndexes: number[] = [];
    const script = readingScript(root, options, isClaudeSummary);
    const server = await startReplayServer({
      turns: Array.from({ length: options.turns * 3 + 20 }, () => (request: RecordedRequest) => {
        if (!isClaudeSummary(request)) turnIndexes.push(request.index);
        return script.respond(request);
      }),
    });
    const version = (await execa(claude, ['--version'], { reject: false })).stdout.trim();
    const child = await execa(
      claude,
      [
        '-p',
        SESSION_PROMPT,
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'acceptEdits',
        '--max-turns',
        String(options.turns + 5),
      ],
      {
        cwd: root,
        extendEnv: false,
        reject: false,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'x',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
        },
      },
    );
    await server.close();
    const result = child.stdout
      .split('\n')
      .filter((line) => line.includes('"type":"result"'))
      .map((line) => JSON.parse(line) as { num_turns: number; subtype: string })[0];
    if (child.exitCode !== 0 || result?.subtype !== 'success') {
      throw new Error(
        `${claude} failed (exit ${String(child.exitCode)}): ${child.stderr.slice(-800)}`,
      );
    }
    const posts = server.requests.filter(
      (request) => request.method === 'POST' && request.path === '/v1/messages',
    );
    return {
      version,
      bodies: posts.map((request) => request.body),
      turnIndexes: turnIndexes.map((index) => posts.findIndex((post) => post.index === index)),
      numTurns: result.num_turns,
      editsOnDisk: await countEditsOnDisk(script.edited),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}
