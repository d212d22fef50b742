/**
 * The fetch the http and sse transports use: the one-message limit (message-limit.ts) checked as
 * a response's bytes arrive. A JSON body counts whole; an event stream counts each event (up to
 * its blank line). Past the limit the body errors at once, and `onOversize` is told which
 * JSON-RPC requests the response was answering, so that those calls fail now rather than at
 * their timeout. HTTP frames each response, so unlike stdio the connection stays usable.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface Oversize {
  /** Ids of the JSON-RPC requests the POST carried; none for the standalone GET stream. */
  requestIds: Array<string | number>;
  bytes: number;
  /** The message's end was never read: it is at least `bytes`. */
  atLeast: boolean;
}

export function limitedFetch(
  limit: number,
  onOversize: (oversize: Oversize) => void,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.status < 200 || response.status > 299 || !response.body) return response;
    const requestIds = requestIdsOf(init);
    const fail = (bytes: number, atLeast: boolean): Error => {
      onOversize({ requestIds, bytes, atLeast });
      return new Error(`the response holds a message over the ${limit}-byte limit`);
    };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > limit) {
      await response.body.cancel().catch(() => undefined);
      const error = fail(declared, false);
      return rebuild(response, new ReadableStream({ start: (c) => c.error(error) }));
    }
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const counter = sse ? sseCounter(limit, fail) : bodyCounter(limit, fail);
    return rebuild(response, response.body.pipeThrough(counter));
  };
}

function rebuild(response: Response, body: ReadableStream<Uint8Array>): Response {
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

type Fail = (bytes: number, atLeast: boolean) => Error;

function bodyCounter(limit: number, fail: Fail): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > limit) controller.error(fail(total, true));
      else controller.enqueue(chunk);
    },
  });
}

/** Bytes of the current event: reset at each empty line (`\n\n`, `\r\n\r\n`). */
function sseCounter(limit: number, fail: Fail): TransformStream<Uint8Array, Uint8Array> {
  let event = 0;
  let line = 0;
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        const stop = end === -1 ? chunk.length : end;
        const text = stop - start - (stop > start && chunk[stop - 1] === 0x0d ? 1 : 0);
        line += text;
        event += stop - start;
        if (event > limit) {
          controller.error(fail(event, true));
          return;
        }
        if (end === -1) break;
        if (line === 0) event = 0;
        line = 0;
        start = end + 1;
      }
      controller.enqueue(chunk);
    },
  });
}

function requestIdsOf(init: RequestInit | undefined): Array<string | number> {
  if (init?.method !== 'POST' || typeof init.body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(init.body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.flatMap((message) => {
      if (typeof message !== 'object' || message === null) return [];
      const { id, method } = message as { id?: unknown; method?: unknown };
      return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')
        ? [id]
        : [];
    });
  } catch {
    return [];
  }
}
