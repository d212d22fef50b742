/**
 * The sandbox's only way out to the network: an HTTP proxy on a Unix socket that the controller
 * runs outside the sandbox. The sandbox has its own network namespace (loopback only); the socket
 * is bind-mounted in and bridged to a loopback TCP port (network-bridge.ts), where HTTP_PROXY and
 * HTTPS_PROXY point. A process that ignores those variables has no route at all.
 *
 * Per request (CONNECT host:port for tunnels; an absolute-URI request for plain HTTP):
 *   1. parse the target; garbage gets 400 and the connection closes;
 *   2. match it against the allow-list (allowed-domains.ts); no entry → 403 naming the host and
 *      the policy field to change;
 *   3. a name is resolved once, and every address must pass `forbiddenAddress` (unless an
 *      IP-literal entry names that address and port); the address that passed is dialed, so a
 *      second lookup cannot answer differently (DNS rebinding);
 *   4. the tunnel is spliced, or the request is forwarded with its hop-by-hop headers dropped.
 * Every decision is recorded and handed to `onDecision`.
 */
import { rm } from 'node:fs/promises';
import { createServer, request as httpRequest, STATUS_CODES } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { parseAllowedDomains } from './allowed-domains.js';
import { errorCode, judge, parseTarget, systemResolve } from './network-judge.js';
import type { Target, Verdict } from './network-judge.js';

export { parseAllowedDomains } from './allowed-domains.js';
export type { AllowedDomain, ParsedAllowedDomains } from './allowed-domains.js';

export interface NetworkDecision {
  host: string;
  port: number;
  method: 'CONNECT' | 'HTTP';
  allowed: boolean;
  reason: string;
}

export interface NetworkProxy {
  socketPath: string;
  decisions(): readonly NetworkDecision[];
  close(): Promise<void>;
}

export interface NetworkProxyOptions {
  socketPath: string;
  /** Policy entries; an invalid one throws (check them first with `parseAllowedDomains`). */
  allowedDomains: readonly string[];
  /** Name → addresses; defaults to the system resolver (getaddrinfo, every address). */
  resolve?: (host: string) => Promise<string[]>;
  onDecision?: (decision: NetworkDecision) => void;
  /** A client that has not sent its request head by then is dropped. Default 10 s. */
  headersTimeoutMs?: number;
  /** A tunnel or request with no traffic either way for this long is closed. Default 5 min. */
  idleTimeoutMs?: number;
}

