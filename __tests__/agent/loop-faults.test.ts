/**
 * The loop against a faulty loopback Messages API: overloads, rate limits, server errors, cut and
 * stalled streams, a rejected key, an abort mid-stream. Every run writes a real tool log and
 * transcript; each test checks that no tool ran twice and that the files hold the whole story.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import type { AgentOptions } from '../../src/agent/loop.js';
import { runAgent } from '../../src/agent/loop.js';
import { StreamJsonMapper, streamJsonSink } from '../../src/log/stream-json.js';
import { openToolLog, openTranscript } from '../../src/log/tool-log.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type {
  RecordedRequest,
  ReplayScriptEntry,
  ReplayServer,
  ReplayServerOptions,
} from '../../testkit/replay-server.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import type { Message } from '../../src/model/types.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { controlledTool, makeCallLog } from '../helpers/test-tools.js';

let server: ReplayServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown> & { type: string; subtype?: string };

const read = (id: string) => ({
  type: 'tool_use' as const,
  id,
  name: 'Read',
  input: { id, auto: true },
});
const text = (value: string) => ({ type: 'text' as const, text: value });
/** Answers with `first` until the conversation carries a tool result, then with `done`. */
const untilResults =
  (first: ReplayScriptEntry, done: ReplayScriptEntry): ReplayScriptEntry =>
  (request: RecordedRequest) => {
    const messages = (request.body as { messages: Message[] }).messages;
    const entry = messages.length > 1 ? done : first;
    if (typeof entry === 'function') throw new Error('not nested');
    return entry;
  };

