import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNetworkProxy } from '../../src/sandbox/network-proxy.js';
import type { NetworkDecision, NetworkProxyOptions } from '../../src/sandbox/network-proxy.js';

let echo: Server;
let echoPort: number;
let web: HttpServer;
let webPort: number;
let seen: IncomingHttpHeaders[];
let dir: string;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  dir = mkdtempSync('/tmp/ci-agent-proxy-test-');
  echo = createServer((socket) => socket.pipe(socket));
  web = createHttpServer((request, response) => {
    seen.push(request.headers);
    response.end(`web saw ${request.method} ${request.url}`);
  });
  await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
  await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
  echoPort = (echo.address() as AddressInfo).port;
  webPort = (web.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const proxy of open.splice(0)) await proxy.close();
});

afterAll(async () => {
  echo.close();
  web.close();
  rmSync(dir, { recursive: true, force: true });
});

let count = 0;
async function proxy(
  allowedDomains: string[],
  options: Partial<NetworkProxyOptions> = {},
): Promise<{ socketPath: string; decisions: () => readonly NetworkDecision[] }> {
  const started = await startNetworkProxy({
    socketPath: join(dir, `p${++count}.sock`),
    allowedDomains,
    resolve: async (host) => {
      throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    },
    ...options,
  });
  open.push(started);
  return started;
}

/** Sends `text`, collects everything the proxy sends until it closes (or `until` is seen). */
function exchange(socketPath: string, text: string | Buffer, until?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (until !== undefined && received.includes(until)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
  });
}

