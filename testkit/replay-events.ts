/**
 * The scripted side of the replay server: a turn (content blocks plus timing and usage settings)
 * becomes the exact sequence of Messages API stream events the real API would send for it.
 * Pure functions, no imports, so the server can ship on its own.
 */

export type ReplayBlock =
  /** `citations` are streamed as citations_delta events before the text. */
  | { type: 'text'; text: string; citations?: unknown[] }
  /** `rawInput` is streamed verbatim instead of `JSON.stringify(input)`, e.g. to send broken JSON. */
  | { type: 'tool_use'; id: string; name: string; input?: unknown; rawInput?: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  /** A call the API runs itself (web search); its input streams like a tool_use's. */
  | { type: 'server_tool_use'; id: string; name: string; input?: unknown }
  /** `content`: result blocks, or `{type: 'web_search_tool_result_error', error_code}`. */
  | { type: 'web_search_tool_result'; tool_use_id: string; content: unknown };

export interface ReplayUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  server_tool_use?: { web_search_requests: number };
}

export type StreamEventType =
  | 'message_start'
  | 'ping'
  | 'content_block_start'
  | 'content_block_delta'
  | 'content_block_stop'
  | 'message_delta'
  | 'message_stop';

export interface PauseHandle {
  /** Resolves once the server has written the event it pauses after. */
  readonly reached: Promise<void>;
  readonly released: Promise<void>;
  readonly isReached: boolean;
  readonly isReleased: boolean;
  release(): void;
}

/** Hold the stream after the last `event` of block `blockIndex` (or of the message) was written. */
export interface PausePoint {
  event: StreamEventType;
  blockIndex?: number;
  handle: PauseHandle;
}

export interface ReplayTurn {
  content: ReplayBlock[];
  /** Default: `tool_use` when the turn has a tool_use block, else `end_turn`. */
  stopReason?: string;
  /** Overrides the estimated usage reported in message_start (input, cache) and message_delta (output). */
  usage?: Partial<ReplayUsage>;
  /** Extra fields message_delta repeats, as the API does for server-side tools and cache counts. */
  messageDeltaUsage?: Partial<ReplayUsage>;
  model?: string;
  /** Wait between two events, in milliseconds. */
  delayMs?: number;
  /** Total time for the whole stream, spread evenly over the gaps between events. */
  streamMs?: number;
  jsonChunkSize?: number;
  textChunkSize?: number;
  pauseAfter?: PausePoint;
}

export interface SseEvent {
  event: StreamEventType;
  data: Record<string, unknown>;
  /** The content block the event belongs to, if any. */
  blockIndex?: number;
}

/** A gate a test puts into a turn to hold the stream at a known point. */
export function createPause(): PauseHandle {
  return new Pause();
}

class Pause implements PauseHandle {
  readonly reached: Promise<void>;
  readonly released: Promise<void>;
  isReached = false;
  isReleased = false;
  private resolveReached: () => void = () => {};
  private resolveReleased: () => void = () => {};

  constructor() {
    this.reached = new Promise((resolve) => (this.resolveReached = resolve));
    this.released = new Promise((resolve) => (this.resolveReleased = resolve));
  }

  release(): void {
    this.isReleased = true;
    this.resolveReleased();
  }

  markReached(): void {
    this.isReached = true;
    this.resolveReached();
  }
}

/** Handles made by `createPause` are told when the server reaches them; others just wait. */
export function markPauseReached(handle: PauseHandle): void {
  if (handle instanceof Pause) handle.markReached();
}

export function splitIntoChunks(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += step)
    chunks.push(text.slice(start, start + step));
  return chunks;
}

export interface BuildOptions {
  messageId: string;
  model: string;
  /** Size of the request body, used to estimate input tokens. */
  requestChars: number;
  jsonChunkSize: number;
  textChunkSize: number;
}

