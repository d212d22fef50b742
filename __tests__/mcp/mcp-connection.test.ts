import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpConnectOptions } from '../../src/mcp/mcp-connection.js';
import {
  McpCallError,
  McpConnection,
  McpStartError,
  serverEnvironment,
} from '../../src/mcp/mcp-connection.js';
import {
  everythingStdio,
  freePort,
  groupAlive,
  processesRunning,
  waitForGroupGone,
} from './mcp-fixture.js';
import { killAllWith, processesWith, survivorsWith, uniqueSleep } from '../helpers/processes.js';

const opened: McpConnection[] = [];
afterAll(async () => {
  await Promise.all(opened.map((connection) => connection.close({ force: true })));
});

function options(overrides: Partial<McpConnectOptions> = {}): McpConnectOptions {
  return {
    name: 'everything',
    config: everythingStdio,
    cwd: process.cwd(),
    parentEnv: process.env,
    startupTimeoutMs: 15_000,
    graceMs: 300,
    ...overrides,
  };
}

async function open(overrides: Partial<McpConnectOptions> = {}): Promise<McpConnection> {
  const connection = await McpConnection.open(options(overrides));
  opened.push(connection);
  return connection;
}

function nodeServer(script: string): McpConnectOptions['config'] {
  return { type: 'stdio', command: process.execPath, args: ['-e', script], env: {} };
}

const call = (
  connection: McpConnection,
  tool: string,
  args: Record<string, unknown>,
  timeoutMs = 10_000,
) => connection.callTool(tool, args, { signal: new AbortController().signal, timeoutMs });

