/**
 * Server-side web search blocks, end to end on the model side: the replay server streams them in
 * the API's wire format, the real SDK client reads them, and the accumulator keeps them verbatim
 * (with citations and the server_tool_use usage), so they can go back to the API unchanged.
 */
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { MessageAccumulator } from '../../src/model/message-accumulator.js';
import type { ModelStreamEvent } from '../../src/model/model-client.js';
import { buildMessage, buildStreamEvents } from '../../testkit/replay-events.js';
import type { ReplayBlock } from '../../testkit/replay-events.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-server.js';

const RESULTS = [
  {
    type: 'web_search_result',
    url: 'https://nodejs.org/en/about/previous-releases',
    title: 'Node.js Releases',
    encrypted_content: 'EqgfCioIARgBIiQ3YTA...',
    page_age: 'April 30, 2026',
  },
];
const CITATION = {
  type: 'web_search_result_location',
  url: 'https://nodejs.org/en/about/previous-releases',
  title: 'Node.js Releases',
  encrypted_index: 'Eo8BCioIAhgBIiQ...',
  cited_text: 'Node.js 24 is the active LTS line.',
};
const SEARCH_TURN: ReplayBlock[] = [
  { type: 'text', text: 'Let me search.' },
  { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'node lts' } },
  { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: RESULTS },
  { type: 'text', text: 'Node.js 24 is the active LTS.', citations: [CITATION] },
];
const EXPECTED_CONTENT = [
  { type: 'text', text: 'Let me search.' },
  { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'node lts' } },
  { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: RESULTS },
  { type: 'text', text: 'Node.js 24 is the active LTS.', citations: [CITATION] },
];
const BUILD = {
  messageId: 'msg_1',
  model: 'claude-test',
  requestChars: 40,
  jsonChunkSize: 5,
  textChunkSize: 8,
};

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function accumulate(blocks: ReplayBlock[], extra: object = {}): ModelStreamEvent[] {
  const accumulator = new MessageAccumulator();
  return buildStreamEvents({ content: blocks, ...extra }, BUILD).flatMap((event) =>
    accumulator.push(event.data as unknown as RawMessageStreamEvent),
  );
}

function completed(events: ModelStreamEvent[]) {
  const last = events.at(-1);
  if (last?.type !== 'message-complete') throw new Error('no message-complete');
  return last.message;
}

describe('MessageAccumulator', () => {
  describe('when the response used the server-side web search', () => {
    it('keeps server_tool_use, its result and the citations in order', () => {
      const message = completed(accumulate(SEARCH_TURN));

      expect(message.content).toEqual(EXPECTED_CONTENT);
      expect(message.stopReason).toBe('end_turn');
    });

    it('completes each server block as it closes, and never announces it as a tool_use', () => {
      const events = accumulate(SEARCH_TURN);

      expect(events.filter((event) => event.type === 'tool-use-start')).toEqual([]);
      expect(events.filter((event) => event.type === 'tool-input-delta')).toEqual([]);
      expect(
        events.flatMap((event) => (event.type === 'block-complete' ? [event.block.type] : [])),
      ).toEqual(['text', 'server_tool_use', 'web_search_tool_result', 'text']);
    });

    it('keeps fields of the blocks it does not model, such as caller', () => {
      const accumulator = new MessageAccumulator();
      const events = [
        { type: 'message_start', message: { id: 'm', model: 'x', usage: {} } },
        {
          type: 'content_block_start',
          index: 0,
          content_block: {
            type: 'server_tool_use',
            id: 'srvtoolu_2',
            name: 'web_search',
            input: {},
            caller: { type: 'direct' },
          },
        },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'content_block_start',
          index: 1,
          content_block: {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_2',
            content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
            caller: { type: 'direct' },
          },
        },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_stop' },
      ].flatMap((event) => accumulator.push(event as unknown as RawMessageStreamEvent));

      expect(completed(events).content).toEqual([
        {
          type: 'server_tool_use',
          id: 'srvtoolu_2',
          name: 'web_search',
          input: {},
          caller: { type: 'direct' },
        },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_2',
          content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
          caller: { type: 'direct' },
        },
      ]);
    });

    it('reports the server_tool_use counts of the usage', () => {
      const message = completed(
        accumulate(SEARCH_TURN, {
          messageDeltaUsage: { server_tool_use: { web_search_requests: 2 } },
        }),
      );

      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 2 });
    });

    it('leaves server_tool_use out of a usage that has none', () => {
      expect(completed(accumulate(SEARCH_TURN)).usage).not.toHaveProperty('server_tool_use');
    });
  });
});

describe('buildMessage', () => {
  it('gives server blocks and citations as they are in a response without streaming', () => {
    expect(buildMessage({ content: SEARCH_TURN }, BUILD)['content']).toEqual(EXPECTED_CONTENT);
  });
});

describe('the SDK client against the replay server', () => {
  it('streams a web search turn into the same message', async () => {
    server = await startReplayServer({ apiKey: 'k', turns: [SEARCH_TURN] });
    const client = createAnthropicClient({ apiKey: 'k', baseURL: server.url });

    const events: ModelStreamEvent[] = [];
    for await (const event of client.stream({
      model: 'claude-sonnet-5-5',
      system: '',
      messages: [{ role: 'user', content: 'Which Node is LTS?' }],
      tools: [],
      maxTokens: 100,
    })) {
      events.push(event);
    }

    expect(completed(events).content).toEqual(EXPECTED_CONTENT);
    expect(server.requests[0]?.sentEvents).toContain('content_block_delta');
  });

  it('sends server blocks back in the next request exactly as they came', async () => {
    server = await startReplayServer({
      apiKey: 'k',
      turns: [SEARCH_TURN, [{ type: 'text', text: 'ok' }]],
    });
    const client = createAnthropicClient({ apiKey: 'k', baseURL: server.url });
    const request = {
      model: 'claude-sonnet-5-5',
      system: '',
      tools: [],
      maxTokens: 100,
    };
    let content: unknown[] = [];
    for await (const event of client.stream({
      ...request,
      messages: [{ role: 'user', content: 'q' }],
    })) {
      if (event.type === 'message-complete') content = event.message.content;
    }
    for await (const _event of client.stream({
      ...request,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: content as never },
        { role: 'user', content: 'and then?' },
      ],
    })) {
      // drain
    }

    const sent = (server.requests[1]?.body as { messages: { content: unknown }[] }).messages[1];
    // The newest assistant block may carry a cache breakpoint; everything else is as received.
    const blocks = (sent?.content as Record<string, unknown>[]).map(
      ({ cache_control: _ignored, ...block }) => block,
    );
    expect(blocks).toEqual(EXPECTED_CONTENT);
  });
});
