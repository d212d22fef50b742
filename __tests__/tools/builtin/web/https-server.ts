/**
 * A loopback HTTPS server for WebFetch tests: a self-signed certificate made by the real
 * `openssl` (valid for 127.0.0.1, localhost and the made-up names of NAMES, so one server can
 * play several hosts), a handler per path, and every connection and request recorded, so a test
 * can prove that none arrived.
 */
import { execaSync } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names no resolver knows: a test answers for them with a resolver of its own. */
export const NAMES = ['attacker.test', 'rebind.test'] as const;

/** The address the server listens on. WebFetch dials it only when a test names it. */
export const LOOPBACK = '127.0.0.1';

export interface Certificate {
  /** PEM; also the CA the client must trust. */
  cert: string;
  key: string;
}

let cached: Certificate | undefined;

/** One certificate per test process; making it takes openssl a moment. */
export function makeCertificate(): Certificate {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-cert-'));
  try {
    execaSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        `subjectAltName=DNS:localhost,IP:127.0.0.1,${NAMES.map((name) => `DNS:${name}`).join(',')}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cached = {
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What WebFetch needs to read this server's pages: trust in its certificate and, because WebFetch
 * fetches public addresses only, its loopback address as a test address.
 */
export function serverTrust(): { ca: string; testAddresses: readonly string[] } {
  return { ca: makeCertificate().cert, testAddresses: [LOOPBACK] };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface HttpsServer {
  port: number;
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** TCP connections accepted, TLS handshake or not. */
  readonly connections: number;
  requests: RecordedRequest[];
  /** Resolves when the next request arrives. */
  nextRequest(): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export async function startHttpsServer(
  routes: Readonly<Record<string, Handler>>,
): Promise<HttpsServer> {
  const { cert, key } = makeCertificate();
  const requests: RecordedRequest[] = [];
  let waiting: ((request: RecordedRequest) => void)[] = [];
  const server = createServer({ cert, key }, (request, response) => {
    const recorded = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: request.headers,
    };
    requests.push(recorded);
    for (const resolve of waiting) resolve(recorded);
    waiting = [];
    const handler = routes[recorded.path.split('?')[0] ?? '/'];
    if (handler) return handler(request, response);
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not here');
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    url: `https://${LOOPBACK}:${address.port}`,
    get connections() {
      return connections;
    },
    requests,
    nextRequest: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A handler answering with this body and content type. */
export function page(body: string | Buffer, contentType = 'text/html; charset=utf-8'): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(body);
  };
}

/** A handler redirecting to `location` (or what it makes of the server's port) with `status`. */
export function redirect(location: string | ((port: number) => string), status = 301): Handler {
  return (request, response) => {
    const target =
      typeof location === 'string' ? location : location(request.socket.localPort ?? 0);
    response.writeHead(status, { location: target });
    response.end();
  };
}
