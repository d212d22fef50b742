/**
 * WebFetch against a real loopback HTTPS server (its own certificate, trusted through the tool's
 * `ca` option, its loopback address named through `testAddresses`) and, for the prompt, the real SDK client against the replay server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import { createModelQuery } from '../../../src/model/model-query.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { ReplayServer } from '../../../testkit/replay-server.js';
import {
  createWebFetchTool,
  MAX_PAGE_CHARS,
  webFetchTool,
} from '../../../src/tools/builtin/web-fetch.js';
import type { WebFetchOutput } from '../../../src/tools/builtin/web-fetch.js';
import { PAGE_CACHE_TTL_MS, PageCache } from '../../../src/tools/builtin/web/page-cache.js';
import type { Tool, ToolContext } from '../../../src/tools/tool.js';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { page, redirect, serverTrust, startHttpsServer } from './web/https-server.js';
import type { HttpsServer } from './web/https-server.js';

const API_KEY = 'sk-ant-test';
let workspace: Workspace;
let server: HttpsServer | undefined;
let replay: ReplayServer | undefined;
let now = 0;
let tool: Tool;

beforeEach(() => {
  workspace = makeWorkspace('ci-agent-webfetch-');
  now = 0;
  tool = createWebFetchTool({ ...serverTrust(), cache: new PageCache(() => now) });
});
afterEach(async () => {
  await server?.close();
  await replay?.close();
  workspace.cleanup();
  server = undefined;
  replay = undefined;
});

const ARTICLE = `<html><head><title>Release notes</title><script>track()</script></head>
<body><h1>v2.0</h1><p>Node <strong>20</strong> is required.</p></body></html>`;

async function fetchWith(input: unknown, context: Partial<ToolContext> = {}) {
  const run = await runTool(tool, input, makeContext(workspace, context));
  return { ...run, output: run.data as WebFetchOutput | undefined };
}

describe('webFetchTool', () => {
  it('is the built-in WebFetch: concurrency-safe, never allowed by the mode default alone', () => {
    expect(webFetchTool.name).toBe('WebFetch');
    expect(webFetchTool.isConcurrencySafe({ url: 'https://x.dev', prompt: 'p' })).toBe(true);
    expect(webFetchTool.isReadOnly({ url: 'https://x.dev', prompt: 'p' })).toBe(false);
  });

  it('asks the policy about domain:<host>, as an other-than-file access', () => {
    expect(
      webFetchTool.checkPermissions({ url: 'http://Docs.Example.com/a', prompt: 'p' }, {} as never),
    ).toEqual({ access: 'other', ruleContent: 'domain:docs.example.com' });
  });
});

describe('createWebFetchTool', () => {
  describe('when no model port is in the context', () => {
    it('returns the page as Markdown with its status, size and final URL', async () => {
      server = await startHttpsServer({ '/notes': page(ARTICLE) });

      const run = await fetchWith({ url: `${server.url}/notes`, prompt: 'Which Node?' });

      expect(run.block.is_error).toBeUndefined();
      expect(run.text).toBe('Release notes\n\n# v2.0\n\nNode **20** is required.');
      expect(run.output).toMatchObject({
        code: 200,
        codeText: 'OK',
        bytes: Buffer.byteLength(ARTICLE),
        url: `${server.url}/notes`,
        result: run.text,
      });
      expect(run.output?.durationMs).toBeGreaterThanOrEqual(0);
      expect(run.progress).toEqual([{ type: 'progress', message: `Fetching ${server.url}/notes` }]);
    });

    it('upgrades http to https (the loopback server speaks only https)', async () => {
      server = await startHttpsServer({ '/notes': page('<p>secure</p>') });

      const run = await fetchWith({ url: `http://127.0.0.1:${server.port}/notes`, prompt: 'p' });

      expect(run.text).toBe('secure');
      expect(run.output?.url).toBe(`https://127.0.0.1:${server.port}/notes`);
    });

    it(`cuts a long page at ${MAX_PAGE_CHARS} characters and says so`, async () => {
      server = await startHttpsServer({
        '/long': page('z'.repeat(MAX_PAGE_CHARS + 500), 'text/plain'),
      });

      const run = await fetchWith({ url: `${server.url}/long`, prompt: 'p' });

      expect(run.text.startsWith('z'.repeat(MAX_PAGE_CHARS))).toBe(true);
      expect(run.text.slice(MAX_PAGE_CHARS)).toBe(
        '\n\n[Content truncated: the page is longer than WebFetch reads.]',
      );
    });

    it('says the page was cut when the download itself was', async () => {
      tool = createWebFetchTool({ ...serverTrust(), maxBytes: 10 });
      server = await startHttpsServer({ '/big': page('0123456789abcdef', 'text/plain') });

      const run = await fetchWith({ url: `${server.url}/big`, prompt: 'p' });

      expect(run.text).toMatch(/^0123456789\n\n\[Content truncated/);
    });
  });

  describe('when a page was fetched before', () => {
    it('answers from the cache for 15 minutes, then fetches again', async () => {
      server = await startHttpsServer({ '/notes': page(ARTICLE) });
      const input = { url: `${server.url}/notes`, prompt: 'p' };

      await fetchWith(input);
      now += PAGE_CACHE_TTL_MS - 1;
      const cached = await fetchWith(input);
      now += 1;
      await fetchWith(input);

      expect(cached.text).toContain('Node **20** is required.');
      expect(cached.progress).toEqual([]);
      expect(server.requests).toHaveLength(2);
    });

    it('does not cache a failed fetch', async () => {
      let calls = 0;
      server = await startHttpsServer({
        '/flaky': (_request, response) => {
          calls++;
          response.writeHead(calls === 1 ? 503 : 200, { 'content-type': 'text/plain' });
          response.end(calls === 1 ? 'busy' : 'fine');
        },
      });
      const input = { url: `${server.url}/flaky`, prompt: 'p' };

      await expect(fetchWith(input)).rejects.toThrow('status code 503');
      expect((await fetchWith(input)).text).toBe('fine');
    });
  });

  describe('when the URL redirects', () => {
    it('follows a redirect on the same host', async () => {
      server = await startHttpsServer({ '/old': redirect('/new'), '/new': page('<p>new</p>') });

      const run = await fetchWith({ url: `${server.url}/old`, prompt: 'p' });

      expect(run.text).toBe('new');
      expect(run.output?.url).toBe(`${server.url}/new`);
    });

    it('reports a redirect to another host instead of following it', async () => {
      server = await startHttpsServer({
        '/go': redirect((port) => `https://localhost:${port}/landing`, 302),
      });

      const run = await fetchWith({ url: `${server.url}/go`, prompt: 'Find the version' });

      expect(run.block.is_error).toBeUndefined();
      expect(run.text).toBe(`REDIRECT DETECTED: The URL redirects to a different host.

Original URL: ${server.url}/go
Redirect URL: https://localhost:${server.port}/landing
Status: 302 Found

To read the page, call WebFetch again with these parameters (the new host must be allowed on its own):
- url: "https://localhost:${server.port}/landing"
- prompt: "Find the version"`);
      expect(run.output).toMatchObject({ code: 302, bytes: 0, url: `${server.url}/go` });
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('when the fetch fails', () => {
    it('fails with the status for an error page', async () => {
      server = await startHttpsServer({});

      await expect(fetchWith({ url: `${server.url}/gone`, prompt: 'p' })).rejects.toThrow(
        `Request failed with status code 404 Not Found: ${server.url}/gone`,
      );
    });

    it('refuses a body that is not text, naming its type and size', async () => {
      server = await startHttpsServer({
        '/logo.png': page(Buffer.from([137, 80, 78, 71]), 'image/png'),
      });

      await expect(fetchWith({ url: `${server.url}/logo.png`, prompt: 'p' })).rejects.toThrow(
        `WebFetch reads text pages only: ${server.url}/logo.png returned 4 bytes and it is image/png, not text.`,
      );
    });

    it('fails when nothing listens on the port', async () => {
      server = await startHttpsServer({});
      const url = `${server.url}/x`;
      await server.close();
      server = undefined;

      await expect(fetchWith({ url, prompt: 'p' })).rejects.toThrow(/ECONNREFUSED/);
    });
  });

  describe('when the input is bad', () => {
    it.each([
      [
        { url: 'not a url', prompt: 'p' },
        'Error: Invalid URL "not a url". The URL provided could not be parsed.',
      ],
      [
        { url: 'ftp://x.dev/f', prompt: 'p' },
        'WebFetch fetches http and https URLs only, not ftp:',
      ],
      [{ url: 'https://u:p@x.dev/', prompt: 'p' }, 'must not contain a username or password'],
    ])('refuses %j before any connection', async (input, message) => {
      const run = await fetchWith(input);

      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain(message);
      expect(run.text.startsWith('<tool_use_error>')).toBe(true);
    });

    it.each([
      [{ url: 'https://x.dev' }, 'prompt'],
      [{ prompt: 'p' }, 'url'],
      [{ url: 'https://x.dev', prompt: 'p', offset: 3 }, 'offset'],
      [{ url: 42, prompt: 'p' }, 'url'],
    ])('refuses %j at the schema', async (input, key) => {
      const run = await fetchWith(input);

      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('InputValidationError');
      expect(run.text).toContain(key);
    });
  });

  describe('when the context has a model port', () => {
    const modelQuery = (r: ReplayServer) =>
      createModelQuery({
        client: createAnthropicClient({ apiKey: API_KEY, baseURL: r.url }),
        model: 'claude-haiku-5-5',
      });

    it("returns the small model's answer to the prompt over the page", async () => {
      server = await startHttpsServer({ '/notes': page(ARTICLE) });
      replay = await startReplayServer({
        apiKey: API_KEY,
        turns: [[{ type: 'text', text: 'Node 20 is required.' }]],
      });

      const run = await fetchWith(
        { url: `${server.url}/notes`, prompt: 'Which Node version?' },
        { queryModel: modelQuery(replay) },
      );

      expect(run.text).toBe('Node 20 is required.');
      expect(run.output).toMatchObject({ code: 200, result: 'Node 20 is required.' });
      const body = replay.requests[0]?.body as {
        model: string;
        system: unknown;
        tools?: unknown;
        messages: { role: string; content: string }[];
      };
      expect(body.model).toBe('claude-haiku-5-5');
      // The client may send the system prompt as blocks (with a cache breakpoint).
      expect(JSON.stringify(body.system)).toContain('untrusted data');
      expect(body.tools).toBeUndefined();
      expect(body.messages).toEqual([
        {
          role: 'user',
          content: `The content of ${server.url}/notes:\n<page>\nRelease notes\n\n# v2.0\n\nNode **20** is required.\n</page>\n\nRequest: Which Node version?`,
        },
      ]);
    });

    it('returns the page with the reason when the model cannot answer', async () => {
      server = await startHttpsServer({ '/notes': page('<p>plain</p>') });
      replay = await startReplayServer({
        apiKey: API_KEY,
        faults: {
          0: {
            kind: 'http-error',
            status: 404,
            errorType: 'not_found_error',
            message: 'model: claude-haiku-5-5',
          },
        },
      });

      const run = await fetchWith(
        { url: `${server.url}/notes`, prompt: 'p' },
        { queryModel: modelQuery(replay) },
      );

      expect(run.block.is_error).toBeUndefined();
      expect(run.text).toMatch(
        /^\(The page could not be summarised for your prompt: .*claude-haiku-5-5.*\. Its content follows\.\)\n\nplain$/,
      );
    });

    it('stops, instead of falling back, when the call is aborted while the model answers', async () => {
      server = await startHttpsServer({ '/notes': page('<p>plain</p>') });
      const controller = new AbortController();
      const queryModel = async () => {
        controller.abort(new Error('the run was stopped'));
        throw new Error('aborted');
      };

      await expect(
        fetchWith(
          { url: `${server.url}/notes`, prompt: 'p' },
          { queryModel, signal: controller.signal },
        ),
      ).rejects.toThrow('the run was stopped');
    });
  });
});
