import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  fetchPage,
  MAX_REDIRECTS,
  USER_AGENT,
} from '../../../../src/tools/builtin/web/fetch-page.js';
import type { FetchLimits, FetchedPage } from '../../../../src/tools/builtin/web/fetch-page.js';
import { LOOPBACK, page, redirect, serverTrust, startHttpsServer } from './https-server.js';
import type { HttpsServer } from './https-server.js';

let server: HttpsServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

function limits(overrides: Partial<FetchLimits> = {}): FetchLimits {
  return {
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    maxBytes: 1024 * 1024,
    ...serverTrust(),
    ...overrides,
  };
}

/** A resolver that answers `answers[n]` to its n-th question (the last one after that), counting them. */
function resolver(...answers: string[][]) {
  const questions: string[] = [];
  const resolve = async (host: string) => {
    questions.push(host);
    return answers[Math.min(questions.length, answers.length) - 1] ?? [];
  };
  return { resolve, questions };
}

async function fetched(url: string, overrides: Partial<FetchLimits> = {}): Promise<FetchedPage> {
  const result = await fetchPage(new URL(url), limits(overrides));
  if (result.kind !== 'page')
    throw new Error(`expected a page, got a redirect to ${result.to.href}`);
  return result;
}

describe('fetchPage', () => {
  it('gets the page over https with a Claude-User agent, its status and content type', async () => {
    server = await startHttpsServer({ '/doc': page('<p>hello</p>') });

    const result = await fetched(`${server.url}/doc`);

    expect(result).toMatchObject({ code: 200, codeText: 'OK', truncated: false });
    expect(result.contentType).toBe('text/html; charset=utf-8');
    expect(result.body.toString()).toBe('<p>hello</p>');
    expect(server.requests[0]?.headers['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT.startsWith('Claude-User')).toBe(true);
  });

  it('refuses a server whose certificate it does not trust', async () => {
    server = await startHttpsServer({ '/doc': page('secret') });

    await expect(
      fetchPage(new URL(`${server.url}/doc`), limits({ ca: undefined })),
    ).rejects.toThrow(/self[- ]signed certificate/i);
  });

  it('returns an error status as it came, for the caller to word', async () => {
    server = await startHttpsServer({});

    const result = await fetched(`${server.url}/missing`);

    expect(result).toMatchObject({ code: 404, codeText: 'Not Found' });
  });

  describe('when the server redirects', () => {
    it('follows a redirect within the same origin and reports where the page came from', async () => {
      server = await startHttpsServer({ '/old': redirect('/new', 302), '/new': page('moved') });

      const result = await fetched(`${server.url}/old`);

      expect(result.body.toString()).toBe('moved');
      expect(result.url.href).toBe(`${server.url}/new`);
      expect(server.requests.map((request) => request.path)).toEqual(['/old', '/new']);
    });

    it('does not follow a redirect to another host, and says where it pointed', async () => {
      server = await startHttpsServer({
        '/start': redirect((port) => `https://localhost:${port}/elsewhere`, 308),
      });

      const result = await fetchPage(new URL(`${server.url}/start`), limits());

      expect(result).toMatchObject({ kind: 'redirect', code: 308, codeText: 'Permanent Redirect' });
      expect(result.kind === 'redirect' && result.to.href).toBe(
        `https://localhost:${server.port}/elsewhere`,
      );
      expect(server.requests).toHaveLength(1);
    });

    it('treats a redirect to another port of the same host as another origin', async () => {
      server = await startHttpsServer({ '/start': redirect('https://127.0.0.1:1/x') });

      const result = await fetchPage(new URL(`${server.url}/start`), limits());

      expect(result.kind).toBe('redirect');
    });

    it('upgrades an http redirect target before comparing origins', async () => {
      server = await startHttpsServer({
        '/start': redirect((port) => `http://127.0.0.1:${port}/next`),
        '/next': page('upgraded'),
      });

      const result = await fetched(`${server.url}/start`);

      expect(result.body.toString()).toBe('upgraded');
    });

    it(`gives up after ${MAX_REDIRECTS} redirects`, async () => {
      server = await startHttpsServer({ '/loop': redirect('/loop') });

      await expect(fetchPage(new URL(`${server.url}/loop`), limits())).rejects.toThrow(
        `redirected more than ${MAX_REDIRECTS} times`,
      );
      expect(server.requests).toHaveLength(MAX_REDIRECTS + 1);
    });
  });

  describe('when the body is large or compressed', () => {
    it('cuts the body at maxBytes and says it did', async () => {
      server = await startHttpsServer({ '/big': page('x'.repeat(5000), 'text/plain') });

      const result = await fetched(`${server.url}/big`, { maxBytes: 1000 });

      expect(result.body.length).toBe(1000);
      expect(result.truncated).toBe(true);
    });

    it('decompresses gzip and counts the limit after decompression', async () => {
      const body = gzipSync(Buffer.from('y'.repeat(100_000)));
      server = await startHttpsServer({
        '/zip': (_request, response) => {
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          response.end(body);
        },
      });

      const whole = await fetched(`${server.url}/zip`);
      const cut = await fetched(`${server.url}/zip`, { maxBytes: 2000 });

      expect(whole.body.toString()).toBe('y'.repeat(100_000));
      expect(body.length).toBeLessThan(2000);
      expect(cut).toMatchObject({ truncated: true });
      expect(cut.body.length).toBe(2000);
    });
  });

  describe('when the server does not answer', () => {
    it('stops at the timeout with an error naming it', async () => {
      server = await startHttpsServer({ '/hang': () => undefined });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const arrived = server.nextRequest();

      const pending = fetchPage(new URL(`${server.url}/hang`), limits({ timeoutMs: 30_000 }));
      const outcome = pending.catch((error: unknown) => error);
      await arrived;
      await vi.advanceTimersByTimeAsync(30_000);

      expect(await outcome).toEqual(new Error('WebFetch timed out after 30 s'));
    });

    it('stops when the call is aborted, with the abort reason', async () => {
      server = await startHttpsServer({ '/hang': () => undefined });
      const controller = new AbortController();
      const arrived = server.nextRequest();

      const pending = fetchPage(
        new URL(`${server.url}/hang`),
        limits({ signal: controller.signal }),
      );
      await arrived;
      controller.abort(new Error('the run was stopped'));

      await expect(pending).rejects.toThrow('the run was stopped');
    });
  });

  describe('when the host is not on the public internet', () => {
    it.each([
      ['127.0.0.1', 'a loopback address'],
      ['::1', 'a loopback address'],
      ['::ffff:127.0.0.1', 'a loopback address'],
      ['10.0.0.1', 'a private-network address'],
      ['169.254.169.254', 'a cloud metadata address'],
      ['fd00::1', 'a unique-local address'],
      ['100.64.0.1', 'a carrier-grade NAT address'],
    ])('refuses a name that resolves to %s, and never connects', async (address, why) => {
      server = await startHttpsServer({ '/doc': page('internal') });
      const { resolve, questions } = resolver([address]);

      await expect(
        fetchPage(
          new URL(`https://attacker.test:${server.port}/doc`),
          limits({ resolve, testAddresses: [] }),
        ),
      ).rejects.toThrow(`attacker.test resolves to ${address}, ${why}.`);
      expect(questions).toEqual(['attacker.test']);
      expect(server.connections).toBe(0);
    });

    it('refuses a name when any one of its addresses is not public', async () => {
      server = await startHttpsServer({ '/doc': page('internal') });
      const { resolve } = resolver([LOOPBACK, '10.0.0.1']);

      await expect(
        fetchPage(new URL(`https://attacker.test:${server.port}/doc`), limits({ resolve })),
      ).rejects.toThrow('attacker.test resolves to 10.0.0.1, a private-network address.');
      expect(server.connections).toBe(0);
    });

    it.each([
      ['127.0.0.1', '127.0.0.1', 'a loopback address'],
      ['2130706433', '127.0.0.1', 'a loopback address'],
      ['[::1]', '::1', 'a loopback address'],
      ['[::ffff:127.0.0.1]', '::ffff:7f00:1', 'a loopback address'],
      ['10.0.0.1', '10.0.0.1', 'a private-network address'],
      ['169.254.169.254', '169.254.169.254', 'a cloud metadata address'],
      ['[fd00::1]', 'fd00::1', 'a unique-local address'],
    ])('refuses the IP literal %s without resolving it', async (host, address, why) => {
      server = await startHttpsServer({ '/doc': page('internal') });
      const { resolve, questions } = resolver(['104.16.0.35']);

      await expect(
        fetchPage(
          new URL(`https://${host}:${server.port}/doc`),
          limits({ resolve, testAddresses: [] }),
        ),
      ).rejects.toThrow(`WebFetch refused to connect: ${address} is ${why}.`);
      expect(questions).toEqual([]);
      expect(server.connections).toBe(0);
    });

    it('stops when the call is aborted while the name resolves', async () => {
      const controller = new AbortController();
      const resolve = () => {
        controller.abort(new Error('the run was stopped'));
        return new Promise<string[]>(() => undefined);
      };

      await expect(
        fetchPage(
          new URL('https://attacker.test/doc'),
          limits({ resolve, signal: controller.signal }),
        ),
      ).rejects.toThrow('the run was stopped');
    });

    it('fails, and connects nowhere, when the name does not resolve', async () => {
      const resolve = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
      };

      await expect(
        fetchPage(new URL('https://nowhere.test/doc'), limits({ resolve })),
      ).rejects.toThrow('WebFetch could not resolve nowhere.test (ENOTFOUND).');
      await expect(
        fetchPage(new URL('https://nowhere.test/doc'), limits({ resolve: async () => [] })),
      ).rejects.toThrow('WebFetch could not resolve nowhere.test: no address.');
    });
  });

  describe('when the name resolves differently the next time (DNS rebinding)', () => {
    // The test's loopback address plays the public answer (it is a test address); the second
    // answer, were anything to ask again, is the metadata service.
    it('resolves once and connects to the address it checked', async () => {
      server = await startHttpsServer({ '/doc': page('the checked host') });
      const { resolve, questions } = resolver([LOOPBACK], ['169.254.169.254']);

      const result = await fetched(`https://rebind.test:${server.port}/doc`, { resolve });

      expect(result.body.toString()).toBe('the checked host');
      expect(questions).toEqual(['rebind.test']);
      expect(server.requests[0]?.headers.host).toBe(`rebind.test:${server.port}`);
    });

    it('checks the name again for the next fetch, and refuses it when the answer changed', async () => {
      server = await startHttpsServer({ '/doc': page('fresh') });
      const { resolve, questions } = resolver([LOOPBACK], ['169.254.169.254']);

      await fetched(`https://rebind.test:${server.port}/doc`, { resolve });
      await expect(
        fetchPage(new URL(`https://rebind.test:${server.port}/doc`), limits({ resolve })),
      ).rejects.toThrow('rebind.test resolves to 169.254.169.254');

      expect(questions).toEqual(['rebind.test', 'rebind.test']);
      expect(server.requests).toHaveLength(1);
    });

    it('connects to the address checked for this fetch, never over a socket an earlier fetch opened', async () => {
      server = await startHttpsServer({ '/doc': page('first') });
      // 127.0.0.2 is loopback too, but nothing listens there: only a reused socket would answer.
      const { resolve } = resolver([LOOPBACK], ['127.0.0.2']);
      const testAddresses = [LOOPBACK, '127.0.0.2'];

      await fetched(`https://rebind.test:${server.port}/doc`, { resolve, testAddresses });
      await expect(
        fetchPage(
          new URL(`https://rebind.test:${server.port}/doc`),
          limits({ resolve, testAddresses }),
        ),
      ).rejects.toThrow(/connect E[A-Z]+ 127\.0\.0\.2/);

      expect(server.requests).toHaveLength(1);
    });

    it('follows a same-origin redirect at the same checked address, without resolving again', async () => {
      server = await startHttpsServer({ '/old': redirect('/new'), '/new': page('moved') });
      const { resolve, questions } = resolver([LOOPBACK], ['10.0.0.1']);

      const result = await fetched(`https://rebind.test:${server.port}/old`, { resolve });

      expect(result.body.toString()).toBe('moved');
      expect(questions).toEqual(['rebind.test']);
      expect(server.requests.map((request) => request.path)).toEqual(['/old', '/new']);
      expect(server.connections).toBe(2);
    });
  });
});
