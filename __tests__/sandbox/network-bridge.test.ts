import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeCommand, proxyEnvironment } from '../../src/sandbox/network-bridge.js';
import { startNetworkProxy } from '../../src/sandbox/network-proxy.js';
import type { NetworkProxy } from '../../src/sandbox/network-proxy.js';

// The end-to-end half: a real bwrap with its own network namespace, the real proxy outside it,
// socat and curl inside. The upstream is a loopback server of this host, which the sandbox reaches
// only through the proxy, and only because the test's allow-list names its address.
const PORT = 3128;
const ready =
  existsSync('/usr/bin/bwrap') && existsSync('/usr/bin/socat') && existsSync('/usr/bin/curl');

let dir: string;
let socketPath: string;
let upstream: Server;
let upstreamPort: number;
let secure: Server;
let securePort: number;
let certificate: string;
let proxy: NetworkProxy;

beforeAll(async () => {
  dir = mkdtempSync('/tmp/ci-agent-bridge-test-');
  socketPath = join(dir, 'proxy.sock');
  upstream = createServer((request, response) => response.end(`upstream saw ${request.url}`));
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  upstreamPort = (upstream.address() as AddressInfo).port;
  // A certificate for upstream.test, so that curl, git and npm check TLS through the tunnel.
  certificate = join(dir, 'upstream.pem');
  const key = join(dir, 'upstream.key');
  await execa('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', certificate, '-days', '1', '-subj', '/CN=upstream.test'],
    ...['-addext', 'subjectAltName=DNS:upstream.test'],
  ]);
  secure = createHttpsServer(
    { key: readFileSync(key), cert: readFileSync(certificate) },
    (request, response) => response.end(`secure upstream saw ${request.url}`),
  );
  await new Promise<void>((done) => secure.listen(0, '127.0.0.1', done));
  securePort = (secure.address() as AddressInfo).port;
  proxy = await startNetworkProxy({
    socketPath,
    allowedDomains: ['upstream.test', `127.0.0.1:${upstreamPort}`, `127.0.0.1:${securePort}`],
    resolve: async (host) => {
      if (host === 'upstream.test') return ['127.0.0.1'];
      throw Object.assign(new Error(host), { code: 'ENOTFOUND' });
    },
  });
});

