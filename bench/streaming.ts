/**
 * Streaming tool execution against running tools after each message ends.
 *
 * A scripted 5-turn session: the model streams for 1 s per turn, and each turn carries four
 * 200 ms Bash calls spread through the message. The same session runs twice through the real
 * loop, the real Bash tool and the real SDK against the replay server: once with tools started
 * as their blocks complete (ours), once with tools started after the message ends (baseline).
 *
 * A third run gives the pure streaming time: the same script with Bash answering instantly.
 * Targets: streaming wall time within 10 % of the pure streaming time; tool time left after the
 * streams (the wait the tools add) at least 3× smaller than the baseline's.
 */
import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../src/agent/loop.js';
import { createAnthropicClient } from '../src/model/anthropic-client.js';
import type { ReplayBlock } from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';
import { z } from 'zod';
import { bashTool } from '../src/tools/builtin/bash.js';
import { defineTool } from '../src/tools/tool.js';
import { buildChildEnv } from '../src/util/child-env.js';
import { fmt, printTable } from './stats.js';
import { benchPipeline } from './bench-pipeline.js';

const TURNS = 5;
const STREAM_MS = 1_000;
const CALLS_PER_TURN = 4;

function script(): Array<{ content: ReplayBlock[]; streamMs: number } | ReplayBlock[]> {
  const turns: Array<{ content: ReplayBlock[]; streamMs: number } | ReplayBlock[]> = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const content: ReplayBlock[] = [];
    for (let call = 0; call < CALLS_PER_TURN; call++) {
      content.push({
        type: 'text',
        text: `Step ${call + 1} of turn ${turn + 1}: checking something. `.repeat(3),
      });
      content.push({
        type: 'tool_use',
        id: `toolu_${turn}_${call}`,
        name: 'Bash',
        input: { command: 'sleep 0.2', description: 'wait a moment' },
      });
    }
    content.push({ type: 'text', text: 'Now I wait for the results of these checks. '.repeat(4) });
    turns.push({ content, streamMs: STREAM_MS });
  }
  turns.push([{ type: 'text', text: 'Done.' }]);
  return turns;
}

interface SessionTiming {
  wallMs: number;
  streamMs: number;
  toolWaitMs: number;
}

/** Stands in for Bash in the "pure streaming" run: same name and schema, answers at once. */
const instantBash = defineTool({
  name: 'Bash',
  description: 'instant stand-in',
  internalInputSchema: z.object({
    command: z.string().describe('ignored'),
    description: z.string().optional().describe('ignored'),
  }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  checkPermissions: (input) => ({ access: 'read', ruleContent: input.command }),
  async *call() {
    return { data: '' };
  },
  mapToolResultToToolResultBlockParam: (_output, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: '(no output)',
  }),
});

async function session(
  streaming: boolean,
  root: string,
  tools = [bashTool],
): Promise<SessionTiming> {
  const server = await startReplayServer({ turns: script() });
  const deps = benchPipeline(tools, root, { env: buildChildEnv(process.env) });
  let streamMs = 0;
  let toolWaitMs = 0;
  let requestAt = performance.now();
  let streamEnd = 0;
  const started = performance.now();
  const result = await runAgent({
    prompt: 'go',
    model: 'claude-sonnet-5-5',
    systemPrompt: 'bench',
    modelClient: createAnthropicClient({ apiKey: 'bench', baseURL: server.url }),
    pipeline: deps,
    permissionMode: 'bypassPermissions',
    cwd: root,
    streamingToolExecution: streaming,
    events: (event) => {
      if (event.type === 'assistant-message') {
        streamEnd = performance.now();
        streamMs += streamEnd - requestAt;
      }
      if (event.type === 'tool-results-message') {
        toolWaitMs += performance.now() - streamEnd;
        requestAt = performance.now();
      }
    },
  });
  const wallMs = performance.now() - started;
  await server.close();
  if (result.subtype !== 'success') throw new Error(`session failed: ${result.errors.join('; ')}`);
  return { wallMs, streamMs, toolWaitMs };
}

export async function runStreamingBench(): Promise<void> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'ci-agent-bench-')));
  try {
    await session(true, root); // warm-up
    const pure = await session(true, root, [instantBash]);
    const ours = await session(true, root);
    const baseline = await session(false, root);
    printTable(
      `Streaming execution: ${TURNS} turns × ${STREAM_MS} ms streams × ${CALLS_PER_TURN} Bash calls of 200 ms`,
      [
        {
          run: 'pure streaming (Bash answers instantly)',
          wallMs: fmt(pure.wallMs, 0),
          streamMs: fmt(pure.streamMs, 0),
          toolWaitMs: fmt(pure.toolWaitMs, 0),
        },
        {
          run: 'streaming executor (ours)',
          wallMs: fmt(ours.wallMs, 0),
          streamMs: fmt(ours.streamMs, 0),
          toolWaitMs: fmt(ours.toolWaitMs, 0),
        },
        {
          run: 'tools after message ends (baseline)',
          wallMs: fmt(baseline.wallMs, 0),
          streamMs: fmt(baseline.streamMs, 0),
          toolWaitMs: fmt(baseline.toolWaitMs, 0),
        },
      ],
    );
    console.log(
      `wall time vs pure streaming time (${fmt(pure.wallMs, 0)} ms): ${fmt(ours.wallMs / pure.wallMs, 3)}× (target ≤ 1.10×)\n` +
        `tool wait after the streams: baseline/ours = ${fmt(baseline.toolWaitMs / Math.max(ours.toolWaitMs, 1), 1)}× (target ≥ 3×)`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runStreamingBench();
