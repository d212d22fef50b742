import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { createContextManager, firstChange } from '../../../src/agent/context/context-manager.js';
import type { ContextManagerOptions } from '../../../src/agent/context/context-manager.js';
import { StreamJsonMapper } from '../../../src/log/stream-json.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../../testkit/replay-server.js';
import type { Message } from '../../../src/model/types.js';
import { emptyUsage } from '../../../src/model/types.js';
import { big, call, conversation, withPrepareMessages } from './conversation.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bash = (index: number, lines = 40) => [
  call(`b${index}`, 'Bash', { command: `step ${index}` }, big(`out${index}`, lines)),
];

async function manager(
  settings: ContextManagerOptions['settings'],
  replay: ReplayServerOptions = {},
) {
  server = await startReplayServer(replay);
  const events: AgentEvent[] = [];
  const context = withPrepareMessages(
    createContextManager({
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      cwd: '/repo',
      systemPrompt: 'you are a test',
      tools: [],
      events: (event) => events.push(event),
      settings,
    }),
  );
  return { context, events, requests: server.requests };
}

const summaryTurn = (text: string) => [{ type: 'text' as const, text }];
const textOf = (message: Message | undefined) => JSON.stringify(message?.content);

describe('createContextManager', () => {
  describe('when the request stays below the compaction threshold', () => {
    it('sends the reduced conversation and asks the model nothing', async () => {
      const { context, events, requests } = await manager({
        keepRecentTurns: 1,
        boundaryStep: 1,
        shortenAboveChars: 100,
        contextWindow: 1e6,
      });
      const messages = conversation(bash(0), bash(1));
      const sent = await context.prepareMessages(messages);
      expect(sent).toHaveLength(5);
      expect(textOf(sent[2])).toContain('Old tool result shortened');
      expect(textOf(sent[4])).toContain('out1 line 40');
      expect(requests).toHaveLength(0);
      expect(events).toEqual([]);
    });
  });

  describe('when the request reaches the shortening limit with the recent turns whole', () => {
    it('shortens all but the newest turn instead of compacting, then holds there', async () => {
      const { context, events, requests } = await manager({
        keepRecentTurns: 4,
        boundaryStep: 4,
        shortenAboveChars: 100,
        contextWindow: 8_000,
        shortenAtFraction: 0.25,
        compactAtFraction: 0.9,
      });
      const turns = [0, 1, 2, 3, 4].map((index) => bash(index, 100));
      // Five whole results (about 2500 tokens) are over the limit (2000), under compaction (7200).
      const sent = await context.prepareMessages(conversation(...turns));
      for (const index of [2, 4, 6, 8]) expect(textOf(sent[index])).toContain('shortened');
      expect(textOf(sent[10])).toContain('out4 line 100');
      expect(requests).toHaveLength(0);
      expect(events).toEqual([]);
      // The next request is back under the limit: the boundary stays, the prefix is unchanged.
      const next = await context.prepareMessages(conversation(...turns, bash(5, 100)));
      expect(JSON.stringify(next.slice(0, sent.length))).toBe(JSON.stringify(sent));
      expect(textOf(next[10])).toContain('out4 line 100');
      expect(textOf(next[12])).toContain('out5 line 100');
    });
  });

  describe('when a request rewrites an older part of the one before', () => {
    it('says where the change begins, and nothing while requests only grow', async () => {
      const { context } = await manager({
        keepRecentTurns: 4,
        boundaryStep: 4,
        shortenAboveChars: 100,
        contextWindow: 8_000,
        shortenAtFraction: 0.25,
        compactAtFraction: 0.9,
      });
      const turns = [0, 1, 2, 3, 4, 5].map((index) => bash(index, 100));
      const first = await context.prepare(conversation(...turns.slice(0, 2)));
      expect(first.changedFrom).toBeUndefined();
      // Five whole results pass the limit: all but the newest are shortened, from message 2 on.
      const moved = await context.prepare(conversation(...turns.slice(0, 5)));
      expect(moved.changedFrom).toEqual({ message: 2, block: 0 });
      expect(textOf(moved.messages[2])).toContain('shortened');
      const held = await context.prepare(conversation(...turns));
      expect(held.changedFrom).toBeUndefined();
    });
  });

  describe('when the request reaches the compaction threshold', () => {
    it('summarises the older turns, keeps the task and the recent turns, and reports it', async () => {
      const { context, events, requests } = await manager(
        {
          keepRecentTurns: 2,
          contextWindow: 2_000,
          compactAtFraction: 0.5,
          shortenAboveChars: 1e6,
        },
        { turns: [summaryTurn('Ran steps 0 to 2; all passed.')] },
      );
      const messages = conversation(bash(0), bash(1), bash(2), bash(3), bash(4));
      const sent = await context.prepareMessages(messages);

      expect(requests).toHaveLength(1);
      const summarised = JSON.stringify(requests[0]?.body);
      expect(summarised).toContain('step 2');
      expect(summarised).not.toContain('step 3');
      expect(sent).toHaveLength(5);
      expect(textOf(sent[0])).toContain('fix the build');
      expect(textOf(sent[0])).toContain('Ran steps 0 to 2; all passed.');
      expect(sent.slice(1)).toEqual(messages.slice(7));
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event).toMatchObject({ type: 'compact-boundary', trigger: 'auto' });
      expect(event?.type === 'compact-boundary' && event.preTokens).toBeGreaterThan(1_000);
    });

    it('writes the boundary as Claude Code does in stream-json', async () => {
      const { context, events } = await manager(
        { keepRecentTurns: 1, contextWindow: 500 },
        { turns: [summaryTurn('done so far')] },
      );
      await context.prepareMessages(conversation(bash(0), bash(1)));
      const line = new StreamJsonMapper({ version: 't' }).map(events[0] as AgentEvent)[0];
      expect(line).toMatchObject({
        type: 'system',
        subtype: 'compact_boundary',
        compact_metadata: {
          trigger: 'auto',
          pre_tokens: (events[0] as { preTokens: number }).preTokens,
        },
      });
    });

    it('folds the earlier summary into the next one', async () => {
      const { context, requests } = await manager(
        { keepRecentTurns: 1, contextWindow: 600, compactAtFraction: 0.5 },
        { turns: [summaryTurn('FIRST SUMMARY'), summaryTurn('SECOND SUMMARY')] },
      );
      let messages = conversation(bash(0), bash(1));
      await context.prepareMessages(messages);
      messages = [...messages, ...conversation(bash(2), bash(3)).slice(1)];
      const sent = await context.prepareMessages(messages);

      expect(requests).toHaveLength(2);
      expect(JSON.stringify(requests[1]?.body)).toContain('FIRST SUMMARY');
      expect(textOf(sent[0])).toContain('SECOND SUMMARY');
      expect(textOf(sent[0])).not.toContain('FIRST SUMMARY');
      expect(sent.slice(1)).toEqual(messages.slice(-2));
    });

    it('keeps the last task list word for word beside the summary', async () => {
      const { context } = await manager(
        { keepRecentTurns: 1, contextWindow: 500 },
        { turns: [summaryTurn('summary')] },
      );
      const todo = { content: 'Fix the parser', status: 'in_progress', activeForm: 'Fixing' };
      const messages = conversation(
        [call('t1', 'TodoWrite', { todos: [todo] }, 'ok'), ...bash(0)],
        bash(1),
      );
      const sent = await context.prepareMessages(messages);
      expect(textOf(sent[0])).toContain(
        'summary\\n\\nYour task list (last TodoWrite):\\n- [in_progress] Fix the parser',
      );
    });

    it('leaves the conversation whole when only the last turn is left to keep', async () => {
      const { context, events, requests } = await manager({ contextWindow: 100 });
      const messages = conversation(bash(0));
      expect(await context.prepareMessages(messages)).toEqual(messages);
      expect(requests).toHaveLength(0);
      expect(events).toEqual([]);
    });

    it('fails the request when the summary cannot be had', async () => {
      const { context, events } = await manager(
        { keepRecentTurns: 1, contextWindow: 500 },
        { faults: { 0: { kind: 'http-error', status: 400, errorType: 'invalid_request_error' } } },
      );
      await expect(context.prepare(conversation(bash(0), bash(1)))).rejects.toThrow();
      expect(events).toEqual([]);
    });
  });

  describe('recordUsage', () => {
    it('estimates with the ratio of tokens to characters the model last reported', async () => {
      const settings = { keepRecentTurns: 1, contextWindow: 1_500, compactAtFraction: 1 };
      const messages = conversation(bash(0, 10), bash(1, 10));
      const calm = await manager(settings);
      await calm.context.prepareMessages(messages);
      await calm.context.prepareMessages(messages);
      expect(calm.requests).toHaveLength(0);
      await server?.close();

      const { context, requests } = await manager(settings, { turns: [summaryTurn('s')] });
      await context.prepareMessages(messages);
      // The model counted 3 tokens per character: the same request is now over the window.
      const chars = JSON.stringify(await context.prepareMessages(messages)).length;
      context.recordUsage({
        ...emptyUsage(),
        input_tokens: chars,
        cache_read_input_tokens: chars * 2,
      });
      await context.prepareMessages(messages);
      expect(requests).toHaveLength(1);
    });
  });

  describe('compact', () => {
    it('compacts on request and reports a manual boundary', async () => {
      const { context, events } = await manager(
        { keepRecentTurns: 1 },
        { turns: [summaryTurn('s')] },
      );
      const messages = conversation(bash(0), bash(1));
      expect(await context.compact(messages, 'manual')).toBe(true);
      expect(events).toMatchObject([{ type: 'compact-boundary', trigger: 'manual' }]);
      expect(await context.prepareMessages(messages)).toHaveLength(3);
    });
  });

  describe('when context management is off', () => {
    it('sends every message as recorded and never compacts', async () => {
      const { context, requests } = await manager(false);
      const messages = conversation(bash(0), bash(1), bash(2));
      expect(await context.prepareMessages(messages)).toEqual(messages);
      expect(await context.compact(messages, 'manual')).toBe(false);
      expect(requests).toHaveLength(0);
    });
  });

  it('refuses bad settings before the run starts', async () => {
    await expect(manager({ boundaryStep: 0 })).rejects.toThrow(
      'context management: boundaryStep is 0',
    );
  });
});

