/**
 * Prompt caching: `cache_control` breakpoints on the parts of a request that the next request
 * repeats. The API caches the prefix (tools → system → messages) up to each breakpoint, allows at
 * most four, and looks for an earlier cached prefix only 20 blocks back from each one.
 *
 * 1. the last tool: the tool list never changes within a run;
 * 2. the system prompt;
 * 3. the newest tool result or assistant block: everything up to it is what the next request
 *    starts with;
 * 4. the same spot as the previous request saw it (before the newest assistant message), so the
 *    prefix cached by the previous request is found even when the newest turn has more than 20
 *    blocks.
 * User text (the prompt, a Stop hook's reason) gets no breakpoint of its own: it is covered by the
 * next breakpoint after it, and a plain string message is sent as written.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
} from '@anthropic-ai/sdk/resources/messages';

const EPHEMERAL = { type: 'ephemeral' } as const;

export function withCacheBreakpoints(
  body: MessageCreateParamsStreaming,
): MessageCreateParamsStreaming {
  const marked: MessageCreateParamsStreaming = { ...body };
  if (body.tools !== undefined && body.tools.length > 0) {
    const tools = [...body.tools];
    tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: EPHEMERAL };
    marked.tools = tools;
  }
  if (typeof body.system === 'string' && body.system !== '') {
    marked.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
  }
  const newest = anchorBefore(body.messages, body.messages.length);
  const lastAssistant = body.messages.findLastIndex((message) => message.role === 'assistant');
  const previous = lastAssistant < 0 ? undefined : anchorBefore(body.messages, lastAssistant);
  marked.messages = body.messages.map((message, index) => {
    const blocks = [newest, previous].filter((anchor) => anchor?.message === index);
    if (blocks.length === 0 || typeof message.content === 'string') return message;
    const content = message.content.map((block, position) =>
      blocks.some((anchor) => anchor?.block === position)
        ? ({ ...block, cache_control: EPHEMERAL } as ContentBlockParam)
        : block,
    );
    return { ...message, content } as MessageParam;
  });
  return marked;
}

interface Anchor {
  message: number;
  block: number;
}

/** The last block before message `end` that may carry a breakpoint. */
function anchorBefore(messages: readonly MessageParam[], end: number): Anchor | undefined {
  for (let index = end - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (typeof message.content === 'string') continue;
    for (let block = message.content.length - 1; block >= 0; block--) {
      if (mayCarryBreakpoint(message.role, message.content[block]!))
        return { message: index, block };
    }
  }
  return undefined;
}

/** Thinking blocks cannot carry one; an empty text block is refused by the API. */
function mayCarryBreakpoint(role: MessageParam['role'], block: ContentBlockParam): boolean {
  if (role !== 'assistant') return block.type === 'tool_result';
  if (block.type === 'text') return block.text !== '';
  return block.type === 'tool_use';
}
