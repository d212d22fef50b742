import { describe, expect, it } from 'vitest';
import { MAX_RESULT_CHARS, toToolResultBlock } from '../../src/mcp/tool-result.js';

describe('toToolResultBlock', () => {
  it('gives one text block as plain text', () => {
    expect(toToolResultBlock({ content: [{ type: 'text', text: 'ok' }] }, 'toolu_1')).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: 'ok',
    });
  });

  it('marks an isError result as is_error', () => {
    const block = toToolResultBlock(
      { content: [{ type: 'text', text: 'no such repo' }], isError: true },
      'toolu_1',
    );
    expect(block).toMatchObject({ content: 'no such repo', is_error: true });
  });

  it('keeps images the API takes and describes the rest', () => {
    const block = toToolResultBlock(
      {
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/svg+xml' },
          { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav' },
        ],
      },
      'toolu_1',
    );
    expect(block.content).toEqual([
      { type: 'text', text: 'Here:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'aGVsbG8=' } },
      {
        type: 'text',
        text: '[The tool returned an image of type image/svg+xml (6 bytes), which cannot be shown.]',
      },
      {
        type: 'text',
        text: '[The tool returned audio of type audio/wav (6 bytes), which cannot be shown.]',
      },
    ]);
  });

  it('shows text resources and links, and names binary resources', () => {
    const block = toToolResultBlock(
      {
        content: [
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'alpha' } },
          {
            type: 'resource',
            resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
          },
          { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', description: 'notes' },
        ],
      },
      'toolu_1',
    );
    expect(block.content).toEqual([
      { type: 'text', text: 'Resource file:///a.txt:\nalpha' },
      {
        type: 'text',
        text: '[The tool returned the binary resource file:///b.bin (application/octet-stream), which cannot be shown.]',
      },
      { type: 'text', text: 'Resource link: file:///c.md (c.md) — notes' },
    ]);
  });

  it('shows structured content when there is no other content', () => {
    expect(
      toToolResultBlock({ content: [], structuredContent: { temperature: 21 } }, 'toolu_1').content,
    ).toBe('{\n  "temperature": 21\n}');
  });

  it('says when a tool returned nothing', () => {
    expect(toToolResultBlock({ content: [] }, 'toolu_1').content).toBe('(no output)');
  });

  it('cuts text beyond the limit and says how much', () => {
    const block = toToolResultBlock(
      {
        content: [
          { type: 'text', text: 'x'.repeat(MAX_RESULT_CHARS + 5) },
          { type: 'text', text: 'tail' },
        ],
      },
      'toolu_1',
    );
    expect(block.content).toEqual([
      { type: 'text', text: 'x'.repeat(MAX_RESULT_CHARS) },
      { type: 'text', text: '\n[Output cut: 9 more characters were not shown.]' },
    ]);
  });
});
