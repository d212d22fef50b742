/**
 * Remote MCP servers on loopback: server-everything over streamable HTTP and SSE, and a small
 * in-process SDK server that records the headers it receives.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnection } from '../../src/mcp/mcp-connection.js';
import { EMPTY_MCP_POLICY } from '../../src/mcp/mcp-policy.js';
import { startMcpServers } from '../../src/mcp/start-mcp-servers.js';
import type { HttpEverything } from './mcp-fixture.js';
import { startHttpEverything } from './mcp-fixture.js';

const signal = new AbortController().signal;

describe.each(['streamableHttp', 'sse'] as const)('server-everything over %s', (transport) => {
  let remote: HttpEverything;
  beforeAll(async () => {
    remote = await startHttpEverything(transport);
  });
  afterAll(async () => {
    await remote.stop();
  });

  it('lists its tools, answers calls and errors, and closes', async () => {
    const connection = await McpConnection.open({
      name: 'remote',
      config: { type: transport === 'sse' ? 'sse' : 'http', url: remote.url, headers: {} },
      cwd: process.cwd(),
      parentEnv: {},
      startupTimeoutMs: 15_000,
    });
    try {
      expect(connection.tools.map((tool) => tool.name)).toContain('echo');
      expect(connection.pid).toBeUndefined();
      const echo = await connection.callTool(
        'echo',
        { message: 'over http' },
        { signal, timeoutMs: 10_000 },
      );
      expect(echo.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
      const bad = await connection.callTool('get-sum', { a: 'x' }, { signal, timeoutMs: 10_000 });
      expect(bad.isError).toBe(true);
    } finally {
      await connection.close();
    }
    expect(connection.alive).toBe(false);
  });
});

describe('startMcpServers with an http server', () => {
  let http: Server;
  let url: string;
  const seen: IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    // Stateless streamable HTTP: a fresh SDK server per request, as the SDK's examples do.
    http = createServer((request, response) => {
      seen.push(request.headers);
      const server = new McpServer({ name: 'headers', version: '1' });
      server.registerTool('whoami', { description: 'Says who is asking' }, () => ({
        content: [{ type: 'text', text: String(request.headers.authorization) }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(request, response));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
  });
  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
  });

  it('sends the static headers with ${VAR} filled from the allowed environment', async () => {
    const servers = await startMcpServers({
      config: {
        servers: [
          {
            name: 'headers',
            source: '.mcp.json',
            config: {
              type: 'http',
              url,
              headers: { Authorization: 'Bearer ${MCP_TOKEN}', 'X-Team': '${TEAM:-platform}' },
            },
          },
        ],
        broken: [],
        warnings: [],
      },
      policy: { ...EMPTY_MCP_POLICY, allowEnv: ['MCP_TOKEN'] },
      projectDir: process.cwd(),
      parentEnv: { MCP_TOKEN: 'tok-123', TEAM: 'not-allowed' },
    });
    try {
      expect(servers.servers).toEqual([{ name: 'headers', status: 'connected' }]);
      const tool = servers.tools.find((candidate) => candidate.name === 'mcp__headers__whoami');
      expect(tool).toBeDefined();
      expect(seen.at(-1)?.authorization).toBe('Bearer tok-123');
      expect(seen.at(-1)?.['x-team']).toBe('platform');
    } finally {
      await servers.close();
    }
  });

  it('fails the server, not the run, when a header needs a variable the policy does not allow', async () => {
    const servers = await startMcpServers({
      config: {
        servers: [
          {
            name: 'headers',
            source: '.mcp.json',
            config: { type: 'http', url, headers: { Authorization: '${GITHUB_TOKEN}' } },
          },
        ],
        broken: [],
        warnings: [],
      },
      policy: EMPTY_MCP_POLICY,
      projectDir: process.cwd(),
      parentEnv: { GITHUB_TOKEN: 'ghs_secret' },
    });
    expect(servers.servers).toEqual([{ name: 'headers', status: 'failed' }]);
    expect(servers.warnings).toEqual([
      'MCP server "headers" (.mcp.json): headers.Authorization: ${GITHUB_TOKEN} is set but not in the policy\'s mcp.allowEnv, so it is not read (add GITHUB_TOKEN to mcp.allowEnv in the policy file); the run goes on without its tools',
    ]);
    expect(servers.tools).toEqual([]);
  });
});
