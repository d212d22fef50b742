/**
 * The largest MCP message ci-agent reads from a server, and the stdio reader that holds to it.
 *
 * 8 MiB: several times the largest image the model accepts (5 MB, ~6.7 MB as base64), far above
 * the 100,000 characters of text a result keeps (tool-result.ts). A server sending more is
 * faulty or hostile; reading on would hold tens of MB in memory and, over stdio, there is no
 * way back into step once a message is cut, so the limit is checked as bytes arrive.
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** `8 MiB`, `40.0 MiB`, `512 bytes`: sizes as the messages say them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${bytes} bytes`;
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

/** What a server did that sent too much; `atLeast` when the message's end was never read. */
export function oversizePhrase(bytes: number, limit: number, atLeast: boolean): string {
  return `sent a message of ${atLeast ? 'at least ' : ''}${formatBytes(bytes)}, over the ${formatBytes(limit)} limit for one MCP message`;
}

export type LineEvent =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'invalid'; error: Error }
  | { kind: 'oversize'; bytes: number };

/**
 * Newline-delimited JSON-RPC, as the SDK's ReadBuffer reads it, but without copying the whole
 * buffer on every chunk and with a limit on one line. After `oversize` the reader is spent: the
 * rest of the stream is ignored.
 */
export class LimitedLineReader {
  private chunks: Buffer[] = [];
  private pending = 0;
  private spent = false;

  constructor(private readonly limit = MAX_MESSAGE_BYTES) {}

  /** The complete lines of `chunk` (with what came before), in order. */
  push(chunk: Buffer): LineEvent[] {
    if (this.spent) return [];
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end === -1) break;
      if (this.pending + end - start > this.limit) return this.overflow(events, end - start);
      const line = Buffer.concat([...this.chunks, chunk.subarray(start, end)]);
      this.chunks = [];
      this.pending = 0;
      start = end + 1;
      events.push(parseLine(line));
    }
    const rest = chunk.length - start;
    if (this.pending + rest > this.limit) return this.overflow(events, rest);
    if (rest > 0) {
      this.chunks.push(chunk.subarray(start));
      this.pending += rest;
    }
    return events;
  }

  clear(): void {
    this.chunks = [];
    this.pending = 0;
  }

  private overflow(events: LineEvent[], more: number): LineEvent[] {
    events.push({ kind: 'oversize', bytes: this.pending + more });
    this.spent = true;
    this.clear();
    return events;
  }
}

function parseLine(line: Buffer): LineEvent {
  const text = line.toString('utf8').replace(/\r$/, '');
  try {
    return { kind: 'message', message: deserializeMessage(text) };
  } catch (error) {
    return { kind: 'invalid', error: error instanceof Error ? error : new Error(String(error)) };
  }
}
