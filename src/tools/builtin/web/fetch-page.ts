/**
 * One GET over https, with the limits WebFetch needs:
 * 1. redirects within the same origin are followed (up to 10); one to another origin is returned
 *    unfollowed, because the new host must pass the domain rules in a call of its own;
 * 2. the body is decompressed as it arrives and cut at `maxBytes` (counted after decompression,
 *    so a small gzip bomb cannot grow past it);
 * 3. one timer covers the whole fetch, redirects included; the call's signal aborts it too;
 * 4. the host is resolved once, before the first request, and every address is checked
 *    (public-address.ts); every request of the fetch connects to that one checked address, with
 *    a connection of its own (no pooled socket another request opened).
 * node:https rather than fetch(): its `lookup` option pins the address, its `ca` option lets
 * tests trust their own certificate, and it never follows a redirect by itself.
 */
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { systemResolve } from '../../../sandbox/network-judge.js';
import { publicAddress } from './public-address.js';
import type { DialAddress, Resolve } from './public-address.js';
import { hostOf, isSameOrigin, upgradeToHttps } from './web-url.js';

export const USER_AGENT = 'Claude-User (ci-agent; +https://github.com/features/actions)';
export const MAX_REDIRECTS = 10;

export interface FetchLimits {
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
  /** Extra certificate authorities to trust (PEM); tests use it for their own server. */
  ca?: string;
  /** Host name to addresses; the system's resolver by default, a test's own for names it makes up. */
  resolve?: Resolve;
  /** Non-public addresses a test's own server listens on (public-address.ts); none otherwise. */
  testAddresses?: readonly string[];
}

export interface FetchedPage {
  kind: 'page';
  /** Where the content came from, after same-origin redirects. */
  url: URL;
  code: number;
  codeText: string;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

export interface CrossOriginRedirect {
  kind: 'redirect';
  from: URL;
  to: URL;
  code: number;
  codeText: string;
}

export async function fetchPage(
  url: URL,
  limits: FetchLimits,
): Promise<FetchedPage | CrossOriginRedirect> {
  const timer = new AbortController();
  const timeout = setTimeout(
    () => timer.abort(new Error(`WebFetch timed out after ${limits.timeoutMs / 1000} s`)),
    limits.timeoutMs,
  );
  const signal = AbortSignal.any([limits.signal, timer.signal]);
  try {
    const address = await untilAborted(
      publicAddress(hostOf(url), {
        resolve: limits.resolve ?? systemResolve,
        testAddresses: limits.testAddresses ?? [],
      }),
      signal,
    );
    let current = url;
    // Every URL of the loop has the origin of `url` (a redirect elsewhere is returned), so
    // `address` is the checked address of its host.
    for (let redirects = 0; ; redirects++) {
      const response = await get(current, address, signal, limits.ca);
      const location = response.headers.location;
      if (!isRedirect(response.statusCode) || location === undefined) {
        const { body, truncated } = await readBody(response, limits.maxBytes, signal);
        return {
          kind: 'page',
          url: current,
          ...status(response),
          ...typeOf(response),
          body,
          truncated,
        };
      }
      response.resume();
      const target = upgradeToHttps(new URL(location, current));
      if (!isSameOrigin(current, target)) {
        return { kind: 'redirect', from: url, to: target, ...status(response) };
      }
      if (redirects >= MAX_REDIRECTS) {
        throw new Error(`${url.href} redirected more than ${MAX_REDIRECTS} times`);
      }
      current = target;
    }
  } catch (error) {
    throw signal.aborted ? abortReason(signal) : error;
  } finally {
    clearTimeout(timeout);
  }
}

function get(
  url: URL,
  address: DialAddress,
  signal: AbortSignal,
  ca: string | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'GET',
      signal,
      // A connection of this request's own, to the checked address; the URL's host still names
      // the server in the TLS handshake (SNI, certificate check) and in the Host header.
      agent: false,
      lookup: pinnedLookup(address),
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
      ...(ca !== undefined && { ca }),
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
}

function pinnedLookup({ address, family }: DialAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const stop = () => reject(abortReason(signal));
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

function isRedirect(code: number | undefined): boolean {
  return code === 301 || code === 302 || code === 303 || code === 307 || code === 308;
}

function status(response: IncomingMessage): { code: number; codeText: string } {
  const code = response.statusCode ?? 0;
  return { code, codeText: response.statusMessage || STATUS_CODES[code] || '' };
}

function typeOf(response: IncomingMessage): { contentType: string } {
  return { contentType: response.headers['content-type'] ?? '' };
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      signal.throwIfAborted();
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - size));
        return { body: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } finally {
    // Stop downloading whatever is left (a cut-off body, an abort).
    if (!response.complete) response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('WebFetch was cancelled');
}
