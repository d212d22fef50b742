/**
 * The HTTP plumbing the replaying servers share: read a body, parse it, send a JSON answer and
 * record its status, compare secrets, and start a loopback server whose crashes answer 500 in
 * the server's own error format.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { closeServer, listenOnLoopback } from './loopback-server.js';
import type { RecordedRequest } from './replay-session.js';

/** A whole answer: status, headers beside `content-type: application/json`, and the JSON body. */
export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface LoopbackHandle {
  url: string;
  close: () => Promise<void>;
}

/**
 * Starts `handle` on a free port of 127.0.0.1. What it throws becomes `crashReply(message)`, or
 * a destroyed socket once the answer has begun.
 */
export async function startLoopbackHandler(
  name: string,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  crashReply: (message: string) => HttpReply,
): Promise<LoopbackHandle> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const reply = crashReply(error instanceof Error ? error.message : String(error));
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify(reply.body));
    });
  });
  const url = await listenOnLoopback(server, name);
  // Streams held at a pause or kept alive by the client must not keep the server open.
  return { url, close: () => closeServer(server) };
}

export function sendReply(
  response: ServerResponse,
  recorded: RecordedRequest | undefined,
  reply: HttpReply,
): void {
  if (recorded !== undefined) recorded.status = reply.status;
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(JSON.stringify(reply.body));
}

export function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringField(record: Record<string, unknown>, name: string): string | undefined {
  const value = record[name];
  return typeof value === 'string' ? value : undefined;
}

/** The token of `Authorization: Bearer <token>`, if the request sent one. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** Compares a secret without leaking how much of it matched through the time taken. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A percent-encoded path segment, decoded; a malformed escape stays as it came. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
