import { describe, expect, it } from 'vitest';
import { answeredOnly } from '../../src/agent/turn-stream.js';
import type { AssistantContentBlock } from '../../src/model/types.js';

describe('answeredOnly', () => {
  const search = (id: string): AssistantContentBlock => ({
    type: 'server_tool_use',
    id,
    name: 'web_search',
    input: { query: 'q' },
  });
  const result = (id: string): AssistantContentBlock => ({
    type: 'web_search_tool_result',
    tool_use_id: id,
    content: [],
  });
  const text: AssistantContentBlock = { type: 'text', text: 'Looking.' };
  const call: AssistantContentBlock = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} };

  it('keeps a search whose result arrived, and every other block', () => {
    const blocks = [text, search('srvtoolu_1'), result('srvtoolu_1'), call];
    expect(answeredOnly(blocks)).toEqual(blocks);
  });

  it('drops a search whose result the cut stream never delivered', () => {
    expect(answeredOnly([text, call, search('srvtoolu_2')])).toEqual([text, call]);
    expect(
      answeredOnly([search('srvtoolu_1'), result('srvtoolu_1'), search('srvtoolu_2')]),
    ).toEqual([search('srvtoolu_1'), result('srvtoolu_1')]);
  });
});
