/**
 * One model request of the loop, streamed: each completed tool_use goes to the executor at once
 * (or, without streaming execution, at the end of the message), and the complete blocks are
 * gathered as they arrive, so a response that breaks off can still be kept up to its last whole
 * block (see `TurnStreamError.partial`).
 */
import type { StreamingToolExecutor } from '../execution/streaming-executor.js';
import type { ModelClient, ModelRequest } from '../model/model-client.js';
import type { AssistantContentBlock, StopReason, Usage } from '../model/types.js';
import { errorMessage } from '../util/errors.js';

export interface TurnResponse {
  id: string;
  model: string;
  content: AssistantContentBlock[];
  /** Null for a partial response: the model never said why it stopped. */
  stopReason: StopReason | null;
  usage: Usage;
}

/** A stream that failed; `partial` holds the blocks that were complete, if any. */
export class TurnStreamError extends Error {
  override readonly name = 'TurnStreamError';

  constructor(
    override readonly cause: unknown,
    readonly partial: TurnResponse | undefined,
  ) {
    super(errorMessage(cause), { cause });
  }
}

export async function streamTurn(
  client: ModelClient,
  request: ModelRequest,
  executor: StreamingToolExecutor,
  streaming: boolean,
): Promise<TurnResponse> {
  let started: Omit<TurnResponse, 'content' | 'stopReason'> | undefined;
  let blocks = new Map<number, AssistantContentBlock>();
  const partial = (): TurnResponse | undefined =>
    started === undefined || blocks.size === 0
      ? undefined
      : {
          ...started,
          content: answeredOnly(
            [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block),
          ),
          stopReason: null,
        };
  try {
    for await (const event of client.stream(request)) {
      switch (event.type) {
        case 'message-start':
          // A retried request starts over: what the failed attempt sent is gone.
          started = { id: event.messageId, model: event.model, usage: event.usage };
          blocks = new Map();
          break;
        case 'block-complete':
          blocks.set(event.index, event.block);
          // Start the call now, while the model is still streaming the rest of its message.
          if (streaming && event.block.type === 'tool_use') executor.addTool(event.block);
          break;
        case 'message-complete':
          if (!streaming) {
            for (const block of event.message.content)
              if (block.type === 'tool_use') executor.addTool(block);
          }
          return {
            id: event.message.id,
            model: event.message.model,
            content: event.message.content,
            stopReason: event.message.stopReason,
            usage: event.message.usage,
          };
        default:
          break;
      }
    }
  } catch (error) {
    throw new TurnStreamError(error, partial());
  }
  throw new TurnStreamError(
    new Error('the model stream ended without a complete message'),
    partial(),
  );
}

/**
 * A server tool call (web search) whose result never arrived cannot be sent back: the API
 * rejects a `server_tool_use` without its result. Such calls leave the partial response.
 */
export function answeredOnly(blocks: AssistantContentBlock[]): AssistantContentBlock[] {
  const answered = new Set(
    blocks.flatMap((block) => (block.type === 'web_search_tool_result' ? [block.tool_use_id] : [])),
  );
  return blocks.filter((block) => block.type !== 'server_tool_use' || answered.has(block.id));
}
