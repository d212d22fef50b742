/**
 * The older part of a conversation as plain text, for the request that summarises it. Plain
 * text rather than the messages themselves: the summarising request then carries no tool_use
 * blocks (which would require the tool list) and no thinking signatures, and each long block is
 * clipped so the request stays well inside the window it is trying to free.
 */
import type { Message, UserContentBlock, AssistantContentBlock } from '../../model/types.js';

export const MAX_BLOCK_CHARS = 4_000;

export function renderTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      lines.push(`${speaker(message)}: ${clip(message.content)}`);
      continue;
    }
    for (const block of message.content) {
      const line = renderBlock(message, block);
      if (line !== undefined) lines.push(line);
    }
  }
  return lines.join('\n\n');
}

function renderBlock(
  message: Message,
  block: UserContentBlock | AssistantContentBlock,
): string | undefined {
  switch (block.type) {
    case 'text':
      return `${speaker(message)}: ${clip(block.text)}`;
    case 'image':
      return `${speaker(message)}: [an image]`;
    case 'tool_use':
      return `ASSISTANT called ${block.name} (${block.id}): ${clip(JSON.stringify(block.input) ?? '')}`;
    case 'tool_result': {
      const text =
        typeof block.content === 'string'
          ? block.content
          : block.content
              .map((part) => (part.type === 'text' ? part.text : '[an image]'))
              .join('\n');
      const label = block.is_error === true ? 'error' : 'result';
      return `TOOL ${label} for ${block.tool_use_id}: ${clip(text)}`;
    }
    case 'server_tool_use':
      return `ASSISTANT used ${block.name}: ${clip(JSON.stringify(block.input) ?? '')}`;
    case 'web_search_tool_result':
      return `SEARCH results: ${clip(JSON.stringify(block.content) ?? '')}`;
    // Thinking is the model's scratch work; the summary is about what was done and found.
    case 'thinking':
    case 'redacted_thinking':
      return undefined;
  }
}

function speaker(message: Message): string {
  return message.role === 'user' ? 'USER' : 'ASSISTANT';
}

function clip(text: string): string {
  if (text.length <= MAX_BLOCK_CHARS) return text;
  return `${text.slice(0, MAX_BLOCK_CHARS)}… [${text.length - MAX_BLOCK_CHARS} more characters]`;
}
