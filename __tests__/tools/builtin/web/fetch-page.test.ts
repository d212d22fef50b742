import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  fetchPage,
  MAX_REDIRECTS,
  USER_AGENT,
} from '../../../../src/tools/builtin/web/fetch-page.js';
import type { FetchLimits, FetchedPage } from '../../../../src/tools/builtin/web/fetch-page.js';
import { makeCertificate, page, redirect, startHttpsServer } from './https-server.js';
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
    ca: makeCertificate().cert,
    ...overrides,
  };
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
});
