import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { MessageAccumulator, parseToolInput } from '../../src/model/message-accumulator.js';
import type { ModelStreamEvent } from '../../src/model/model-client.js';

/** Stream events arrive as parsed JSON; fixtures include shapes the SDK types do not know. */
function raw(event: unknown): RawMessageStreamEvent {
  return event as RawMessageStreamEvent;
}

const messageStart = raw({
  type: 'message_start',
  message: {
    id: 'msg_1',
    model: 'claude-test',
    usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: null },
  },
});

function feed(events: unknown[]): { accumulator: MessageAccumulator; out: ModelStreamEvent[] } {
  const accumulator = new MessageAccumulator();
  const out = events.flatMap((event) => accumulator.push(raw(event)));
  return { accumulator, out };
}

function finalMessage(out: ModelStreamEvent[]) {
  const last = out.at(-1);
  if (last?.type !== 'message-complete') throw new Error('no message-complete');
  return last.message;
}

describe('MessageAccumulator', () => {
  describe('when the stream carries blocks this engine does not know', () => {
    it('skips them and their deltas but keeps the other blocks and their indices', () => {
      const { out } = feed([
        messageStart,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'future_tool_use', id: 'fut_1', name: 'teleport', input: {} },
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"q":"x"}' },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'found it' } },
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'future_delta', note: 'ignored' },
        },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_stop' },
      ]);

      expect(out.filter((event) => event.type === 'tool-input-delta')).toEqual([]);
      expect(out.filter((event) => event.type === 'block-complete')).toEqual([
        { type: 'block-complete', index: 1, block: { type: 'text', text: 'found it' } },
      ]);
      expect(finalMessage(out).content).toEqual([{ type: 'text', text: 'found it' }]);
    });

    it('ignores unknown event types', () => {
      const { out } = feed([
        messageStart,
        { type: 'content_block_pause', index: 0 },
        { type: 'ping' },
        { type: 'message_stop' },
      ]);

      expect(out.map((event) => event.type)).toEqual(['message-start', 'message-complete']);
    });
  });

  it('keeps the input given at block start when no input delta follows', () => {
    const { out } = feed([
      messageStart,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'Noop', input: { preset: true } },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_stop' },
    ]);

    expect(finalMessage(out).content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'Noop', input: { preset: true } },
    ]);
  });

  it('is complete only after message_stop', () => {
    const { accumulator } = feed([messageStart, { type: 'message_delta', delta: {}, usage: {} }]);

    expect(accumulator.complete).toBe(false);
    accumulator.push(raw({ type: 'message_stop' }));
    expect(accumulator.complete).toBe(true);
  });

  it('does not change the usage it already reported in message-start', () => {
    const { out } = feed([
      messageStart,
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 50 } },
      { type: 'message_stop' },
    ]);

    expect(out[0]).toMatchObject({ type: 'message-start', usage: { output_tokens: 1 } });
    expect(finalMessage(out)).toMatchObject({
      stopReason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 50, cache_read_input_tokens: 0 },
    });
  });
});

describe('parseToolInput', () => {
  it('parses a JSON object', () => {
    expect(parseToolInput('{"a":1,"b":[true]}')).toEqual({ input: { a: 1, b: [true] } });
  });

  it('falls back to the start input, or {}, when no JSON arrived', () => {
    expect(parseToolInput('', { x: 1 })).toEqual({ input: { x: 1 } });
    expect(parseToolInput('  ')).toEqual({ input: {} });
  });

  it('reports truncated JSON with the text it received', () => {
    const result = parseToolInput('{"command": "ls');

    expect(result.input).toEqual({});
    expect(result.error).toMatch(/^The tool input is not valid JSON \(.+\): \{"command": "ls$/);
  });

  it.each([
    ['[1,2]', 'an array'],
    ['"text"', 'string'],
    ['null', 'null'],
    ['42', 'number'],
  ])('rejects %s because it is %s, not an object', (json, kind) => {
    const result = parseToolInput(json);

    expect(result.input).toEqual({});
    expect(result.error).toContain(`must be a JSON object, but it is ${kind}`);
  });

  it('shortens very long invalid input in the message', () => {
    const result = parseToolInput(`{"content": "${'x'.repeat(1_000)}`);

    expect(result.error).toContain(`"${'x'.repeat(187)}…`);
    expect(result.error).not.toContain('x'.repeat(188));
  });
});