async function run(
  turns: ReplayScriptEntry[],
  serverOptions: Partial<ReplayServerOptions> = {},
  extra: Partial<AgentOptions> & { clock?: ManualClock } = {},
) {
  // One delta per block: message_start, ping, then start/delta/stop per block (block 0: 2–4).
  server = await startReplayServer({
    apiKey: 'sk-test',
    jsonChunkSize: 1_000,
    textChunkSize: 1_000,
    turns,
    ...serverOptions,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-faults-'));
  dirs.push(dir);
  const logPath = join(dir, 'tool-log.jsonl');
  const transcriptPath = join(dir, 'transcript.jsonl');
  const files = [
    openToolLog(logPath, 'session'),
    openTranscript(transcriptPath, { sessionId: 'session', prompt: 'fix it' }),
  ];
  const calls = makeCallLog();
  const { deps } = makePipeline([
    controlledTool('Read', true, calls),
    controlledTool('Edit', false, calls),
  ]);
  const events: AgentEvent[] = [];
  const sink = streamJsonSink(
    new StreamJsonMapper({ version: 'test' }),
    files.map((f) => f.write),
  );
  deps.events = (event) => {
    events.push(event);
    sink(event);
  };
  const clock = extra.clock ?? new ManualClock();
  const running = runAgent({
    prompt: 'fix it',
    model: 'claude-sonnet-5-5',
    systemPrompt: 'you are a test',
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    pipeline: deps,
    permissionMode: 'default',
    cwd: '/repo',
    events: deps.events,
    retry: { clock, maxRetries: 4 },
    ...extra,
  });
  const finished = running.then((result) => {
    for (const file of files) file.close();
    const lines = (path: string) =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);
    // The log's lines as the mapper gave them: without the chain field and the closing line.
    const log = lines(logPath)
      .filter((line) => line.subtype !== 'log_end')
      .map(({ ci_agent_chain: _chain, ...line }) => line);
    return { result, log, transcript: lines(transcriptPath) };
  });
  return { finished, calls, clock, events, server };
}

const apiRetries = (log: Line[]) => log.filter((line) => line.subtype === 'api_retry');

/** Every tool_use in the transcript's assistant lines has exactly one tool_result after it. */
function expectEveryToolUseAnswered(transcript: Line[]): string[] {
  const uses: string[] = [];
  const answered: string[] = [];
  for (const line of transcript) {
    const content = (line.message as { content: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const block of content as Array<{ type: string; id?: string; tool_use_id?: string }>) {
      if (block.type === 'tool_use') uses.push(block.id!);
      if (block.type === 'tool_result') answered.push(block.tool_use_id!);
    }
  }
  expect(answered).toEqual(uses);
  return uses;
}

describe('runAgent against a faulty Messages API', () => {
  it('retries the first three 529s, logs each retry, and runs the tool once', async () => {
    const overloaded = { kind: 'http-error', status: 529, errorType: 'overloaded_error' } as const;
    const { finished, calls, server } = await run([[read('toolu_a')], [text('Done.')]], {
      faults: { 0: overloaded, 1: overloaded, 2: overloaded },
    });
    const { result, log, transcript } = await finished;
    expect(result).toMatchObject({ subtype: 'success', result: 'Done.', numTurns: 2 });
    expect(server.requests.map((request) => request.status)).toEqual([529, 529, 529, 200, 200]);
    expect(calls.events).toEqual(['start:toolu_a', 'end:toolu_a']);
    expect(apiRetries(log)).toEqual(
      [438, 875, 1_750].map((delay, index): unknown =>
        expect.objectContaining({
          type: 'system',
          subtype: 'api_retry',
          attempt: index + 1,
          max_retries: 4,
          retry_delay_ms: delay,
          error_status: 529,
          error: 'server_error',
        }),
      ),
    );
    expect(log.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    expect(expectEveryToolUseAnswered(transcript)).toEqual(['toolu_a']);
  });

  it('waits what retry-after says after a 429', async () => {
    const { finished, clock } = await run([[text('Done.')]], {
      faults: {
        0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error', retryAfter: '2' },
      },
    });
    const { result, log } = await finished;
    expect(result.subtype).toBe('success');
    expect(clock.sleeps).toEqual([2_000]);
    expect(apiRetries(log)).toEqual([
      expect.objectContaining({ retry_delay_ms: 2_000, error_status: 429, error: 'rate_limit' }),
    ]);
  });

  it('retries a 500 and goes on', async () => {
    const { finished } = await run([[text('Done.')]], {
      faults: { 0: { kind: 'http-error', status: 500, errorType: 'api_error' } },
    });
    const { result, log } = await finished;
    expect(result.subtype).toBe('success');
    expect(apiRetries(log)).toEqual([expect.objectContaining({ error_status: 500 })]);
  });

  describe('when the stream is cut', () => {
    it('asks again when the cut comes inside a tool_use block, and runs the tool once', async () => {
      const { finished, calls, server } = await run(
        [[read('toolu_a'), text('more')], [text('Done.')]],
        {
          faults: { 0: { kind: 'drop', afterEvents: 4, how: 'end' } },
        },
      );
      const { result, log, transcript } = await finished;
      expect(result.subtype).toBe('success');
      expect(server.requests).toHaveLength(3);
      expect(calls.events).toEqual(['start:toolu_a', 'end:toolu_a']);
      expect(apiRetries(log)).toEqual([
        expect.objectContaining({ error_status: null, error: 'connection_error' }),
      ]);
      expect(expectEveryToolUseAnswered(transcript)).toEqual(['toolu_a']);
    });

    it('keeps the complete blocks once a tool_use was complete, sends its result, and goes on', async () => {
      const { finished, calls, server } = await run(
        [untilResults([read('toolu_a'), text('a long explanation')], [text('Done.')])],
        { faults: { 0: { kind: 'drop', afterEvents: 6, how: 'end' } } },
      );
      const { result, log, transcript } = await finished;
      expect(result).toMatchObject({ subtype: 'success', result: 'Done.', numTurns: 2 });
      expect(calls.events).toEqual(['start:toolu_a', 'end:toolu_a']);
      expect(apiRetries(log)).toEqual([]);
      expect(log.find((line) => line.subtype === 'api_partial_response')).toMatchObject({
        message_id: 'msg_replay_0',
        kept_blocks: 1,
        tool_use_ids: ['toolu_a'],
        error: 'connection_error',
      });
      const second = (server.requests[1]?.body as { messages: Message[] }).messages;
      expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(second[1]?.content).toEqual([read('toolu_a')]);
      const assistant = transcript.find((line) => line.type === 'assistant');
      expect(assistant?.message).toMatchObject({ stop_reason: null });
      expect(expectEveryToolUseAnswered(transcript)).toEqual(['toolu_a']);
    });
  });

  describe('when the stream stalls', () => {
    it('aborts the silent request and asks again', async () => {
      const pause = createPause();
      const { finished, calls, clock, server } = await run([
        { content: [read('toolu_a')], pauseAfter: { event: 'message_start', handle: pause } },
        [read('toolu_a')],
        [text('Done.')],
      ]);
      await pause.reached;
      await clock.stall();
      const { result, log } = await finished;
      expect(result.subtype).toBe('success');
      expect(server.requests).toHaveLength(3);
      expect(calls.events).toEqual(['start:toolu_a', 'end:toolu_a']);
      expect(apiRetries(log)).toEqual([
        expect.objectContaining({
          error: 'connection_error',
          error_message: 'The model response stream stalled: no event for 60 s.',
        }),
      ]);
    });

    it('keeps the partial response when it stalls after a complete tool_use', async () => {
      const pause = createPause();
      const { finished, calls, clock, server } = await run([
        {
          content: [read('toolu_a'), text('never arrives')],
          pauseAfter: { event: 'content_block_stop', blockIndex: 0, handle: pause },
        },
        [text('Done.')],
      ]);
      await calls.started('toolu_a');
      await clock.stall();
      const { result, log, transcript } = await finished;
      expect(result.subtype).toBe('success');
      expect(server.requests).toHaveLength(2);
      expect(calls.events).toEqual(['start:toolu_a', 'end:toolu_a']);
      expect(log.map((line) => line.subtype)).toContain('api_partial_response');
      expect(expectEveryToolUseAnswered(transcript)).toEqual(['toolu_a']);
    });
  });

  describe('when the error cannot be fixed by retrying', () => {
    it('ends at once on a rejected key with one message naming ANTHROPIC_API_KEY', async () => {
      const { finished, server } = await run([[text('never')]], { apiKey: 'another-key' });
      const { result, log } = await finished;
      expect(result.subtype).toBe('error_during_execution');
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/rejected the API key .*ANTHROPIC_API_KEY/);
      expect(server.requests).toHaveLength(1);
      expect(apiRetries(log)).toEqual([]);
      expect(log.at(-1)).toMatchObject({ type: 'result', errors: result.errors });
    });

    it('names the model on a 404', async () => {
      const { finished, server } = await run([[text('never')]], {
        faults: {
          0: {
            kind: 'http-error',
            status: 404,
            errorType: 'not_found_error',
            message: 'model: claude-sonnet-5-5',
          },
        },
      });
      const { result } = await finished;
      expect(result.errors[0]).toContain('Check the model id "claude-sonnet-5-5"');
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('when the run is aborted while a tool runs and the response still streams', () => {
    it('aborts the tool and answers its tool_use in the transcript', async () => {
      const pause = createPause();
      const controller = new AbortController();
      const edit = { type: 'tool_use' as const, id: 'toolu_e', name: 'Edit', input: { id: 'e' } };
      const { finished, calls } = await run(
        [
          {
            content: [edit, text('still streaming')],
            pauseAfter: { event: 'content_block_stop', blockIndex: 0, handle: pause },
          },
        ],
        {},
        { signal: controller.signal },
      );
      await calls.started('e');
      controller.abort(new Error('received SIGTERM'));
      const { result, log, transcript } = await finished;
      expect(result).toMatchObject({
        subtype: 'error_during_execution',
        errors: ['the run was stopped: received SIGTERM'],
      });
      expect(calls.events).toEqual(['start:e', 'abort:e']);
      expect(expectEveryToolUseAnswered(transcript)).toEqual(['toolu_e']);
      expect(log.at(-1)).toMatchObject({ type: 'result' });
    });
  });
});
