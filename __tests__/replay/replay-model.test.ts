import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../src/model/model-client.js';
import { ModelError } from '../../src/model/model-client.js';
import type { Message } from '../../src/model/types.js';
import type { RecordedTurn } from '../../src/replay/recorded-run.js';
import { ReplayModelClient } from '../../src/replay/replay-model.js';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/agent/context/compaction.js';

const usage = {
  input_tokens: 1,
  output_tokens: 1,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};
const turns: RecordedTurn[] = [
  {
    id: 'msg_0',
    model: 'm',
    content: [
      { type: 'text', text: 'reading' },
      { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { file_path: '/rec/a' } },
    ],
    stopReason: 'tool_use',
    usage,
  },
  {
    id: 'msg_1',
    model: 'm',
    content: [{ type: 'text', text: 'done' }],
    stopReason: 'end_turn',
    usage,
  },
];

const request = (messages: Message[]): ModelRequest => ({
  model: 'm',
  system: '',
  messages,
  tools: [],
  maxTokens: 1000,
});
const prompt: Message = { role: 'user', content: 'go' };
const answering = (...ids: string[]): Message => ({
  role: 'user',
  content: ids.map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'x' })),
});

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function refusal(client: ReplayModelClient, messages: Message[]): Promise<ModelError> {
  try {
    await collect(client.stream(request(messages)));
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error('expected the request to be refused');
}

describe('ReplayModelClient', () => {
  it('streams each recorded message in order, its tool inputs mapped', async () => {
    const client = new ReplayModelClient(turns, (input) =>
      JSON.parse(JSON.stringify(input).replace('/rec', '/new')),
    );
    const first = await collect(client.stream(request([prompt])));
    expect(first.map((event) => event.type)).toEqual([
      'message-start',
      'block-complete',
      'tool-use-start',
      'block-complete',
      'message-complete',
    ]);
    expect(first.at(-1)).toMatchObject({
      message: {
        id: 'msg_0',
        content: [{ type: 'text' }, { type: 'tool_use', input: { file_path: '/new/a' } }],
        stopReason: 'tool_use',
      },
    });
    const second = await collect(client.stream(request([prompt, answering('toolu_a')])));
    expect(second.at(-1)).toMatchObject({ message: { id: 'msg_1', stopReason: 'end_turn' } });
    expect(client.turnsServed).toBe(2);
    expect(client.divergence).toBeUndefined();
  });

  describe('when the run goes another way than recorded', () => {
    it('refuses a request past the last recorded message, without a retry', async () => {
      const client = new ReplayModelClient(turns.slice(0, 1));
      await collect(client.stream(request([prompt])));
      const error = await refusal(client, [prompt, answering('toolu_a')]);
      expect(error.retryable).toBe(false);
      expect(client.divergence).toBe('the run asked for model turn 2, but the log records 1');
    });

    it('refuses a request that does not answer the recorded calls', async () => {
      const client = new ReplayModelClient(turns);
      await collect(client.stream(request([prompt])));
      await refusal(client, [prompt, { role: 'user', content: 'a Stop hook says: go on' }]);
      expect(client.divergence).toBe(
        "request 2 answers the calls [], but the log's turn 1 made [toolu_a]: the run went another way than recorded",
      );
      expect(client.turnsServed).toBe(1);
    });

    it('keeps the first divergence', async () => {
      const client = new ReplayModelClient(turns);
      await refusal(client, [prompt, answering('toolu_x')]);
      await refusal(client, [prompt, answering('toolu_y')]);
      expect(client.divergence).toContain('request 1 answers the calls [toolu_x]');
    });
  });

  describe('a compaction', () => {
    const summaryRequest: ModelRequest = {
      model: 'm',
      system: SUMMARY_SYSTEM_PROMPT,
      messages: [{ role: 'user', content: '<transcript>…</transcript>' }],
      tools: [],
      maxTokens: 1000,
    };
    const compactions = [{ beforeTurn: 1, summary: 'read a; next: finish' }];

    it('is answered with the recorded summary where the log compacted, and the run goes on', async () => {
      const client = new ReplayModelClient(turns, undefined, compactions);
      await collect(client.stream(request([prompt])));
      const summary = await collect(client.stream(summaryRequest));
      expect(summary.at(-1)).toMatchObject({
        type: 'message-complete',
        message: {
          content: [{ type: 'text', text: 'read a; next: finish' }],
          stopReason: 'end_turn',
        },
      });
      const second = await collect(client.stream(request([prompt, answering('toolu_a')])));
      expect(second.at(-1)).toMatchObject({ message: { id: 'msg_1' } });
      expect(client.divergence).toBeUndefined();
    });

    it('refuses a summary request where the log did not compact', async () => {
      const client = new ReplayModelClient(turns, undefined, compactions);
      await expect(collect(client.stream(summaryRequest))).rejects.toThrow(ModelError);
      expect(client.divergence).toBe(
        "the run compacted its context before model turn 1, but the log's next compaction came before turn 2",
      );
      const none = new ReplayModelClient(turns);
      await expect(collect(none.stream(summaryRequest))).rejects.toThrow(ModelError);
      expect(none.divergence).toBe(
        'the run compacted its context before model turn 1, but the log has no compaction there',
      );
    });

    it("refuses a turn's request where the log compacted first", async () => {
      const client = new ReplayModelClient(turns, undefined, compactions);
      await collect(client.stream(request([prompt])));
      await refusal(client, [prompt, answering('toolu_a')]);
      expect(client.divergence).toBe(
        'the log compacted the context before model turn 2, but the run did not',
      );
    });
  });
});
