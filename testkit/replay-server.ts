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
 * The script, the recording and the streaming are replay-session.ts's, shared with the Bedrock,
 * Vertex and Foundry servers. Only node:http at runtime, so it can ship as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildMessage, buildStreamEvents } from './replay-events.js';
import type { SseEvent } from './replay-events.js';
import {
  isRecord,
  parseJson,
  sendReply,
  startLoopbackHandler,
  stringField,
} from './replay-http.js';
import { readBody } from './loopback-server.js';
import type { HttpReply } from './replay-http.js';
import { ReplaySession } from './replay-session.js';
import type {
  RecordedRequest,
  ReplayFault,
  ReplayScriptOptions,
  ReplayServer,
  StreamFault,
  StreamFraming,
} from './replay-session.js';

export { createPause } from './replay-events.js';
export type {
  PauseHandle,
  PausePoint,
  ReplayBlock,
  ReplayTurn,
  ReplayUsage,
  StreamEventType,
} from './replay-events.js';
export { FALLBACK_TEXT } from './replay-session.js';
export type {
  RecordedRequest,
  ReplayErrorType,
  ReplayFault,
  ReplayScriptEntry,
  ReplayScriptOptions,
  ReplayServer,
  ReplayTurnInput,
} from './replay-session.js';

export interface ReplayServerOptions extends ReplayScriptOptions {
  /** Keyed by the 0-based index among POST /v1/messages requests that pass the key check. */
  faults?: Readonly<Record<number, ReplayFault>>;
  /** When set, requests must carry it as `x-api-key` or `Authorization: Bearer`. */
  apiKey?: string;
}

const CREDENTIAL_HEADERS = new Set(['x-api-key', 'authorization']);

/** The Messages API's `event: <type>\ndata: <json>` frames; Vertex and Foundry stream them too. */
export const SSE_FRAMING: StreamFraming = {
  contentType: 'text/event-stream',
  encode: (event: SseEvent) => sseFrame(event.event, event.data),
};

export async function startReplayServer(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const session = new ReplaySession<ReplayFault>(options);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = (await readBody(request)).toString('utf8');
    const recorded = session.record(request, parseJson(rawBody), CREDENTIAL_HEADERS);
    response.setHeader('request-id', `req_replay_${recorded.index}`);

    if (options.apiKey !== undefined && !hasKey(request, options.apiKey)) {
      return sendReply(
        response,
        recorded,
        anthropicError(401, 'authentication_error', 'invalid x-api-key'),
      );
    }
    if (recorded.method !== 'POST' || recorded.path !== '/v1/messages') {
      const message = `${recorded.method} ${recorded.path} is not scripted`;
      return sendReply(response, recorded, anthropicError(404, 'not_found_error', message));
    }
    if (!isRecord(recorded.body)) {
      const message = 'The request body is not a JSON object.';
      return sendReply(response, recorded, anthropicError(400, 'invalid_request_error', message));
    }
    await replayMessages(session, response, recorded, rawBody.length, {
      model: stringField(recorded.body, 'model'),
      stream: recorded.body['stream'] === true,
    });
  }

  const server = await startLoopbackHandler('replay server', handle, (message) =>
    anthropicError(500, 'api_error', message),
  );
  return { url: server.url, requests: session.requests, close: server.close };
}

/**
 * Steps 3 and 4 for a server that streams SSE (this one, Vertex, Foundry): the scripted fault
 * answered as an HTTP error (`errorReply`, default: the API's error body for `http-error`),
 * else the turn, as SSE or as one message, with a stream fault where it falls.
 */
export async function replayMessages<Fault extends { kind: string }>(
  session: ReplaySession<Fault>,
  response: ServerResponse,
  recorded: RecordedRequest,
  requestChars: number,
  call: {
    model: string | undefined;
    stream: boolean;
    errorReply?: (fault: Fault) => HttpReply | undefined;
  },
): Promise<void> {
  const fault = session.nextFault();
  const reply = fault === undefined ? undefined : (call.errorReply ?? anthropicFaultReply)(fault);
  if (reply !== undefined) return sendReply(response, recorded, reply);
  const turn = await session.takeTurn(recorded, fault !== undefined);
  const build = session.buildOptions(recorded, requestChars, call.model);
  if (!call.stream) {
    const message = buildMessage(turn, build);
    recorded.usage = message['usage'] as RecordedRequest['usage'];
    return sendReply(response, recorded, { status: 200, body: message });
  }
  const events = buildStreamEvents(turn, build);
  await session.stream(response, recorded, turn, events, SSE_FRAMING, sseStreamFault(fault));
}

export type HttpFault = Extract<ReplayFault, { kind: 'http-error' }>;

/** The API's error body, `{type: 'error', error: {type, message}}`. */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): HttpReply {
  return { status, headers, body: { type: 'error', error: { type, message } } };
}

/** An `http-error` fault as the API answers it, with its `retry-after`; other faults: none. */
export function anthropicFaultReply(fault: { kind: string }): HttpReply | undefined {
  if (!isHttpFault(fault)) return undefined;
  const headers: Record<string, string> =
    fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
  return anthropicError(fault.status, fault.errorType, fault.message ?? fault.errorType, headers);
}

export function isHttpFault(fault: { kind: string }): fault is HttpFault {
  return fault.kind === 'http-error';
}

/** A stream fault in SSE terms: an `event: error` frame, or the connection cut; others: none. */
export function sseStreamFault(fault: { kind: string } | undefined): StreamFault | undefined {
  if (fault?.kind === 'drop') return fault as Extract<ReplayFault, { kind: 'drop' }>;
  if (fault?.kind !== 'error-event') return undefined;
  const { afterEvents, errorType, message } = fault as Extract<
    ReplayFault,
    { kind: 'error-event' }
  >;
  const error = { type: errorType, message: message ?? errorType };
  return {
    kind: 'frames',
    afterEvents,
    frames: [{ name: 'error', bytes: sseFrame('error', { type: 'error', error }) }],
  };
}

function sseFrame(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function hasKey(request: IncomingMessage, key: string): boolean {
  return request.headers['x-api-key'] === key || request.headers.authorization === `Bearer ${key}`;
}
