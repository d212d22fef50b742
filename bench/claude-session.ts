/**
 * A scripted session run through the reference CLI (`claude -p`) against the replay server, its
 * request bodies recorded. Only the cost benchmark uses it, and only when CI_AGENT_BENCH_CLAUDE
 * names the binary.
 */
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedRequest, ReplayScriptEntry } from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';
import { SUMMARY_SYSTEM_PROMPT } from '../src/agent/context/compaction.js';
import { hasTools } from './context-session.js';

export interface ClaudeRun {
  version: string;
  /** Every POST /v1/messages body, in order. */
  bodies: unknown[];
  numTurns: number;
  /**
   * Why the reference stopped before the script's end, in its own words ("Prompt is too long"),
   * when it ended with an error result of its own; undefined when it finished.
   */
  stopped?: string;
}

/**
 * A summarising request: ours has the summary system prompt; the reference's last user message
 * asks for a detailed summary of the conversation (it may keep the tools, so that it shares the
 * cached prefix).
 */
export function isSummaryRequest(request: RecordedRequest): boolean {
  if (!hasTools(request.body)) return true;
  const system = JSON.stringify((request.body as { system?: unknown }).system ?? '');
  if (system.includes(SUMMARY_SYSTEM_PROMPT)) return true;
  const messages = (request.body as { messages?: { role?: unknown }[] }).messages ?? [];
  const lastUser = messages.findLast((message) => message.role === 'user');
  const text = JSON.stringify(lastUser ?? '');
  return /detailed summary of the conversation/i.test(text) && !text.includes('tool_result');
}

export interface ClaudeRunOptions {
  claude: string;
  cwd: string;
  prompt: string;
  model: string;
  turns: ReplayScriptEntry[];
  maxTurns: number;
  contextWindow: number;
}

export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const home = await mkdtemp(join(tmpdir(), 'ci-agent-cost-home-'));
  const server = await startReplayServer({ turns: options.turns });
  try {
    const version = (await execa(options.claude, ['--version'], { reject: false })).stdout.trim();
    const child = await execa(
      options.claude,
      [
        '-p',
        options.prompt,
        '--model',
        options.model,
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'acceptEdits',
        '--max-turns',
        String(options.maxTurns),
      ],
      {
        cwd: options.cwd,
        extendEnv: false,
        reject: false,
        // Nothing on stdin: the CLI waits 3 s for piped input otherwise.
        input: '',
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
          // The window both clients work in: the model's (200k), whatever the CLI assumes for it.
          CLAUDE_CODE_AUTO_COMPACT_WINDOW: String(options.contextWindow),
        },
      },
    );
    const result = child.stdout
      .split('\n')
      .filter((line) => line.includes('"type":"result"'))
      .map(
        (line) =>
          JSON.parse(line) as {
            num_turns: number;
            subtype: string;
            is_error?: boolean;
            result?: string;
          },
      )[0];
    // An error result is the reference's own end (it refused to send a request it judged too
    // long): what it sent until then is billed, and the caller is told it stopped. Anything
    // else (no result, a crash) is a failed measurement.
    const stopped = result?.is_error === true ? (result.result ?? result.subtype) : undefined;
    if (result === undefined || (stopped === undefined && child.exitCode !== 0)) {
      throw new Error(
        `${options.claude} failed (exit ${String(child.exitCode)}): ${child.stderr.slice(-800)}`,
      );
    }
    const posts = server.requests.filter(
      (request) => request.method === 'POST' && request.path === '/v1/messages',
    );
    return {
      version,
      bodies: posts.map((request) => request.body),
      numTurns: result.num_turns,
      ...(stopped !== undefined && { stopped }),
    };
  } finally {
    await server.close();
    await rm(home, { recursive: true, force: true });
  }
}
