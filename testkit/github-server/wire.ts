/** The HTTP plumbing of the fake GitHub server: bodies in, replies out, nothing secret recorded. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply } from './http.js';

export function send(response: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string | Buffer = '';
  if (typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) payload = reply.body;
  else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}

export function recordableHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'authorization') continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