afterAll(async () => {
  await proxy.close();
  upstream.close();
  secure.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `script` in the sandbox, after the bridge; the environment is the proxy's and PATH only. */
function sandboxed(
  script: string,
  options: { bridge?: boolean; env?: Record<string, string>; mounts?: string[] } = {},
) {
  const prelude = options.bridge === false ? '' : `${bridgeCommand(socketPath, PORT)}\n`;
  return execa(
    '/usr/bin/bwrap',
    [
      ...['--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'],
      ...['--unshare-pid', '--die-with-parent', ...(options.mounts ?? ['--bind', dir, dir])],
      ...['/bin/sh', '-c', `${prelude}${script}`],
    ],
    {
      env: { PATH: '/usr/bin:/bin', ...proxyEnvironment(PORT), ...options.env },
      extendEnv: false,
      reject: false,
      timeout: 15_000,
    },
  );
}

const CURL = 'curl -sS --max-time 5';
const NODE_24 = join(import.meta.dirname, '../../node_modules/node/bin/node');

describe.runIf(ready)('bridgeCommand, in a bwrap sandbox with no network', () => {
  it('reaches an allowed destination through a CONNECT tunnel', async () => {
    const result = await sandboxed(
      `${CURL} --proxytunnel http://upstream.test:${upstreamPort}/tunnel`,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('upstream saw /tunnel');
  });

  it('reaches an allowed HTTPS destination, TLS end to end through the tunnel', async () => {
    const result = await sandboxed(
      `${CURL} --cacert ${certificate} https://upstream.test:${securePort}/tls`,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('secure upstream saw /tls');
  });

  it('works with only the socket mounted, read-only, over an empty /tmp', async () => {
    const result = await sandboxed(
      `ls ${dir}; ${CURL} --proxytunnel http://upstream.test:${upstreamPort}/alone`,
      { mounts: ['--tmpfs', '/tmp', '--ro-bind', socketPath, socketPath] },
    );
    expect(result.stdout).toBe('proxy.sock\nupstream saw /alone');
  });

  it('reaches an allowed destination with a plain HTTP request', async () => {
    const result = await sandboxed(`${CURL} http://upstream.test:${upstreamPort}/plain`);
    expect(result.stdout).toBe('upstream saw /plain');
  });

  it('gets a 403 that says why for a destination not on the list', async () => {
    const result = await sandboxed(`${CURL} http://denied.test:${upstreamPort}/`);
    expect(result.stdout).toContain(
      `denied.test:${upstreamPort} is not in the policy's sandbox.network.allowedDomains`,
    );
    const tunnel = await sandboxed(`${CURL} --proxytunnel http://denied.test:${upstreamPort}/`);
    expect(tunnel.exitCode).not.toBe(0);
    expect(tunnel.stderr).toContain('403');
    expect(proxy.decisions()).toContainEqual(
      expect.objectContaining({ host: 'denied.test', method: 'CONNECT', allowed: false }),
    );
  });

  it.each([
    ['git', `git ls-remote https://upstream.test:PORT/repo.git`],
    ['npm', `npm view left-pad --registry https://upstream.test:PORT/`],
  ])('sends %s over https through the proxy', async (_, command) => {
    const before = proxy.decisions().length;
    await sandboxed(command.replace('PORT', String(securePort)), {
      env: {
        HOME: dir,
        GIT_TERMINAL_PROMPT: '0',
        GIT_SSL_CAINFO: certificate,
        npm_config_cafile: certificate,
        npm_config_cache: join(dir, 'npm-cache'),
        npm_config_update_notifier: 'false',
      },
    });
    expect(proxy.decisions().slice(before)).toContainEqual({
      host: 'upstream.test',
      port: securePort,
      method: 'CONNECT',
      allowed: true,
      reason: 'allowed by "upstream.test", dialed at 127.0.0.1',
    });
  });

  it.runIf(existsSync(NODE_24))('sends Node 24 fetch through the proxy', async () => {
    const script = `fetch('http://upstream.test:${upstreamPort}/node').then(r => r.text()).then(console.log)`;
    const result = await sandboxed(`${NODE_24} -e "${script}"`);
    expect(result.stdout).toBe('upstream saw /node');
  });

  describe('when the command goes around the proxy', () => {
    it('has no route with --noproxy', async () => {
      const result = await sandboxed(`${CURL} --noproxy '*' http://127.0.0.1:${upstreamPort}/`);
      expect(result.exitCode).toBe(7); // couldn't connect
      expect(result.stdout).toBe('');
    });

    it('has no route with the proxy variables unset', async () => {
      const unset = Object.keys(proxyEnvironment(PORT)).join(' ');
      const result = await sandboxed(`unset ${unset}; ${CURL} http://127.0.0.1:${upstreamPort}/`);
      expect(result.exitCode).toBe(7);
    });

    it('cannot reach the allowed host loopback port without the bridge either', async () => {
      // The allow-list names 127.0.0.1:<port>; inside, 127.0.0.1 is the sandbox's own loopback.
      const direct = await sandboxed(`${CURL} --noproxy '*' http://127.0.0.1:${upstreamPort}/`, {
        bridge: false,
      });
      expect(direct.exitCode).toBe(7);
    });

    const external = Object.values(networkInterfaces())
      .flat()
      .find((info) => info && !info.internal && info.family === 'IPv4')?.address;
    it.runIf(external)('cannot reach this host by its interface address', async () => {
      const outside = createServer((_, response) => response.end('outside'));
      await new Promise<void>((done) => outside.listen(0, external, done));
      const port = (outside.address() as AddressInfo).port;
      try {
        const result = await sandboxed(
          `${CURL} --noproxy '*' --connect-timeout 2 http://${external}:${port}/`,
        );
        expect(result.exitCode).not.toBe(0);
        expect(result.stdout).toBe('');
      } finally {
        outside.close();
      }
    });
  });

  it('stops with exit 125 and a message before the command when socat cannot start', async () => {
    const result = await sandboxed('echo the command ran', { env: { PATH: '/nonexistent' } });
    expect(result.exitCode).toBe(125);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('the network bridge (socat on 127.0.0.1:3128) did not start');
  });
});

describe('bridgeCommand', () => {
  it.each([
    'relative/proxy.sock',
    '/tmp/a,b.sock',
    '/tmp/a:b.sock',
    "/tmp/a'b.sock",
    '/tmp/a b.sock',
  ])('refuses the socket path %j, which socat or sh would misread', (path) => {
    expect(() => bridgeCommand(path, PORT)).toThrow('the proxy socket path must be absolute');
  });

  it.each([0, 65_536, 1.5])('refuses the port %d', (port) => {
    expect(() => bridgeCommand('/tmp/proxy.sock', port)).toThrow('port must be an integer');
  });
});

describe('proxyEnvironment', () => {
  it('points every client at the bridge and keeps the sandbox loopback direct', () => {
    expect(proxyEnvironment(3128)).toEqual({
      HTTP_PROXY: 'http://127.0.0.1:3128',
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      ALL_PROXY: 'http://127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3128',
      https_proxy: 'http://127.0.0.1:3128',
      all_proxy: 'http://127.0.0.1:3128',
      NO_PROXY: 'localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
      NODE_USE_ENV_PROXY: '1',
    });
  });
});
