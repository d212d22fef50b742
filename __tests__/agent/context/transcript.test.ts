import { describe, expect, it } from 'vitest';
import { MAX_BLOCK_CHARS, renderTranscript } from '../../../src/agent/context/transcript.js';

describe('renderTranscript', () => {
  it('renders each block on its own paragraph with who said or did it', () => {
    const text = renderTranscript([
      { role: 'user', content: 'fix it' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'no such dir', is_error: true },
          {
            type: 'tool_result',
            tool_use_id: 't2',
            content: [
              { type: 'text', text: 'a picture:' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
            ],
          },
        ],
      },
    ]);
    expect(text).toBe(
      [
        'USER: fix it',
        'ASSISTANT: Looking.',
        'ASSISTANT called Bash (t1): {"command":"ls"}',
        'TOOL error for t1: no such dir',
        'TOOL result for t2: a picture:\n[an image]',
      ].join('\n\n'),
    );
  });

  it('clips a long block and says how much was left out', () => {
    const text = renderTranscript([{ role: 'user', content: 'x'.repeat(MAX_BLOCK_CHARS + 25) }]);
    expect(text).toBe(`USER: ${'x'.repeat(MAX_BLOCK_CHARS)}… [25 more characters]`);
  });

  it('keeps web searches the model ran on the server', () => {
    const text = renderTranscript([
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'zod 4' } },
          { type: 'web_search_tool_result', tool_use_id: 's1', content: [{ title: 'Zod' }] },
        ],
      },
    ]);
    expect(text).toBe(
      'ASSISTANT used web_search: {"query":"zod 4"}\n\nSEARCH results: [{"title":"Zod"}]',
    );
  });
});
