/**
 * An MCP `CallToolResult` → the `tool_result` block. Text stays text; images the Messages API
 * takes become image blocks; everything else (audio, binary resources, other image types)
 * becomes a short note, so the model knows something was returned that it cannot see.
 * `isError` becomes `is_error`: the tool failed, and the model may try otherwise.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ImageBlock, TextBlock, ToolResultBlock } from '../model/types.js';

/** Characters of text a result may carry; Claude Code caps MCP output at about 25k tokens. */
export const MAX_RESULT_CHARS = 100_000;

const IMAGE_TYPES: readonly ImageBlock['source']['media_type'][] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
];

type McpContent = CallToolResult['content'][number];

export function toToolResultBlock(result: CallToolResult, toolUseId: string): ToolResultBlock {
  const blocks = result.content.map(toBlock);
  if (blocks.length === 0) {
    const structured = result.structuredContent;
    blocks.push({
      type: 'text',
      text: structured === undefined ? '(no output)' : JSON.stringify(structured, null, 2),
    });
  }
  const content = capText(blocks);
  const only = content[0];
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: content.length === 1 && only?.type === 'text' ? only.text : content,
    ...(result.isError === true && { is_error: true }),
  };
}

function toBlock(item: McpContent): TextBlock | ImageBlock {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'image': {
      const mediaType = IMAGE_TYPES.find((type) => type === item.mimeType);
      if (mediaType)
        return {
          type: 'image',
          source: { type: 'base64', media_type: mediaType, data: item.data },
        };
      return note(
        `an image of type ${item.mimeType} (${sizeOf(item.data)}), which cannot be shown`,
      );
    }
    case 'audio':
      return note(`audio of type ${item.mimeType} (${sizeOf(item.data)}), which cannot be shown`);
    case 'resource': {
      const resource = item.resource;
      if ('text' in resource) {
        return { type: 'text', text: `Resource ${resource.uri}:\n${resource.text}` };
      }
      return note(
        `the binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, which cannot be shown`,
      );
    }
    case 'resource_link':
      return {
        type: 'text',
        text: `Resource link: ${item.uri}${item.name ? ` (${item.name})` : ''}${item.description ? ` — ${item.description}` : ''}`,
      };
    default:
      return note(`content of an unknown type`);
  }
}

function note(what: string): TextBlock {
  return { type: 'text', text: `[The tool returned ${what}.]` };
}

function sizeOf(base64: string): string {
  return `${Math.floor((base64.length * 3) / 4)} bytes`;
}

/** Keeps text up to the cap; what is cut is said, with how much. */
function capText(blocks: readonly (TextBlock | ImageBlock)[]): (TextBlock | ImageBlock)[] {
  let left = MAX_RESULT_CHARS;
  let cut = 0;
  const kept: (TextBlock | ImageBlock)[] = [];
  for (const block of blocks) {
    if (block.type !== 'text') {
      kept.push(block);
      continue;
    }
    if (block.text.length <= left) {
      kept.push(block);
      left -= block.text.length;
      continue;
    }
    cut += block.text.length - left;
    if (left > 0) kept.push({ type: 'text', text: block.text.slice(0, left) });
    left = 0;
  }
  if (cut > 0) {
    kept.push({ type: 'text', text: `\n[Output cut: ${cut} more characters were not shown.]` });
  }
  return kept;
}
