/**
 * What every replaying model server shares, whatever wire format it speaks (the Messages API in
 * replay-server.ts; Bedrock, Vertex and Foundry beside it):
 * 1. record each request: headers without the credentials the server names, parsed body;
 * 2. count the model requests that reach the script and hand out the fault scripted for each;
 * 3. take the next scripted turn, or the fallback turn; a faulted request leaves its turn for the
 *    retry;
 * 4. stream the turn's events through the server's framing (SSE, or AWS event-stream messages)
 *    with the turn's timing and pause point, and the fault at its place in the stream.
 *
 * Only node: imports at runtime, so the demo can ship it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { markPauseReached, pauseIndex } from './replay-events.js';
import type {
  BuildOptions,
  ReplayBlock,
  ReplayTurn,
  ReplayUsage,
  SseEvent,
} from './replay-events.js';

export type ReplayTurnInput = ReplayBlock[] | ReplayTurn;
export type ReplayScriptEntry =
  ReplayTurnInput | ((request: RecordedRequest) => ReplayTurnInput | Promise<ReplayTurnInput>);

export type ReplayErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

export type ReplayFault =
  | {
      kind: 'http-error';
      status: number;
      errorType: ReplayErrorType;
      message?: string;
      /** Sent as the `retry-after` header (seconds or an HTTP date). */
      retryAfter?: string;
    }
  /** `reset` destroys the socket; `end` finishes the response cleanly but early. */
  | { kind: 'drop'; afterEvents: number; how?: 'reset' | 'end' }
  /** An `event: error` inside a 200 stream, as the API sends when it overloads mid-response. */
  | { kind: 'error-event'; afterEvents: number; errorType: ReplayErrorType; message?: string };

/** The script and its timing: what every replaying server takes, whatever its wire format. */
export interface ReplayScriptOptions {
  turns?: ReplayScriptEntry[];
  /** The `model` the streamed message names; default: the model the request named. */
  model?: string;
  /** Defaults for every turn; a turn's own setting wins. */
  jsonChunkSize?: number;
  textChunkSize?: number;
  delayMs?: number;
  streamMs?: number;
  /** Replaces the timer used between events, so tests can see the waits without sleeping. */
  sleep?: (milliseconds: number) => Promise<void>;
}

export interface RecordedRequest {
  /** Position among all requests this server received. */
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  status?: number;
  /** Types of the events written for this request so far (exception types too, on Bedrock). */
  sentEvents: string[];
  /** The model the request named: the path's model id (Bedrock, Vertex), the body's (Foundry). */
  modelId?: string;
  /**
   * The usage this server reported for the request in what it wrote before the response ended:
   * message_start's, with message_delta's counts over it once that was written (the whole
   * message's for a request without streaming). The server's own count, for tests of spend.
   */
  usage?: ReplayUsage;
}

/** What every replaying server answers: its base URL, what it received, and how to stop it. */
export interface ReplayServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A cloud provider's replaying server, and the `baseURL` its SDK must be given. */
export interface ProviderServer extends ReplayServer {
  baseURL: string;
}

/** How a server puts one Messages API stream event on the wire. */
export interface StreamFraming {
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
  encode(event: SseEvent): string | Uint8Array;
}

/** A fault inside a 200 stream, once the server has translated it into its own wire format. */
export type StreamFault =
  | { kind: 'drop'; afterEvents: number; how?: 'reset' | 'end' }
  /** Writes `frames` after `afterEvents` events, then ends the response. */
  | { kind: 'frames'; afterEvents: number; frames: ReadonlyArray<StreamFrame> };

export interface StreamFrame {
  /** Recorded in `sentEvents`. */
  name: string;
  bytes: string | Uint8Array;
}

export const FALLBACK_TEXT = '(no more scripted turns)';

/** One server's script, counters and log of requests. */
export class ReplaySession<Fault> {
  readonly requests: RecordedRequest[] = [];
  private nextTurn = 0;
  private modelRequests = 0;
  private readonly sleep: (milliseconds: number) => Promise<void>;