/** Header block cap (bytes): requests through a proxy need a few hundred; 400 Bad Request past it. */
const MAX_HEADER_BYTES = 16 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_CONNECTIONS = 512;
const MAX_RECORDED = 10_000;
/** sun_path is 108 bytes on Linux, one of them the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  const { socketPath } = options;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new Error(
      `network proxy socket path is ${Buffer.byteLength(socketPath)} bytes, over the ${MAX_SOCKET_PATH_BYTES} a Unix socket address holds: ${socketPath}`,
    );
  const { domains, errors } = parseAllowedDomains(options.allowedDomains);
  if (errors.length > 0) throw new Error(errors.join('\n'));
  const resolve = options.resolve ?? systemResolve;
  const idleTimeoutMs = options.idleTimeoutMs ?? 300_000;
  const recorded: NetworkDecision[] = [];
  const record = (decision: NetworkDecision) => {
    if (recorded.length < MAX_RECORDED) recorded.push(decision);
    try {
      options.onDecision?.(decision);
    } catch {
      // An observer's failure must not take the tunnel down with it.
    }
  };
  const decide = async (target: Target, method: NetworkDecision['method']) => {
    const verdict = await judge(target, domains, resolve);
    record({ ...target, method, allowed: verdict.allowed, reason: verdict.reason });
    return verdict;
  };

  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: 0,
    connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs ?? 1_000),
  });
  // Every connection holds a descriptor of the controller, which also runs the agent.
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', (socket: Socket) => {
    track(socket);
    socket.on('error', () => socket.destroy());
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return void socket.destroy();
    const [status, text, body] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', `request head over ${MAX_HEADER_BYTES} bytes`]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'request head not received in time']
          : [400, 'Bad Request', 'malformed proxy request'];
    socket.end(plainResponse(status, text, `ci-agent sandbox: ${body}`));
  });
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(request, client, head, decide, idleTimeoutMs, track).catch(() => client.destroy());
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    forward(request, response, decide, idleTimeoutMs, track).catch(() => response.destroy());
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  server.on('error', () => undefined);

  return {
    socketPath,
    decisions: () => [...recorded],
    close: async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await rm(socketPath, { force: true });
    },
  };
}

async function tunnel(
  request: IncomingMessage,
  client: Duplex,
  head: Buffer,
  decide: (target: Target, method: 'CONNECT') => Promise<Verdict>,
  idleTimeoutMs: number,
  track: (socket: Duplex) => void,
): Promise<void> {
  client.on('error', () => client.destroy());
  const target = parseTarget(request.url ?? '', undefined);
  if (!target) {
    client.end(
      plainResponse(400, 'Bad Request', 'CONNECT needs host:port, e.g. CONNECT example.com:443'),
    );
    return;
  }
  const verdict = await decide(target, 'CONNECT');
  if (client.destroyed) return;
  if (!verdict.allowed) {
    client.end(plainResponse(verdict.status, statusText(verdict.status), verdict.reason));
    return;
  }
  const upstream = connect({
    host: verdict.address,
    port: target.port,
    timeout: CONNECT_TIMEOUT_MS,
  });
  track(upstream);
  upstream.once('timeout', () => upstream.destroy(new Error('ETIMEDOUT')));
  let established = false;
  upstream.on('error', (error) => {
    if (!established && client.writable)
      client.end(
        plainResponse(
          502,
          'Bad Gateway',
          `ci-agent sandbox: ${target.host}:${target.port}: ${errorCode(error)}`,
        ),
      );
    else client.destroy();
  });
  upstream.once('connect', () => {
    established = true;
    upstream.setTimeout(idleTimeoutMs);
    upstream.removeAllListeners('timeout');
    upstream.once('timeout', () => {
      upstream.destroy();
      client.destroy();
    });
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => {
    if (established) client.destroy();
  });
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

async function forward(
  request: IncomingMessage,
  response: ServerResponse,
  decide: (target: Target, method: 'HTTP') => Promise<Verdict>,
  idleTimeoutMs: number,
  track: (socket: Duplex) => void,
): Promise<void> {
  request.on('error', () => response.destroy());
  response.on('error', () => response.destroy());
  const fail = (status: number, reason: string) => {
    if (!response.headersSent) {
      response.writeHead(status, STATUS_CODES[status], {
        'content-type': 'text/plain; charset=utf-8',
        connection: 'close',
      });
      response.end(`${reason}\n`);
    } else response.destroy();
    request.resume();
  };
  let url: URL | undefined;
  try {
    url = new URL(request.url ?? '');
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'http:') {
    fail(
      400,
      'ci-agent sandbox: this is a proxy; send an absolute http:// URI, or CONNECT host:port for https',
    );
    return;
  }
  const target = parseTarget(url.host, 80);
  if (!target) {
    fail(400, `ci-agent sandbox: cannot read the host of ${url.host}`);
    return;
  }
  const verdict = await decide(target, 'HTTP');
  if (response.destroyed) return;
  if (!verdict.allowed) {
    fail(verdict.status, verdict.reason);
    return;
  }
  // A proxy replaces Host with the request target's authority (RFC 9112 §3.2.2): the host that
  // was checked is the one the upstream serves, not another virtual host behind the same address.
  const headers: OutgoingHttpHeaders = { host: url.host };
  const named = new Set(
    (request.headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase()),
  );
  for (const [name, value] of Object.entries(request.headers))
    if (!HOP_BY_HOP.has(name) && !named.has(name) && name !== 'host' && value !== undefined)
      headers[name] = value;
  const upstream = httpRequest({
    host: verdict.address,
    port: target.port,
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    agent: false,
    timeout: idleTimeoutMs,
  });
  upstream.on('socket', track);
  upstream.on('timeout', () => upstream.destroy(new Error('ETIMEDOUT')));
  upstream.on('error', (error) =>
    fail(502, `ci-agent sandbox: ${target.host}:${target.port}: ${errorCode(error)}`),
  );
  upstream.once('response', (answer) => {
    // Event callbacks are outside forward's catch: a throw here would reach the process.
    answer.on('error', () => response.destroy());
    try {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      const status = answer.statusCode ?? 502;
      const text = /^[\t\x20-\x7e]*$/.test(answer.statusMessage ?? '')
        ? answer.statusMessage
        : undefined;
      response.writeHead(status, text ?? STATUS_CODES[status], out);
      answer.pipe(response);
    } catch {
      fail(
        502,
        `ci-agent sandbox: ${target.host}:${target.port} sent a response head that cannot be relayed`,
      );
      upstream.destroy();
    }
  });
  request.pipe(upstream);
  response.once('close', () => upstream.destroy());
}

function plainResponse(status: number, text: string, body: string): string {
  const payload = `${body.replace(/[\r\n]+/g, ' ')}\n`;
  return (
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`
  );
}

function statusText(status: number): string {
  return status === 403 ? 'Forbidden' : 'Bad Gateway';
}