/** CONNECT, then "ping" through the tunnel; the echo server sends it back. */
async function connectAndPing(socketPath: string, target: string): Promise<string> {
  return exchange(socketPath, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\nping`, 'ping');
}

function get(socketPath: string, url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest({
      socketPath,
      path: url,
      headers: { host: new URL(url).host, ...headers },
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const loopbackResolve = async () => ['127.0.0.1'];

describe('startNetworkProxy', () => {
  describe('CONNECT', () => {
    it('tunnels to a loopback echo server allowed by its IP literal and port', async () => {
      const { socketPath, decisions } = await proxy([`127.0.0.1:${echoPort}`]);
      const received = await connectAndPing(socketPath, `127.0.0.1:${echoPort}`);
      expect(received).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nping$/);
      expect(decisions()).toEqual([
        {
          host: '127.0.0.1',
          port: echoPort,
          method: 'CONNECT',
          allowed: true,
          reason: `allowed by "127.0.0.1:${echoPort}"`,
        },
      ]);
    });

    it('tunnels to an IPv6 literal allowed in brackets', async () => {
      const echo6 = createServer((socket) => socket.pipe(socket));
      await new Promise<void>((done) => echo6.listen(0, '::1', done));
      const port = (echo6.address() as AddressInfo).port;
      try {
        const { socketPath, decisions } = await proxy([`[::1]:${port}`]);
        expect(await connectAndPing(socketPath, `[0:0::1]:${port}`)).toMatch(/200 .*\r\n\r\nping$/);
        expect(decisions()[0]).toMatchObject({ host: '::1', port, allowed: true });
      } finally {
        echo6.close();
      }
    });

    it('refuses the same address on a port its entry does not name', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${echoPort + 1}`]);
      const received = await connectAndPing(socketPath, `127.0.0.1:${echoPort}`);
      expect(received).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(received).not.toContain('ping');
    });

    it('answers 403 naming the host, the allow-list and the field for a name not on it', async () => {
      const seenDecisions: NetworkDecision[] = [];
      const { socketPath, decisions } = await proxy(['registry.npmjs.org'], {
        onDecision: (decision) => seenDecisions.push(decision),
      });
      const received = await connectAndPing(socketPath, 'evil.example:443');
      expect(received).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      const body = received.split('\r\n\r\n')[1] ?? '';
      expect(body).toBe(
        `ci-agent sandbox: evil.example:443 is not in the policy's sandbox.network.allowedDomains; the sandbox reaches only the hosts listed there. Add "evil.example" to sandbox.network.allowedDomains in the policy if this command needs it.\n`,
      );
      expect(decisions()).toEqual([
        { host: 'evil.example', port: 443, method: 'CONNECT', allowed: false, reason: body.trim() },
      ]);
      expect(seenDecisions).toEqual(decisions());
    });

    it('refuses an allowed name that resolves to loopback, and does not dial it', async () => {
      const { socketPath, decisions } = await proxy(['upstream.test'], {
        resolve: loopbackResolve,
      });
      const received = await connectAndPing(socketPath, `upstream.test:${echoPort}`);
      expect(received).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(received).toContain(
        `upstream.test is allowed by "upstream.test" but resolves to 127.0.0.1, a loopback address`,
      );
      expect(received).toContain(`add the address itself ("127.0.0.1:${echoPort}")`);
      expect(decisions()[0]?.allowed).toBe(false);
    });

    it('refuses localhost when the system resolver answers with loopback', async () => {
      const started = await startNetworkProxy({
        socketPath: join(dir, 'system-resolver.sock'),
        allowedDomains: ['localhost'],
      });
      open.push(started);
      const received = await connectAndPing(started.socketPath, `localhost:${echoPort}`);
      expect(received).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(received).toMatch(/resolves to (127\.0\.0\.1|::1), a loopback address/);
    });

    it.each([
      ['a cloud metadata address', '169.254.169.254'],
      ['an IPv4-mapped loopback address', '::ffff:127.0.0.1'],
      ['a mix of a public and a loopback address', '104.16.0.35,127.0.0.1'],
      ['a link-local address with a zone', 'fe80::1%eth0'],
    ])('refuses an allowed name that resolves to %s', async (_, addresses) => {
      const { socketPath } = await proxy(['upstream.test'], {
        resolve: async () => addresses.split(','),
      });
      expect(await connectAndPing(socketPath, 'upstream.test:443')).toMatch(/^HTTP\/1\.1 403 /);
    });

    const external = Object.values(networkInterfaces())
      .flat()
      .find((info) => info && !info.internal && info.family === 'IPv4')?.address;
    it.runIf(external)(
      'refuses an allowed name that resolves to this host’s own address',
      async () => {
        const { socketPath } = await proxy(['upstream.test'], {
          resolve: async () => [external ?? ''],
        });
        const received = await connectAndPing(socketPath, `upstream.test:${echoPort}`);
        expect(received).toContain('an address of the machine the action runs on');
      },
    );

    it('dials the address it checked once when that address is allowed as an IP literal', async () => {
      let lookups = 0;
      const { socketPath, decisions } = await proxy(['upstream.test', `127.0.0.1:${echoPort}`], {
        // A rebinding resolver: the first answer is the one that was checked and must be dialed.
        resolve: async () => (++lookups === 1 ? ['127.0.0.1'] : ['169.254.169.254']),
      });
      const received = await connectAndPing(socketPath, `upstream.test:${echoPort}`);
      expect(received).toMatch(/200 Connection Established\r\n\r\nping$/);
      expect(lookups).toBe(1);
      expect(decisions()[0]?.reason).toBe('allowed by "upstream.test", dialed at 127.0.0.1');
    });

    it('reads *.example.test as its subdomains at any depth, not the domain itself', async () => {
      const { socketPath } = await proxy(['*.example.test', `127.0.0.1:${echoPort}`], {
        resolve: loopbackResolve,
      });
      const status = async (host: string) =>
        (await connectAndPing(socketPath, `${host}:${echoPort}`)).split('\r\n')[0];
      expect(await status('api.example.test')).toBe('HTTP/1.1 200 Connection Established');
      expect(await status('a.b.example.test')).toBe('HTTP/1.1 200 Connection Established');
      expect(await status('example.test')).toBe('HTTP/1.1 403 Forbidden');
      expect(await status('badexample.test')).toBe('HTTP/1.1 403 Forbidden');
      expect(await status('example.test.evil.dev')).toBe('HTTP/1.1 403 Forbidden');
    });

    it('answers 502 when an allowed name does not resolve', async () => {
      const { socketPath } = await proxy(['nowhere.test']);
      const received = await connectAndPing(socketPath, 'nowhere.test:443');
      expect(received).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
      expect(received).toContain('nowhere.test did not resolve (ENOTFOUND)');
    });

    it('answers 502 when the allowed destination refuses the connection', async () => {
      const closed = createServer();
      await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((done) => closed.close(done));
      const { socketPath } = await proxy([`127.0.0.1:${port}`]);
      const received = await connectAndPing(socketPath, `127.0.0.1:${port}`);
      expect(received).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
      expect(received).toContain('ECONNREFUSED');
    });
  });

  describe('plain HTTP', () => {
    it('forwards an absolute-URI request, keeping Host and dropping the proxy headers', async () => {
      seen = [];
      const { socketPath, decisions } = await proxy(['upstream.test', `127.0.0.1:${webPort}`], {
        resolve: loopbackResolve,
      });
      const answer = await get(socketPath, `http://upstream.test:${webPort}/path?q=1`, {
        'proxy-connection': 'keep-alive',
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-kept': 'yes',
      });
      expect(answer).toEqual({ status: 200, body: 'web saw GET /path?q=1' });
      expect(seen[0]?.host).toBe(`upstream.test:${webPort}`);
      expect(seen[0]?.['x-kept']).toBe('yes');
      expect(seen[0]?.['proxy-connection']).toBeUndefined();
      expect(seen[0]?.['proxy-authorization']).toBeUndefined();
      expect(decisions()[0]).toMatchObject({
        host: 'upstream.test',
        method: 'HTTP',
        allowed: true,
      });
    });

    it('sends the Host of the checked target, not the one the client wrote', async () => {
      seen = [];
      const { socketPath } = await proxy(['upstream.test', `127.0.0.1:${webPort}`], {
        resolve: loopbackResolve,
      });
      await get(socketPath, `http://upstream.test:${webPort}/`, { host: 'metadata.internal' });
      expect(seen[0]?.host).toBe(`upstream.test:${webPort}`);
    });

    it('answers 403 with the reason in the body for a host not on the list', async () => {
      const { socketPath } = await proxy(['registry.npmjs.org']);
      const answer = await get(socketPath, 'http://evil.example/steal');
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('evil.example:80 is not in the policy');
    });

    it('answers 400 to an origin-form request: a proxy needs the absolute URI', async () => {
      const { socketPath, decisions } = await proxy([`127.0.0.1:${webPort}`]);
      const received = await exchange(socketPath, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(received).toContain('send an absolute http:// URI');
      expect(decisions()).toEqual([]);
    });
  });

  describe('when the client misbehaves', () => {
    it.each([
      ['random bytes', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a])],
      ['a request line without a version', 'CONNECT\r\n\r\n'],
      ['CONNECT without a port', 'CONNECT example.com HTTP/1.1\r\n\r\n'],
      ['CONNECT to a host with a slash', 'CONNECT a/b:443 HTTP/1.1\r\n\r\n'],
      ['CONNECT to an unbracketed IPv6 address', 'CONNECT ::1:443 HTTP/1.1\r\n\r\n'],
      ['a header without a colon', 'CONNECT a.test:443 HTTP/1.1\r\nnonsense\r\n\r\n'],
    ])('answers %s with 400 and keeps serving', async (_, input) => {
      const { socketPath, decisions } = await proxy([`127.0.0.1:${echoPort}`]);
      expect(await exchange(socketPath, input)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(decisions()).toEqual([]);
      expect(await connectAndPing(socketPath, `127.0.0.1:${echoPort}`)).toMatch(/ping$/);
    });

    it('refuses a header block over the cap', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${echoPort}`]);
      const big = `CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
      const received = await exchange(socketPath, big);
      expect(received).toMatch(/^HTTP\/1\.1 431 /);
      expect(received).not.toContain('200 Connection Established');
    });

    it('drops a client that does not finish its request head in time', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${echoPort}`], { headersTimeoutMs: 300 });
      const started = performance.now();
      const received = await exchange(socketPath, 'CONNECT 127.0.0.1:');
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(received).not.toContain('200');
    });

    it('drops a client that connects and sends nothing', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${echoPort}`], { headersTimeoutMs: 300 });
      const started = performance.now();
      expect(await exchange(socketPath, '')).toMatch(/^(HTTP\/1\.1 408 |$)/);
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('closes a tunnel that stays idle', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${echoPort}`], { idleTimeoutMs: 300 });
      const started = performance.now();
      const received = await exchange(socketPath, `CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\n\r\n`);
      expect(received).toBe('HTTP/1.1 200 Connection Established\r\n\r\n');
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('survives an onDecision that throws', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${echoPort}`], {
        onDecision: () => {
          throw new Error('observer failed');
        },
      });
      expect(await connectAndPing(socketPath, `127.0.0.1:${echoPort}`)).toMatch(/ping$/);
    });
  });

  describe('when the upstream or the client breaks off', () => {
    async function rudeServer(reply: string): Promise<{ port: number; close(): void }> {
      const server = createServer((socket) => {
        socket.once('data', () => socket.end(reply));
        socket.on('error', () => undefined);
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      return { port: (server.address() as AddressInfo).port, close: () => server.close() };
    }

    it.each([
      [
        'cuts its body short',
        'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial',
        /^HTTP\/1\.1 200 /,
      ],
      ['answers with garbage', 'garbage\r\n\r\n', /^HTTP\/1\.1 502 /],
      [
        'puts a control character in its reason phrase',
        'HTTP/1.1 200 O\u0000K\r\n\r\n',
        /^HTTP\/1\.1 200 OK\r\n/,
      ],
    ])('keeps serving when the upstream %s', async (_, reply, expected) => {
      const rude = await rudeServer(reply);
      try {
        const { socketPath } = await proxy([`127.0.0.1:${rude.port}`, `127.0.0.1:${echoPort}`]);
        const received = await exchange(
          socketPath,
          `GET http://127.0.0.1:${rude.port}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
        );
        expect(received).toMatch(expected);
        expect(await connectAndPing(socketPath, `127.0.0.1:${echoPort}`)).toMatch(/ping$/);
      } finally {
        rude.close();
      }
    });

    it('keeps serving when a client hangs up in the middle of a request body', async () => {
      const { socketPath } = await proxy([`127.0.0.1:${webPort}`, `127.0.0.1:${echoPort}`]);
      await new Promise<void>((done) => {
        const socket = connect(socketPath, () => {
          socket.write(
            `POST http://127.0.0.1:${webPort}/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc`,
          );
          setImmediate(() => {
            socket.destroy();
            done();
          });
        });
      });
      expect(await connectAndPing(socketPath, `127.0.0.1:${echoPort}`)).toMatch(/ping$/);
    });
  });

  describe('close', () => {
    it('ends open tunnels and removes the socket', async () => {
      const started = await startNetworkProxy({
        socketPath: join(dir, 'closing.sock'),
        allowedDomains: [`127.0.0.1:${echoPort}`],
      });
      const socket: Socket = connect(started.socketPath);
      const closed = new Promise((done) => socket.on('close', done));
      socket.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\n\r\n`);
      await new Promise((done) => socket.once('data', done));
      await started.close();
      await closed;
      expect(existsSync(started.socketPath)).toBe(false);
    });
  });

  it('throws on an invalid allow-list entry, naming it', async () => {
    await expect(
      startNetworkProxy({
        socketPath: join(dir, 'bad.sock'),
        allowedDomains: ['ok.dev', 'https://x.dev'],
      }),
    ).rejects.toThrow('sandbox.network.allowedDomains: "https://x.dev" is not valid');
  });

  it('throws on a socket path longer than a Unix socket address holds', async () => {
    await expect(
      startNetworkProxy({ socketPath: `/tmp/${'x'.repeat(120)}.sock`, allowedDomains: [] }),
    ).rejects.toThrow('over the 107 a Unix socket address holds');
  });
});