describe('firstChange', () => {
  const messages = conversation(bash(0), bash(1));
  it('is undefined when the next request begins with all of the previous one', () => {
    expect(firstChange(messages.slice(0, 3), messages)).toBeUndefined();
    expect(firstChange(messages, messages)).toBeUndefined();
  });

  it('names the first block that differs, within a message of several blocks', () => {
    const next = structuredClone(messages);
    const assistant = next[3];
    if (assistant?.role !== 'assistant') throw new Error('shape');
    assistant.content[1] = { type: 'tool_use', id: 'other', name: 'Bash', input: {} };
    expect(firstChange(messages, next)).toEqual({ message: 3, block: 1 });
  });

  it('names the block after the last one the previous message had, when blocks were added', () => {
    const next = structuredClone(messages);
    const assistant = next[3];
    if (assistant?.role !== 'assistant') throw new Error('shape');
    assistant.content.push({ type: 'text', text: 'more' });
    expect(firstChange(messages, next)).toEqual({ message: 3, block: 2 });
  });

  it('names a message the next request no longer has, and string content as a whole', () => {
    expect(firstChange(messages, messages.slice(0, 2))).toEqual({ message: 2, block: 0 });
    const next = [{ role: 'user' as const, content: 'other task' }, ...messages.slice(1)];
    expect(firstChange(messages, next)).toEqual({ message: 0, block: 0 });
  });
});
