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
 * When context management rewrote an older part of the conversation (`changedFrom`), the last
 * block before the first change takes the tools' place (the system prompt's breakpoint covers
 * the tools): the unchanged part is found in the cache from there (an earlier request's
 * breakpoint lies at most 20 blocks before it, since every request marks its newest block),
 * where from the newest block the change may be too far back and only the system prompt is read.
 * User text (the prompt, a Stop hook's reason) gets no breakpoint of its own: it is covered by the
 * next breakpoint after it, and a plain string message is sent as written.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { BlockPosition } from './model-client.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

export function withCacheBreakpoints(
  body: MessageCreateParamsStreaming,
  changedFrom?: BlockPosition,
): MessageCreateParamsStreaming {
  const marked: MessageCreateParamsStreaming = { ...body };
  const newest = anchorBefore(body.messages, { message: body.messages.length, block: 0 });
  const lastAssistant = body.messages.findLastIndex((message) => message.role === 'assistant');
  const previous =
    lastAssistant < 0
      ? undefined
      : anchorBefore(body.messages, { message: lastAssistant, block: 0 });
  const before = changedFrom === undefined ? undefined : anchorBefore(body.messages, changedFrom);
  const unchanged = [newest, previous].some((anchor) => sameBlock(anchor, before))
    ? undefined
    : before;
  if (unchanged === undefined && body.tools !== undefined && body.tools.length > 0) {
    const tools = [...body.tools];
    tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: EPHEMERAL };
    marked.tools = tools;
  }
  if (typeof body.system === 'string' && body.system !== '') {
    marked.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
  }
  marked.messages = body.messages.map((message, index) => {
    const blocks = [newest, previous, unchanged].filter((anchor) => anchor?.message === index);
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

type Anchor = BlockPosition;

/** The last block before `end` that may carry a breakpoint. */
function anchorBefore(messages: readonly MessageParam[], end: BlockPosition): Anchor | undefined {
  for (let index = Math.min(end.message, messages.length - 1); index >= 0; index--) {
    const message = messages[index]!;
    if (typeof message.content === 'string') continue;
    const stop = index === end.message ? end.block : message.content.length;
    for (let block = Math.min(stop, message.content.length) - 1; block >= 0; block--) {
      if (mayCarryBreakpoint(message.role, message.content[block]!))
        return { message: index, block };
    }
  }
  return undefined;
}

function sameBlock(a: Anchor | undefined, b: Anchor | undefined): boolean {
  return a !== undefined && b !== undefined && a.message === b.message && a.block === b.block;
}

/** Thinking blocks cannot carry one; an empty text block is refused by the API. */
function mayCarryBreakpoint(role: MessageParam['role'], block: ContentBlockParam): boolean {
  if (role !== 'assistant') return block.type === 'tool_result';
  if (block.type === 'text') return block.text !== '';
  return block.type === 'tool_use';
}
