import { afterEach, describe, expect, it } from 'vitest';
import type {
  MessageCreateParamsStreaming,
  MessageParam,
} from '@anthropic-ai/sdk/resources/messages';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { withCacheBreakpoints } from '../../src/model/prompt-cache.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import { billRequests } from '../../bench/billing.js';
import type { ReplayServer } from '../../testkit/replay-server.js';

const EPHEMERAL = { type: 'ephemeral' };
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function body(messages: MessageParam[], extra: Partial<MessageCreateParamsStreaming> = {}) {
  return {
    model: 'claude-sonnet-5-5',
    max_tokens: 100,
    stream: true as const,
    system: 'be careful',
    tools: [
      { name: 'Read', input_schema: { type: 'object' as const } },
      { name: 'Edit', input_schema: { type: 'object' as const } },
    ],
    messages,
    ...extra,
  };
}

const toolTurn = (id: string): MessageParam[] => [
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id, name: 'Read', input: {} },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x' }] },
];

/** [message index, block index] of every block carrying a breakpoint. */
function breakpoints(messages: MessageParam[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, position) => {
      if ('cache_control' in block && block.cache_control) found.push([index, position]);
    });
  });
  return found;
}

describe('withCacheBreakpoints', () => {
  it('marks the last tool and the system prompt', () => {
    const marked = withCacheBreakpoints(body([{ role: 'user', content: 'go' }]));
    expect(marked.system).toEqual([{ type: 'text', text: 'be careful', cache_control: EPHEMERAL }]);
    expect(marked.tools?.map((tool) => 'cache_control' in tool && tool.cache_control)).toEqual([
      false,
      EPHEMERAL,
    ]);
  });

  it('marks the newest tool result and the one the previous request ended with', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'go' },
      ...toolTurn('t1'),
      ...toolTurn('t2'),
    ];
    expect(breakpoints(withCacheBreakpoints(body(messages)).messages)).toEqual([
      [2, 0],
      [4, 0],
    ]);
  });

  it('uses at most four breakpoints in all', () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'go' }];
    for (let turn = 0; turn < 30; turn++) messages.push(...toolTurn(`t${turn}`));
    const marked = withCacheBreakpoints(body(messages));
    expect(breakpoints(marked.messages)).toHaveLength(2);
  });

  describe('when the newest message is user text', () => {
    it('marks the assistant message before it and leaves the text as written', () => {
      const messages: MessageParam[] = [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        { role: 'user', content: 'not yet: the tests fail' },
      ];
      const marked = withCacheBreakpoints(body(messages));
      expect(breakpoints(marked.messages)).toEqual([[1, 0]]);
      expect(marked.messages[0]).toEqual(messages[0]);
      expect(marked.messages[2]).toEqual(messages[2]);
    });
  });

  it('skips thinking blocks and empty text, which cannot carry a breakpoint', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't', name: 'Read', input: {} },
          { type: 'text', text: '' },
          { type: 'thinking', thinking: 'hm', signature: 's' },
        ],
      },
    ];
    expect(breakpoints(withCacheBreakpoints(body(messages)).messages)).toEqual([[1, 0]]);
  });

  it('adds nothing to a first request but the tools and the system prompt', () => {
    const marked = withCacheBreakpoints(
      body([{ role: 'user', content: [{ type: 'text', text: 'go' }] }], { tools: [], system: '' }),
    );
    expect(breakpoints(marked.messages)).toEqual([]);
    expect(marked.tools).toEqual([]);
    expect(marked.system).toBe('');
  });

  describe('when context management rewrote an older part', () => {
    const long = (turns: number) => {
      const messages: MessageParam[] = [{ role: 'user', content: 'go' }];
      for (let turn = 0; turn < turns; turn++) messages.push(...toolTurn(`t${turn}`));
      return messages;
    };

    it('marks the last block before the change in place of the last tool', () => {
      const marked = withCacheBreakpoints(body(long(12)), { message: 9, block: 0 });
      expect(breakpoints(marked.messages)).toEqual([
        [8, 0],
        [22, 0],
        [24, 0],
      ]);
      expect(marked.tools?.some((tool) => 'cache_control' in tool)).toBe(false);
      expect(marked.system).toEqual([
        { type: 'text', text: 'be careful', cache_control: EPHEMERAL },
      ]);
    });

    it('marks the block before the change within a message of several results', () => {
      const messages = long(3);
      messages[2] = {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't0', content: 'x' },
          { type: 'tool_result', tool_use_id: 't0b', content: 'y' },
        ],
      };
      const marked = withCacheBreakpoints(body(messages), { message: 2, block: 1 });
      expect(breakpoints(marked.messages)).toContainEqual([2, 0]);
    });

    it('keeps the mark on the last tool when the block before the change is marked anyway', () => {
      const marked = withCacheBreakpoints(body(long(3)), { message: 5, block: 0 });
      expect(breakpoints(marked.messages)).toEqual([
        [4, 0],
        [6, 0],
      ]);
      expect(marked.tools?.at(-1)).toHaveProperty('cache_control', EPHEMERAL);
    });

    it('reads the unchanged part from the cache, which the newest block is too far to find', () => {
      // Each turn's result is big enough that the prefix passes the minimum cacheable length.
      const turn = (id: string, text: string): MessageParam[] => [
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
      ];
      const messages = (turns: number, shortenFrom = turns) => {
        const all: MessageParam[] = [{ role: 'user', content: 'go' }];
        for (let index = 0; index < turns; index++) {
          const text = index >= shortenFrom && index < turns - 1 ? 'short' : 'x'.repeat(2000);
          all.push(...turn(`t${index}`, text));
        }
        return all;
      };
      // One request per turn, each marked as the loop marks it, then one that shortens turns
      // 5 to 28: the first change is 24 results (48 blocks) before the newest.
      const growing = Array.from({ length: 30 }, (_, index) =>
        withCacheBreakpoints(body(messages(index + 1))),
      );
      const change = { message: 1 + 2 * 5 + 1, block: 0 };
      const bill = (changedFrom?: typeof change) =>
        billRequests([...growing, withCacheBreakpoints(body(messages(30, 5)), changedFrom)]).at(
          -1,
        )!;
      const unmarked = bill();
      const marked = bill(change);
      // Five whole turns (about 2,500 tokens) come from the cache instead of being written again.
      expect(marked.cacheRead - unmarked.cacheRead).toBeGreaterThan(2_400);
      expect(unmarked.cacheWrite - marked.cacheWrite).toBeGreaterThan(2_400);
    });
  });

  it('leaves the body it was given unchanged', () => {
    const original = body([{ role: 'user', content: 'go' }, ...toolTurn('t1')]);
    const copy = structuredClone(original);
    withCacheBreakpoints(original);
    expect(original).toEqual(copy);
  });
});

describe('createAnthropicClient prompt caching', () => {
  const request = {
    model: 'claude-sonnet-5-5',
    system: 'be careful',
    messages: [
      { role: 'user' as const, content: 'go' },
      {
        role: 'assistant' as const,
        content: [{ type: 'tool_use' as const, id: 't1', name: 'Read', input: {} }],
      },
      {
        role: 'user' as const,
        content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'x' }],
      },
    ],
    tools: [{ name: 'Read', description: 'read', input_schema: {} }],
    maxTokens: 100,
  };

  async function sent(promptCaching?: boolean): Promise<string> {
    server = await startReplayServer({ turns: [[{ type: 'text', text: 'ok' }]] });
    const client = createAnthropicClient({
      apiKey: 'k',
      baseURL: server.url,
      ...(promptCaching === undefined ? {} : { promptCaching }),
    });
    for await (const event of client.stream(request)) void event;
    return JSON.stringify(server.requests[0]?.body);
  }

  it('sends three breakpoints by default: tools, system and the tool result', async () => {
    expect((await sent()).match(/"cache_control":\{"type":"ephemeral"\}/g)).toHaveLength(3);
  });

  it('sends none when prompt caching is off', async () => {
    expect(await sent(false)).not.toContain('cache_control');
  });
});
