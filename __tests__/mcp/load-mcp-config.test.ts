import { afterEach, describe, expect, it } from 'vitest';
import {
  loadMcpConfig,
  McpConfigError,
  parseMcpConfigDocument,
  serverNameOf,
} from '../../src/mcp/load-mcp-config.js';
import type { McpPolicy } from '../../src/mcp/mcp-policy.js';
import { EMPTY_MCP_POLICY } from '../../src/mcp/mcp-policy.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => {
  workspace?.cleanup();
  workspace = undefined;
});

const document = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

describe('parseMcpConfigDocument', () => {
  it('reads stdio, http and sse servers in Claude Code’s shape', () => {
    const parsed = parseMcpConfigDocument(
      document({
        files: { command: 'npx', args: ['-y', 'server'], env: { ROOT: '/x' } },
        typed: { type: 'stdio', command: 'server' },
        remote: { type: 'http', url: 'https://mcp.example.test/mcp', headers: { 'X-A': '1' } },
        legacy: { type: 'sse', url: 'https://sse.example.test/sse' },
      }),
      '.mcp.json',
    );
    expect(parsed.broken).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.servers).toEqual([
      {
        name: 'files',
        source: '.mcp.json',
        config: { type: 'stdio', command: 'npx', args: ['-y', 'server'], env: { ROOT: '/x' } },
      },
      {
        name: 'typed',
        source: '.mcp.json',
        config: { type: 'stdio', command: 'server', args: [], env: {} },
      },
      {
        name: 'remote',
        source: '.mcp.json',
        config: { type: 'http', url: 'https://mcp.example.test/mcp', headers: { 'X-A': '1' } },
      },
      {
        name: 'legacy',
        source: '.mcp.json',
        config: { type: 'sse', url: 'https://sse.example.test/sse', headers: {} },
      },
    ]);
  });

  describe('when an entry is wrong', () => {
    it.each([
      [
        { args: ['x'] },
        '.mcp.json: mcpServers.bad: command: missing; a stdio server needs the command that starts it',
      ],
      [
        { url: 'https://x.test' },
        '.mcp.json: mcpServers.bad: type: a server with a url needs type: "http" (or "sse")',
      ],
      [
        { type: 'http', command: 'x' },
        '.mcp.json: mcpServers.bad: url: missing; an http server needs its url; command: "command" is for stdio servers; this one has a url',
      ],
      [
        { command: 'x', headers: { a: 'b' } },
        '.mcp.json: mcpServers.bad: headers: "headers" is for http and sse servers; this one runs a command',
      ],
      [
        { command: 'x', args: 'one two' },
        '.mcp.json: mcpServers.bad: args: expected a list of string arguments',
      ],
      [
        { type: 'websocket', url: 'ws://x' },
        '.mcp.json: mcpServers.bad: type: expected "stdio", "http" or "sse"',
      ],
      [
        'npx server',
        '.mcp.json: mcpServers.bad: expected a server such as {"command": "npx", "args": [...]} or {"type": "http", "url": ...}',
      ],
    ])('marks only that server as broken: %j', (entry, message) => {
      const parsed = parseMcpConfigDocument(
        document({ bad: entry, good: { command: 'ok' } }),
        '.mcp.json',
      );
      expect(parsed.broken).toEqual([{ name: 'bad', source: '.mcp.json', message }]);
      expect(parsed.servers.map((server) => server.name)).toEqual(['good']);
    });
  });

  it('warns about keys it does not know, and keeps the server', () => {
    const parsed = parseMcpConfigDocument(
      JSON.stringify({ mcpServers: { a: { command: 'x', timeout: 5 } }, version: 2 }),
      '.mcp.json',
    );
    expect(parsed.warnings).toEqual([
      '.mcp.json: ignored unknown key "version"',
      '.mcp.json: mcpServers.a: ignored unknown key "timeout"',
    ]);
    expect(parsed.servers).toHaveLength(1);
  });

  it('renames a server whose name cannot appear in a tool name, and says so', () => {
    const parsed = parseMcpConfigDocument(
      document({ 'my server.v2': { command: 'x' } }),
      '.mcp.json',
    );
    expect(parsed.servers[0]?.name).toBe('my_server_v2');
    expect(parsed.warnings).toEqual([
      '.mcp.json: MCP server "my server.v2" is called "my_server_v2" in tool names and rules',
    ]);
  });

  describe('when the document is unusable', () => {
    it.each([
      ['{"mcpServers": ', /^\.mcp\.json: not valid JSON \(/],
      [
        '[]',
        '.mcp.json: expected {"mcpServers": {"<name>": {"command": …} or {"type": "http", "url": …}}}',
      ],
      ['{"servers": {}}', '.mcp.json: expected {"mcpServers"'],
    ])('throws naming the file: %s', (text, message) => {
      expect(() => parseMcpConfigDocument(text, '.mcp.json')).toThrow(McpConfigError);
      expect(() => parseMcpConfigDocument(text, '.mcp.json')).toThrow(message);
    });
  });
});

