/**
 * A loopback server that speaks the Anthropic Messages API wire format from a script, for tests,
 * benchmarks and the offline demo. Point the SDK (or ANTHROPIC_BASE_URL) at `url`.
 *
 * Per POST /v1/messages:
 * 1. Record the request (headers without credentials, parsed body).
 * 2. Check the API key when one is expected (401 otherwise).
 * 3. If a fault is scripted for this request index, answer with it; the turn is not consumed.
 * 4. Otherwise take the next scripted turn (or the fallback turn) and stream it as SSE, with
 *    the turn's timing and pause point.
 *
 * Only node:http at runtime, so it can ship as it is.
 */

import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildMessage, buildStreamEvents, markPauseReached, pauseIndex } from './replay-events.js';
import type { ReplayBlock, ReplayTurn, SseEvent } from './replay-events.js';
import { closeServer, listenOnLoopback } from './loopback-server.js';

export { createPause } from './replay-events.js';
export type {
  PauseHandle,
  PausePoint,
  ReplayBlock,
  ReplayTurn,
  ReplayUsage,
  StreamEventType,
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

export interface ReplayServerOptions {
  turns?: ReplayScriptEntry[];
  /** Keyed by the 0-based index among POST /v1/messages requests that pass the key check. */
  faults?: Readonly<Record<number, ReplayFault>>;
  /** When set, requests must carry it as `x-api-key` or `Authorization: Bearer`. */
  apiKey?: string;
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
  /** Types of the SSE events written for this request so far. */
  sentEvents: string[];
}

export interface ReplayServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const FALLBACK_TEXT = '(no more scripted turns)';
const CREDENTIAL_HEADERS = new Set(['x-api-key', 'authorization']);

export async function startReplayServer(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const requests: RecordedRequest[] = [];
  const turns = options.turns ?? [];
  let nextTurn = 0;
  let messageRequests = 0;
  const sleep = options.sleep ?? defaultSleep;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const recorded: RecordedRequest = {
      index: requests.length,
      method: request.method ?? 'GET',
      path,
      headers: recordableHeaders(request),
      body: parseJson(rawBody),
      sentEvents: [],
    };
    requests.push(recorded);
    const requestId = `req_replay_${recorded.index}`;
    response.setHeader('request-id', requestId);

    if (options.apiKey !== undefined && !hasKey(request, options.apiKey)) {
      return sendError(response, recorded, 401, 'authentication_error', 'invalid x-api-key');
    }
    if (recorded.method !== 'POST' || path !== '/v1/messages') {
      return sendError(
        response,
        recorded,
        404,
        'not_found_error',
        `${recorded.method} ${path} is not scripted`,
      );
    }
    if (!isRecord(recorded.body)) {
      return sendError(
        response,
        recorded,
        400,
        'invalid_request_error',
        'The request body is not a JSON object.',
      );
    }

    const fault = options.faults?.[messageRequests++];
    if (fault?.kind === 'http-error') {
      const headers: Record<string, string> =
        fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
      return sendError(
        response,
        recorded,
        fault.status,
        fault.errorType,
        fault.message ?? fault.errorType,
        headers,
      );
    }
    const entry = turns[nextTurn];
    // A faulted request leaves its turn for the retry.
    if (fault === undefined && entry !== undefined) nextTurn++;
    const turn = normalise(
      entry === undefined
        ? [{ type: 'text', text: FALLBACK_TEXT }]
        : await resolveEntry(entry, recorded),
    );
    const build = {
      messageId: `msg_replay_${recorded.index}`,
      model: options.model ?? stringField(recorded.body, 'model') ?? 'claude-replay',
      requestChars: rawBody.length,
      jsonChunkSize: options.jsonChunkSize ?? 12,
      textChunkSize: options.textChunkSize ?? 16,
    };
    if (recorded.body['stream'] !== true) {
      recorded.status = 200;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(buildMessage(turn, build)));
      return;
    }
    await streamTurn(response, recorded, turn, buildStreamEvents(turn, build), fault);
  }

  async function streamTurn(
    response: ServerResponse,
    recorded: RecordedRequest,
    turn: ReplayTurn,
    events: SseEvent[],
    fault: ReplayFault | undefined,
  ): Promise<void> {
    const closed = new Promise<void>((resolve) => response.once('close', resolve));
    const isClosed = (): boolean => response.destroyed || response.writableEnded;
    const pauseAt = pauseIndex(events, turn.pauseAfter);
    const gaps = Math.max(1, events.length - 1);
    const wait =
      (turn.delayMs ?? options.delayMs ?? 0) + (turn.streamMs ?? options.streamMs ?? 0) / gaps;

    recorded.status = 200;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (fault !== undefined && fault.kind !== 'http-error' && index === fault.afterEvents) {
        return injectFault(response, recorded, fault);
      }
      if (index > 0 && wait > 0) await Promise.race([sleep(wait), closed]);
      if (isClosed()) return;
      await writeEvent(response, recorded, event.event, event.data);
      if (index === pauseAt && turn.pauseAfter !== undefined) {
        markPauseReached(turn.pauseAfter.handle);
        await Promise.race([turn.pauseAfter.handle.released, closed]);
      }
    }
    if (fault !== undefined && fault.kind !== 'http-error' && !isClosed()) {
      return injectFault(response, recorded, fault);
    }
    response.end();
  }

  async function resolveEntry(
    entry: ReplayScriptEntry,
    recorded: RecordedRequest,
  ): Promise<ReplayTurnInput> {
    return typeof entry === 'function' ? entry(recorded) : entry;
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message } }));
    });
  });

  const url = await listenOnLoopback(server, 'replay server');

  return {
    url,
    requests,
    // Streams held at a pause or kept alive by the client must not keep the server open.
    close: () => closeServer(server),
  };
}

async function injectFault(
  response: ServerResponse,
  recorded: RecordedRequest,
  fault: Exclude<ReplayFault, { kind: 'http-error' }>,
): Promise<void> {
  if (fault.kind === 'error-event') {
    const error = { type: fault.errorType, message: fault.message ?? fault.errorType };
    await writeEvent(response, recorded, 'error', { type: 'error', error });
    response.end();
  } else if (fault.how === 'end') {
    response.end();
  } else {
    response.socket?.destroy();
  }
}

async function writeEvent(
  response: ServerResponse,
  recorded: RecordedRequest,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  recorded.sentEvents.push(type);
  if (response.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`)) return;
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

function sendError(
  response: ServerResponse,
  recorded: RecordedRequest,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  recorded.status = status;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

function normalise(input: ReplayTurnInput): ReplayTurn {
  return Array.isArray(input) ? { content: input } : input;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function recordableHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function hasKey(request: IncomingMessage, key: string): boolean {
  return request.headers['x-api-key'] === key || request.headers.authorization === `Bearer ${key}`;
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(record: Record<string, unknown>, name: string): string | undefined {
  const value = record[name];
  return typeof value === 'string' ? value : undefined;
}

function defaultSleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
