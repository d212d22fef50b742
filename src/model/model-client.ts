/**
 * The port between the agent loop and a model provider. The loop sends a `ModelRequest` and reads
 * a stream of `ModelStreamEvent`s; every provider failure reaches it as one `ModelError`, already
 * sorted into "retry later" and "stop and tell the operator".
 *
 * Event order for one response:
 *   message-start → per content block: [tool-use-start] → deltas → block-complete → message-complete
 * A `block-complete` is emitted as soon as the provider closes that block, while later blocks may
 * still be streaming, so a finished tool call can start before the message ends.
 */

import type {
  AssistantContentBlock,
  Message,
  ServerToolSpec,
  StopReason,
  ToolSpec,
  Usage,
} from './types.js';

export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /** Tools the provider runs itself (web search), sent after `tools`; see server-tools.ts. */
  serverTools?: readonly ServerToolSpec[];
  maxTokens: number;
  signal?: AbortSignal;
  /**
   * The first block of `messages` that differs from the request before it (context management
   * rewrote an older part); undefined when this request begins with all of the previous one.
   * Prompt caching puts a breakpoint just before it, so the unchanged part is still read from the
   * cache (prompt-cache.ts).
   */
  changedFrom?: BlockPosition;
}

/** A content block of a request: message index, then block index (0 for string content). */
export interface BlockPosition {
  message: number;
  block: number;
}

export interface CompletedMessage {
  id: string;
  model: string;
  content: AssistantContentBlock[];
  stopReason: StopReason | null;
  usage: Usage;
}

/** `index` is the provider's content-block index, so it can have gaps where blocks were skipped. */
export type ModelStreamEvent =
  | { type: 'message-start'; messageId: string; model: string; usage: Usage }
  | { type: 'text-delta'; index: number; text: string }
  | { type: 'tool-use-start'; index: number; id: string; name: string }
  | { type: 'tool-input-delta'; index: number; partialJson: string }
  | { type: 'block-complete'; index: number; block: AssistantContentBlock; inputError?: string }
  | { type: 'message-complete'; message: CompletedMessage }
  /**
   * Not a response event: the request is held until requests in flight settle what the budget
   * has set aside for them (spend-meter.ts), repeated while it waits, so that a stall watchdog
   * does not take the wait for a stalled stream. Consumers pass over it.
   */
  | { type: 'waiting-for-budget' };

export interface ModelClient {
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

export type ModelErrorKind =
  | 'authentication'
  | 'permission'
  | 'rate-limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'stream-dropped'
  | 'invalid-request'
  | 'aborted'
  | 'unknown';

export interface ModelErrorOptions {
  kind: ModelErrorKind;
  retryable: boolean;
  status?: number;
  /** The `error.type` of the provider's error body, e.g. `overloaded_error`. */
  errorType?: string;
  retryAfterMs?: number;
  requestId?: string;
  /** The URL the request went to, for messages that say where the failure was. */
  url?: string;
  /**
   * What went wrong, in the lower layer's words: `connect ECONNREFUSED 127.0.0.1:8080`,
   * `529 overloaded_error: Overloaded`. The message around it says what it means.
   */
  detail?: string;
  /** The network error code (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, …), when there is one. */
  networkCode?: string;
  cause?: unknown;
}

export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  // Declared, not initialised: an absent field stays absent instead of an own `undefined`.
  declare readonly status?: number;
  declare readonly errorType?: string;
  declare readonly retryAfterMs?: number;
  declare readonly requestId?: string;
  declare readonly url?: string;
  declare readonly detail?: string;
  declare readonly networkCode?: string;

  constructor(message: string, options: ModelErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
    this.retryable = options.retryable;
    if (options.status !== undefined) this.status = options.status;
    if (options.errorType !== undefined) this.errorType = options.errorType;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.requestId !== undefined) this.requestId = options.requestId;
    if (options.url !== undefined) this.url = options.url;
    if (options.detail !== undefined) this.detail = options.detail;
    if (options.networkCode !== undefined) this.networkCode = options.networkCode;
  }
}

/**
 * Codes that mean no connection could be made at all (nothing listens, no such host, no route):
 * the retry policy gives these few retries (retry-policy.ts `maxUnreachableRetries`).
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

export function isUnreachable(networkCode: string | undefined): boolean {
  return networkCode !== undefined && UNREACHABLE_CODES.has(networkCode);
}

export function isModelError(error: unknown): error is ModelError {
  return error instanceof ModelError;
}

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * How long the server asked us to wait, in milliseconds: `retry-after-ms` first (Anthropic sends
 * it), then `retry-after` as seconds or an HTTP date. Undefined when absent, unparseable or not
 * in the future.
 */
export function parseRetryAfter(
  headers: HeaderSource | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value > 0) return value;
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date) || date <= now) return undefined;
  return date - now;
}