  constructor(
    private readonly options: ReplayScriptOptions & { faults?: Readonly<Record<number, Fault>> },
  ) {
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Step 1: the request as tests see it; `credentials` are header names never recorded. */
  record(
    request: IncomingMessage,
    body: unknown,
    credentials: ReadonlySet<string>,
  ): RecordedRequest {
    const recorded: RecordedRequest = {
      index: this.requests.length,
      method: request.method ?? 'GET',
      path: (request.url ?? '/').split('?')[0] ?? '/',
      headers: recordableHeaders(request, credentials),
      body,
      sentEvents: [],
    };
    this.requests.push(recorded);
    return recorded;
  }

  /** Step 2: the fault for the model request that has passed every check, if one is scripted. */
  nextFault(): Fault | undefined {
    return this.options.faults?.[this.modelRequests++];
  }

  /** Step 3: the turn to answer with; `faulted` keeps the scripted turn for the next request. */
  async takeTurn(recorded: RecordedRequest, faulted: boolean): Promise<ReplayTurn> {
    const entry = this.options.turns?.[this.nextTurn];
    if (!faulted && entry !== undefined) this.nextTurn++;
    if (entry === undefined) return { content: [{ type: 'text', text: FALLBACK_TEXT }] };
    const input = typeof entry === 'function' ? await entry(recorded) : entry;
    return Array.isArray(input) ? { content: input } : input;
  }

  buildOptions(recorded: RecordedRequest, requestChars: number, model?: string): BuildOptions {
    return {
      messageId: `msg_replay_${recorded.index}`,
      model: this.options.model ?? model ?? 'claude-replay',
      requestChars,
      jsonChunkSize: this.options.jsonChunkSize ?? 12,
      textChunkSize: this.options.textChunkSize ?? 16,
    };
  }

  /** Step 4: writes the events with the turn's timing and pause, and the fault where it falls. */
  async stream(
    response: ServerResponse,
    recorded: RecordedRequest,
    turn: ReplayTurn,
    events: SseEvent[],
    framing: StreamFraming,
    fault: StreamFault | undefined,
  ): Promise<void> {
    const closed = new Promise<void>((resolve) => response.once('close', resolve));
    const isClosed = (): boolean => response.destroyed || response.writableEnded;
    const pauseAt = pauseIndex(events, turn.pauseAfter);
    const gaps = Math.max(1, events.length - 1);
    const wait =
      (turn.delayMs ?? this.options.delayMs ?? 0) +
      (turn.streamMs ?? this.options.streamMs ?? 0) / gaps;

    recorded.status = 200;
    response.writeHead(200, {
      'content-type': framing.contentType,
      'cache-control': 'no-cache',
      ...framing.headers,
    });
    response.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (index === fault?.afterEvents) return injectFault(response, recorded, fault);
      if (index > 0 && wait > 0) await Promise.race([this.sleep(wait), closed]);
      if (isClosed()) return;
      noteUsage(recorded, event);
      await writeFrame(response, recorded, event.event, framing.encode(event));
      if (index === pauseAt && turn.pauseAfter !== undefined) {
        markPauseReached(turn.pauseAfter.handle);
        await Promise.race([turn.pauseAfter.handle.released, closed]);
      }
    }
    if (fault !== undefined && !isClosed()) return injectFault(response, recorded, fault);
    response.end();
  }
}

/** What the event about to be written reports of usage, kept on the request (`usage`). */
function noteUsage(recorded: RecordedRequest, event: SseEvent): void {
  const source =
    event.event === 'message_start'
      ? (event.data['message'] as { usage?: Partial<ReplayUsage> } | undefined)?.usage
      : event.event === 'message_delta'
        ? (event.data['usage'] as Partial<ReplayUsage> | undefined)
        : undefined;
  if (source === undefined) return;
  recorded.usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ...recorded.usage,
    ...source,
  };
}

async function injectFault(
  response: ServerResponse,
  recorded: RecordedRequest,
  fault: StreamFault,
): Promise<void> {
  if (fault.kind === 'frames') {
    for (const frame of fault.frames) await writeFrame(response, recorded, frame.name, frame.bytes);
    response.end();
  } else if (fault.how === 'end') {
    response.end();
  } else {
    response.socket?.destroy();
  }
}

async function writeFrame(
  response: ServerResponse,
  recorded: RecordedRequest,
  name: string,
  bytes: string | Uint8Array,
): Promise<void> {
  recorded.sentEvents.push(name);
  if (response.write(bytes)) return;
  // Whichever comes first wins; the other listener goes, so long streams do not pile them up.
  await new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}

function recordableHeaders(
  request: IncomingMessage,
  credentials: ReadonlySet<string>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || credentials.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function defaultSleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