export function buildStreamEvents(turn: ReplayTurn, options: BuildOptions): SseEvent[] {
  const usage = estimateUsage(turn, options.requestChars);
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...messageEnvelope(turn, options),
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  turn.content.forEach((block, index) => events.push(...blockEvents(block, index, turn, options)));
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReasonOf(turn), stop_sequence: null },
        usage: { ...turn.messageDeltaUsage, output_tokens: usage.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

/** The same turn as one JSON response, for requests without `stream: true`. */
export function buildMessage(turn: ReplayTurn, options: BuildOptions): Record<string, unknown> {
  return {
    ...messageEnvelope(turn, options),
    content: turn.content.map((block) =>
      block.type === 'tool_use' || block.type === 'server_tool_use'
        ? { type: block.type, id: block.id, name: block.name, input: block.input ?? {} }
        : block,
    ),
    stop_reason: stopReasonOf(turn),
    usage: estimateUsage(turn, options.requestChars),
  };
}

function messageEnvelope(turn: ReplayTurn, options: BuildOptions): Record<string, unknown> {
  return {
    id: options.messageId,
    type: 'message',
    role: 'assistant',
    model: turn.model ?? options.model,
    stop_sequence: null,
  };
}

function blockEvents(
  block: ReplayBlock,
  index: number,
  turn: ReplayTurn,
  options: BuildOptions,
): SseEvent[] {
  const textSize = turn.textChunkSize ?? options.textChunkSize;
  let start: Record<string, unknown>;
  let deltas: Array<Record<string, unknown>>;
  switch (block.type) {
    case 'text':
      start =
        block.citations === undefined
          ? { type: 'text', text: '' }
          : { type: 'text', text: '', citations: [] };
      deltas = [
        ...(block.citations ?? []).map((citation) => ({ type: 'citations_delta', citation })),
        ...splitIntoChunks(block.text, textSize).map((text) => ({ type: 'text_delta', text })),
      ];
      break;
    case 'tool_use':
    case 'server_tool_use': {
      start = { type: block.type, id: block.id, name: block.name, input: {} };
      const json =
        (block.type === 'tool_use' ? block.rawInput : undefined) ??
        JSON.stringify(block.input ?? {});
      const size = turn.jsonChunkSize ?? options.jsonChunkSize;
      deltas = splitIntoChunks(json, size).map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
      break;
    }
    case 'thinking':
      start = { type: 'thinking', thinking: '', signature: '' };
      deltas = [
        ...splitIntoChunks(block.thinking, textSize).map((thinking) => ({
          type: 'thinking_delta',
          thinking,
        })),
        { type: 'signature_delta', signature: block.signature },
      ];
      break;
    case 'redacted_thinking':
      start = { type: 'redacted_thinking', data: block.data };
      deltas = [];
      break;
    case 'web_search_tool_result':
      // The API sends a search result whole in its start event.
      start = { type: block.type, tool_use_id: block.tool_use_id, content: block.content };
      deltas = [];
      break;
  }
  return [
    {
      event: 'content_block_start',
      blockIndex: index,
      data: { type: 'content_block_start', index, content_block: start },
    },
    ...deltas.map((delta): SseEvent => ({
      event: 'content_block_delta',
      blockIndex: index,
      data: { type: 'content_block_delta', index, delta },
    })),
    { event: 'content_block_stop', blockIndex: index, data: { type: 'content_block_stop', index } },
  ];
}

function stopReasonOf(turn: ReplayTurn): string {
  if (turn.stopReason !== undefined) return turn.stopReason;
  return turn.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** About four characters per token, like the API's own rule of thumb. */
function estimateUsage(turn: ReplayTurn, requestChars: number): ReplayUsage {
  const outputChars = turn.content.reduce(
    (total, block) => total + JSON.stringify(block).length,
    0,
  );
  return {
    input_tokens: Math.max(1, Math.ceil(requestChars / 4)),
    output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ...turn.usage,
  };
}

/** Index of the event after which the stream pauses, or -1. */
export function pauseIndex(events: SseEvent[], point: PausePoint | undefined): number {
  if (point === undefined) return -1;
  let found = -1;
  events.forEach((event, index) => {
    if (event.event !== point.event) return;
    if (point.blockIndex !== undefined && event.blockIndex !== point.blockIndex) return;
    found = index;
  });
  return found;
}
