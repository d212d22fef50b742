/**
 * The limit on one MCP message over HTTP: a loopback streamable HTTP server answers a call with
 * 40 MB, as JSON and as an event stream; the call fails at once, and the next call works.
 */
import { createServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { limitedFetch } from '../../src/mcp/limited-fetch.js';
import type { Oversize } from '../../src/mcp/limited-fetch.js';
import { McpCallError, McpConnection } from '../../src/mcp/mcp-connection.js';

const HUGE = 40 * 1024 * 1024;

function mcpServer(): Server {
  const server = new Server({ name: 'huge', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ['huge', 'small'].map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [
      { type: 'text', text: request.params.name === 'huge' ? 'x'.repeat(HUGE) : 'small answer' },
    ],
  }));
  return server;
}

/** A stateless streamable HTTP server on 127.0.0.1: a new MCP server per request. */
async function listen(json: boolean): Promise<{ url: string; http: HttpServer }> {
  const http = createServer((request, response) => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    void mcpServer()
      .connect(transport)
      .then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/mcp`, http };
}

/** The older SSE transport on 127.0.0.1: GET /sse opens a session, POST /messages feeds it. */
async function listenSse(): Promise<{ url: string; http: HttpServer }> {
  const sessions = new Map<string, SSEServerTransport>();
  const http = createServer((request, response) => {
    if (request.method === 'GET') {
      const transport = new SSEServerTransport('/messages', response);
      sessions.set(transport.sessionId, transport);
      void mcpServer().connect(transport);
      return;
    }
    const id = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('sessionId');
    const transport = sessions.get(id ?? '');
    if (transport) void transport.handlePostMessage(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/sse`, http };
}

const servers: HttpServer[] = [];
const opened: McpConnection[] = [];
afterAll(async () => {
  await Promise.all(opened.map((connection) => connection.close({ force: true })));
  for (const http of servers) http.closeAllConnections();
  await Promise.all(servers.map((http) => new Promise((resolve) => http.close(resolve))));
});

describe('limitedFetch', () => {
  it('errors a JSON body past the limit and names the request it answered', async () => {
    const { url, http } = await listen(true);
    servers.push(http);
    const seen: Oversize[] = [];
    const fetch = limitedFetch(1_000, (oversize) => seen.push(oversize));
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      }),
    });
    expect(response.status).toBe(200);
    // An initialize answer is a few hundred bytes: under the limit, it reads whole.
    expect(await response.json()).toMatchObject({ id: 7 });
    expect(seen).toEqual([]);

    const tight = limitedFetch(50, (oversize) => seen.push(oversize));
    const cut = await tight(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      }),
    });
    await expect(cut.json()).rejects.toThrow(/over the 50-byte limit/);
    expect(seen.map((oversize) => [oversize.requestIds, oversize.bytes > 50])).toEqual([
      [[8], true],
    ]);
  });
});

describe('limitedFetch on an event stream', () => {
  const stream = (...chunks: string[]) =>
    limitedFetch(
      100,
      () => undefined,
      () =>
        Promise.resolve(
          new Response(
            new ReadableStream({
              start(controller) {
                for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
                controller.close();
              },
            }),
            { headers: { 'content-type': 'text/event-stream' } },
          ),
        ),
    )('http://127.0.0.1:1/mcp');
  const event = (size: number, end = '\n\n') => `data: ${'x'.repeat(size - 6 - end.length)}${end}`;

  it('counts each event on its own, across chunks and CRLF line ends', async () => {
    const body = [event(60), event(60, '\r\n\r\n'), event(90)].join('');
    const response = await stream(body.slice(0, 70), body.slice(70, 130), body.slice(130));
    expect(await response.text()).toBe(body);
  });

  it('errors at the event that passes the limit, before its end', async () => {
    const response = await stream(event(60), 'data: ', 'x'.repeat(200));
    await expect(response.text()).rejects.toThrow(/over the 100-byte limit/);
  });
});

describe.each([
  ['a JSON response', true],
  ['an event stream', false],
])('McpConnection over streamable HTTP answering with 40 MB as %s', (_label, json) => {
  it('fails that call at once naming server, size and limit, and the next call works', async () => {
    const { url, http } = await listen(json);
    servers.push(http);
    const connection = await McpConnection.open({
      name: 'huge',
      config: { type: 'http', url, headers: {} },
      cwd: process.cwd(),
      parentEnv: process.env,
      startupTimeoutMs: 15_000,
    });
    opened.push(connection);
    const signal = new AbortController().signal;

    const started = Date.now();
    const failure = await connection.callTool('huge', {}, { signal, timeoutMs: 60_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(McpCallError);
    expect((failure as Error).message).toMatch(
      /^MCP server "huge" sent a message of (at least )?\d+(\.\d)? MiB, over the 8 MiB limit for one MCP message$/,
    );

    expect(connection.alive).toBe(true);
    const small = await connection.callTool('small', {}, { signal, timeoutMs: 10_000 });
    expect(small.content).toEqual([{ type: 'text', text: 'small answer' }]);
  });
});

describe('McpConnection over the older SSE transport answering with 40 MB', () => {
  it('fails the call at once and closes the connection, as for a crashed server', async () => {
    const { url, http } = await listenSse();
    servers.push(http);
    const connection = await McpConnection.open({
      name: 'huge',
      config: { type: 'sse', url, headers: {} },
      cwd: process.cwd(),
      parentEnv: process.env,
      startupTimeoutMs: 15_000,
    });
    opened.push(connection);
    const signal = new AbortController().signal;
    const small = await connection.callTool('small', {}, { signal, timeoutMs: 10_000 });
    expect(small.content).toEqual([{ type: 'text', text: 'small answer' }]);

    const started = Date.now();
    const failure = await connection.callTool('huge', {}, { signal, timeoutMs: 60_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((failure as Error).message).toMatch(
      /^MCP server "huge" is no longer running \(it sent a message of at least 8(\.\d)? MiB, over the 8 MiB limit for one MCP message, so the connection was closed\)/,
    );
    expect(connection.alive).toBe(false);
  });
});
