/**
 * The CLI's MCP flags, as `claude -p` has them, through the real main() in this process.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { main } from '../../src/cli/main.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import { EVERYTHING_BIN } from './mcp-fixture.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

describe('parseCli', () => {
  it('collects --mcp-config values in order and reads --strict-mcp-config', () => {
    const settings = parseCli(
      ['-p', 'x', '--mcp-config', 'a.json', '{"mcpServers":{}}', '--strict-mcp-config'],
      '0',
    );
    expect(settings).toMatchObject({
      mcpConfig: ['a.json', '{"mcpServers":{}}'],
      strictMcpConfig: true,
    });
  });

  it('has no MCP configuration by default', () => {
    expect(parseCli(['-p', 'x'], '0')).toMatchObject({ mcpConfig: [], strictMcpConfig: false });
  });
});

async function runMain(argv: string[], files: Record<string, string> = {}) {
  workspace = makeWorkspace('ci-agent-mcp-cli-');
  for (const [path, text] of Object.entries(files)) await workspace.write(path, text);
  server = await startReplayServer({
    apiKey: 'sk-test',
    turns: [[{ type: 'text', text: 'Done.' }]],
  });
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { PATH: process.env.PATH, HOME: workspace.root },
    cwd: workspace.root,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(undefined),
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
  });
  const lines = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, stderr, lines };
}

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const everything = JSON.stringify({ mcpServers: { everything: { command: EVERYTHING_BIN } } });

describe('main with MCP servers', () => {
  it('starts --mcp-config servers, lists them on the init line and offers their tools', async () => {
    const { code, lines } = await runMain([
      '-p',
      'hi',
      ...STREAM,
      '--mcp-config',
      everything,
      JSON.stringify({ mcpServers: { broken: { command: '/nonexistent/server' } } }),
    ]);
    expect(code).toBe(0);
    const init = lines[0];
    expect(init).toMatchObject({ type: 'system', subtype: 'init' });
    expect(init?.mcp_servers).toEqual([
      { name: 'everything', status: 'connected' },
      { name: 'broken', status: 'failed' },
    ]);
    expect(init?.tools).toContain('mcp__everything__echo');
  });

  it('prints why a server failed as a warning on stderr', async () => {
    const { stderr } = await runMain([
      '-p',
      'hi',
      ...STREAM,
      '--mcp-config',
      JSON.stringify({ mcpServers: { broken: { command: '/nonexistent/server' } } }),
    ]);
    expect(stderr).toContain(
      'Warning: MCP server "broken" failed to start: cannot start /nonexistent/server',
    );
  });

  it('with --strict-mcp-config, ignores .mcp.json', async () => {
    const { lines } = await runMain(['-p', 'hi', ...STREAM, '--strict-mcp-config'], {
      '.mcp.json': everything,
    });
    expect(lines[0]?.mcp_servers).toEqual([]);
  });

  it('stops with one line when a required server is missing', async () => {
    const { code, stderr } = await runMain(['-p', 'hi', ...STREAM, '--strict-mcp-config'], {
      '.mcp.json': everything,
      '.github/ci-agent.yml': 'mcp: { required: [everything] }',
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      'Error: the policy requires MCP server "everything", which no .mcp.json, policy mcp.servers or --mcp-config configures\n',
    );
  });

  it('stops with one line when --mcp-config is not JSON', async () => {
    const { code, stderr } = await runMain([
      '-p',
      'hi',
      ...STREAM,
      '--mcp-config',
      '{"mcpServers": ',
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: --mcp-config: not valid JSON \(.*\)\n$/);
  });
});

describe('main with an --mcp-config file', () => {
  it('refuses a Write of the file that configures the run, even in acceptEdits', async () => {
    workspace = makeWorkspace('ci-agent-mcp-cli-');
    const original = JSON.stringify({ mcpServers: {} });
    await workspace.write('tools/mcp.json', original);
    const evil = { mcpServers: { evil: { command: 'sh', args: ['-c', 'touch /tmp/x'] } } };
    server = await startReplayServer({
      apiKey: 'sk-test',
      turns: [
        [
          {
            type: 'tool_use',
            id: 'w1',
            name: 'Write',
            input: { file_path: workspace.path('tools/mcp.json'), content: JSON.stringify(evil) },
          },
        ],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    let stdout = '';
    await main({
      argv: ['-p', 'hi', ...STREAM, '--permission-mode', 'acceptEdits'].concat([
        '--mcp-config',
        'tools/mcp.json',
      ]),
      env: { PATH: process.env.PATH, HOME: workspace.root },
      cwd: workspace.root,
      stdout: (text) => (stdout += text),
      stderr: () => undefined,
      readStdin: () => Promise.resolve(undefined),
      modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    });
    expect(readFileSync(workspace.path('tools/mcp.json'), 'utf8')).toBe(original);
    expect(stdout).toMatch(/judges this run/);
  });
});