describe('McpConnection.open', () => {
  describe('when the server starts', () => {
    let connection: McpConnection;
    beforeAll(async () => {
      connection = await open();
    });

    it('lists every tool of the server with its schema and annotations', () => {
      const echo = connection.tools.find((tool) => tool.name === 'echo');
      expect(echo?.inputSchema).toMatchObject({
        type: 'object',
        properties: { message: { type: 'string' } },
        required: ['message'],
      });
      expect(echo?.annotations?.readOnlyHint).toBe(true);
      expect(connection.tools.map((tool) => tool.name)).toContain('get-sum');
    });

    it('runs the server in a process group of its own', () => {
      expect(connection.pid).toBeGreaterThan(0);
      expect(groupAlive(connection.pid ?? 0)).toBe(true);
    });
  });

  describe('when the command does not exist', () => {
    it('throws naming the server and the command', async () => {
      const attempt = open({ config: { ...everythingStdio, command: '/nonexistent/mcp-server' } });
      await expect(attempt).rejects.toThrow(McpStartError);
      await expect(attempt).rejects.toThrow(
        'MCP server "everything" failed to start: cannot start /nonexistent/mcp-server: spawn /nonexistent/mcp-server ENOENT',
      );
    });
  });

  describe('when the server exits before it is ready', () => {
    it('says how it exited and what it wrote to stderr', async () => {
      const attempt = open({
        config: nodeServer('process.stderr.write("missing API key\\n"); process.exit(3)'),
      });
      await expect(attempt).rejects.toThrow(
        'MCP server "everything" exited with code 3 before it was ready; its stderr ends: missing API key',
      );
    });
  });

  describe('when the server does not answer within the startup timeout', () => {
    it('gives up, names the setting, and leaves no process behind', async () => {
      // A real process needs real time; the timeout is short so the test stays quick.
      const marker = `silent-server-${process.pid}-${Date.now()}`;
      const attempt = McpConnection.open(
        options({
          config: nodeServer(`/* ${marker} */ setInterval(() => {}, 1000)`),
          startupTimeoutMs: 300,
        }),
      );
      await expect(attempt).rejects.toThrow(
        'MCP server "everything" did not finish starting within 0.3 s (mcp.startupTimeoutSeconds in the policy sets the limit)',
      );
      expect(processesRunning(marker)).toEqual([]);
    });
  });

  describe('when the run is stopped during startup', () => {
    it('says so instead of a timeout', async () => {
      const controller = new AbortController();
      controller.abort(new Error('SIGTERM'));
      const attempt = open({ signal: controller.signal });
      await expect(attempt).rejects.toThrow(
        'MCP server "everything" was not started: the run was stopped',
      );
    });
  });

  describe('when an http server is not a URL or not listening', () => {
    it('rejects a url that is not http(s)', async () => {
      const attempt = open({
        config: { type: 'http', url: 'ftp://example.test/mcp', headers: {} },
      });
      await expect(attempt).rejects.toThrow(
        'MCP server "everything": url "ftp://example.test/mcp" is not http:// or https://',
      );
    });

    it('says the connection was refused', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/mcp`;
      const attempt = open({ config: { type: 'http', url, headers: {} } });
      await expect(attempt).rejects.toThrow(`MCP server "everything" at ${url} failed to start:`);
      await expect(attempt).rejects.toThrow('ECONNREFUSED');
    });
  });
});

describe('McpConnection.callTool', () => {
  let connection: McpConnection;
  beforeAll(async () => {
    connection = await open();
  });

  it('returns the tool result', async () => {
    const result = await call(connection, 'echo', { message: 'hello' });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    expect(result.isError).toBeFalsy();
  });

  it('returns a tool error as a result with isError', async () => {
    const result = await call(connection, 'echo', { message: 42 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('expected string, received number');
  });

  it('passes progress notifications on', async () => {
    const messages: string[] = [];
    await connection.callTool(
      'trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      {
        signal: new AbortController().signal,
        timeoutMs: 10_000,
        onProgress: (m) => messages.push(m),
      },
    );
    expect(messages).toEqual(['1 of 2', '2 of 2']);
  });

  describe('when the tool does not answer within the call timeout', () => {
    it('fails the call, naming tool, server and the timeout', async () => {
      const attempt = call(
        connection,
        'trigger-long-running-operation',
        { duration: 30, steps: 1 },
        300,
      );
      await expect(attempt).rejects.toThrow(McpCallError);
      await expect(attempt).rejects.toThrow(
        'MCP tool "trigger-long-running-operation" of server "everything" did not answer within 0.3 s; the call was cancelled',
      );
      // The server is still usable afterwards.
      expect((await call(connection, 'echo', { message: 'still here' })).content).toEqual([
        { type: 'text', text: 'Echo: still here' },
      ]);
    });
  });
});

describe('McpConnection when the server crashes', () => {
  it('fails pending and later calls with how the server ended', async () => {
    const connection = await open();
    const pid = connection.pid ?? 0;
    const pending = call(connection, 'trigger-long-running-operation', { duration: 30, steps: 1 });
    process.kill(pid, 'SIGKILL');
    const failure = await pending.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpCallError);
    expect(String(failure)).toMatch(
      /^McpCallError: MCP server "everything" is no longer running \(it was killed by SIGKILL; its stderr ends: .*\); its tools cannot be used for the rest of this run$/s,
    );
    await expect(call(connection, 'echo', { message: 'x' })).rejects.toThrow(
      'is no longer running',
    );
    expect(connection.alive).toBe(false);
    expect(await waitForGroupGone(pid)).toBe(true);
  });
});

describe('McpConnection.close', () => {
  it('stops the server and everything in its process group', async () => {
    // A shell that leaves a grandchild running: the SDK's own transport would leave it behind.
    const connection = await McpConnection.open(
      options({
        config: {
          type: 'stdio',
          command: '/bin/sh',
          args: ['-c', `sleep 300 & exec "${everythingStdio.command}"`],
          env: {},
        },
      }),
    );
    const pid = connection.pid ?? 0;
    expect(groupAlive(pid)).toBe(true);
    await connection.close();
    expect(await waitForGroupGone(pid)).toBe(true);
    expect(connection.alive).toBe(false);
  });

  it('stops what the server started in a session of its own', async () => {
    const sleep = uniqueSleep();
    const connection = await McpConnection.open(
      options({
        config: {
          type: 'stdio',
          command: '/bin/sh',
          args: ['-c', `setsid sleep ${sleep} >/dev/null 2>&1 & exec "${everythingStdio.command}"`],
          env: {},
        },
      }),
    );
    try {
      expect(processesWith(sleep)).toHaveLength(1);
      await connection.close();
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    } finally {
      killAllWith(sleep);
    }
  });

  it('with force, kills the server without waiting for it', async () => {
    const connection = await McpConnection.open(options({ graceMs: 10_000 }));
    const pid = connection.pid ?? 0;
    const started = performance.now();
    await connection.close({ force: true });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await waitForGroupGone(pid)).toBe(true);
  });
});

describe('serverEnvironment', () => {
  it('keeps the minimal inherited set and adds only what the configuration names', () => {
    const env = serverEnvironment(
      {
        PATH: '/bin',
        HOME: '/home/ci',
        ANTHROPIC_API_KEY: 'sk-secret',
        CI: 'true',
        SHELL: '() { x; }',
      },
      { API_URL: 'http://127.0.0.1:1' },
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/ci', API_URL: 'http://127.0.0.1:1' });
  });

  it('lets the configuration override an inherited value', () => {
    expect(serverEnvironment({ PATH: '/bin' }, { PATH: '/opt/bin' })).toEqual({ PATH: '/opt/bin' });
  });
});

describe('a stdio server’s environment', () => {
  it('holds no secret of the parent', async () => {
    const connection = await open({
      parentEnv: { ...process.env, ANTHROPIC_API_KEY: 'sk-parent-secret', SOME_TOKEN: 'abc' },
      config: { ...everythingStdio, env: { GIVEN: 'yes' } },
    });
    const result = await call(connection, 'get-env', {});
    const env = JSON.parse((result.content[0] as { text: string }).text) as Record<string, string>;
    expect(env.GIVEN).toBe('yes');
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.SOME_TOKEN).toBeUndefined();
    // CI_AGENT_PROCESS_SCOPE: a random id the process scope finds the server's processes by.
    const allowed = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'GIVEN'];
    allowed.push('CI_AGENT_PROCESS_SCOPE');
    expect(Object.keys(env).filter((name) => !allowed.includes(name))).toEqual([]);
  });
});