describe('serverNameOf', () => {
  it.each([
    ['github', 'github'],
    ['brave-search', 'brave-search'],
    ['a b', 'a_b'],
    ['my__server', 'my_server'],
    ['@scope/pkg', '_scope_pkg'],
    ['', '_'],
  ])('%j → %j', (written, name) => {
    expect(serverNameOf(written)).toBe(name);
  });
});

describe('loadMcpConfig', () => {
  const policy: McpPolicy = {
    ...EMPTY_MCP_POLICY,
    source: '.github/ci-agent.yml',
    servers: {
      docs: { type: 'http', url: 'https://docs.example.test/mcp', headers: {} },
      shared: { type: 'stdio', command: 'from-policy', args: [], env: {} },
    },
  };

  async function project(mcpJson?: unknown): Promise<string> {
    workspace = makeWorkspace('ci-agent-mcp-config-');
    if (mcpJson !== undefined) await workspace.write('.mcp.json', JSON.stringify(mcpJson));
    await workspace.write('extra.json', document({ shared: { command: 'from-flag-file' } }));
    return workspace.root;
  }

  it('reads .mcp.json, then the policy, then --mcp-config, later ones replacing earlier ones', async () => {
    const root = await project({
      mcpServers: { local: { command: 'a' }, shared: { command: 'from-project' } },
    });
    const config = await loadMcpConfig({
      projectDir: root,
      policy,
      configArgs: ['extra.json', document({ inline: { command: 'b' } })],
    });
    expect(config.servers.map((server) => [server.name, server.source])).toEqual([
      ['local', '.mcp.json'],
      ['docs', '.github/ci-agent.yml'],
      ['shared', `${root}/extra.json`],
      ['inline', '--mcp-config'],
    ]);
    expect(config.warnings).toEqual([
      'MCP server "shared" from .github/ci-agent.yml replaces the one from .mcp.json',
      `MCP server "shared" from ${root}/extra.json replaces the one from .github/ci-agent.yml`,
    ]);
  });

  it('with strict, reads only the --mcp-config servers', async () => {
    const root = await project({ mcpServers: { local: { command: 'a' } } });
    const config = await loadMcpConfig({
      projectDir: root,
      policy,
      strict: true,
      configArgs: [document({ inline: { command: 'b' } })],
    });
    expect(config.servers.map((server) => server.name)).toEqual(['inline']);
  });

  it('has no servers when nothing configures any', async () => {
    const root = await project();
    expect(await loadMcpConfig({ projectDir: root, policy: EMPTY_MCP_POLICY })).toEqual({
      servers: [],
      broken: [],
      warnings: [],
    });
  });

  it('throws when a --mcp-config file does not exist', async () => {
    const root = await project();
    await expect(
      loadMcpConfig({ projectDir: root, policy: EMPTY_MCP_POLICY, configArgs: ['missing.json'] }),
    ).rejects.toThrow('--mcp-config missing.json: no such file');
  });

  it('throws when .mcp.json is not JSON', async () => {
    workspace = makeWorkspace('ci-agent-mcp-config-');
    await workspace.write('.mcp.json', '{ nope');
    await expect(
      loadMcpConfig({ projectDir: workspace.root, policy: EMPTY_MCP_POLICY }),
    ).rejects.toThrow('.mcp.json: not valid JSON');
  });
});
