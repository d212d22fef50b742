/**
 * The limit on one MCP message: the stdio reader's own checks, and a real server answering a
 * call with 40 MB, which must fail that call at once rather than after the call timeout.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpCallError, McpConnection } from '../../src/mcp/mcp-connection.js';
import {
  LimitedLineReader,
  MAX_MESSAGE_BYTES,
  formatBytes,
  oversizePhrase,
} from '../../src/mcp/message-limit.js';
import { runCli } from '../helpers/cli-harness.js';
import { waitForGroupGone } from './mcp-fixture.js';

const HUGE_SERVER = join(import.meta.dirname, '__fixtures__', 'huge-answer-server.mjs');
const line = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`);
const ping = { jsonrpc: '2.0', id: 1, result: {} };

describe('formatBytes', () => {
  it('says bytes below a MiB and MiB above, with one decimal when not whole', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(MAX_MESSAGE_BYTES)).toBe('8 MiB');
    expect(formatBytes(40 * 1024 * 1024 + 100_000)).toBe('40.1 MiB');
  });
});

describe('oversizePhrase', () => {
  it('names the size and the limit', () => {
    expect(oversizePhrase(9 * 1024 * 1024, MAX_MESSAGE_BYTES, true)).toBe(
      'sent a message of at least 9 MiB, over the 8 MiB limit for one MCP message',
    );
  });
});

describe('LimitedLineReader', () => {
  it('reads messages split across chunks and several in one chunk', () => {
    const reader = new LimitedLineReader(1_000);
    const bytes = Buffer.concat([line(ping), line({ ...ping, id: 2 })]);
    const first = reader.push(bytes.subarray(0, 10));
    const rest = reader.push(bytes.subarray(10));
    expect(first).toEqual([]);
    expect(rest.map((event) => event.kind === 'message' && event.message)).toEqual([
      ping,
      { ...ping, id: 2 },
    ]);
  });

  it('reports a line that is not JSON-RPC and goes on reading', () => {
    const reader = new LimitedLineReader(1_000);
    const events = reader.push(Buffer.concat([Buffer.from('hello\n'), line(ping)]));
    expect(events.map((event) => event.kind)).toEqual(['invalid', 'message']);
  });

  it('stops at a line longer than the limit before its end arrives, and reads no further', () => {
    const reader = new LimitedLineReader(100);
    expect(reader.push(line(ping))).toHaveLength(1);
    const events = reader.push(Buffer.alloc(60, 0x61));
    expect(events).toEqual([]);
    expect(reader.push(Buffer.alloc(60, 0x61))).toEqual([{ kind: 'oversize', bytes: 120 }]);
    expect(reader.push(line(ping))).toEqual([]);
  });

  it('accepts a line of exactly the limit', () => {
    const bytes = line(ping);
    const reader = new LimitedLineReader(bytes.length - 1);
    expect(reader.push(bytes).map((event) => event.kind)).toEqual(['message']);
    const tight = new LimitedLineReader(bytes.length - 2);
    expect(tight.push(bytes).map((event) => event.kind)).toEqual(['oversize']);
  });
});

describe('McpConnection with a stdio server that answers with 40 MB', () => {
  const opened: McpConnection[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((connection) => connection.close({ force: true })));
  });

  async function open(): Promise<McpConnection> {
    const connection = await McpConnection.open({
      name: 'huge',
      config: { type: 'stdio', command: process.execPath, args: [HUGE_SERVER], env: {} },
      cwd: process.cwd(),
      parentEnv: process.env,
      startupTimeoutMs: 15_000,
      graceMs: 300,
    });
    opened.push(connection);
    return connection;
  }

  it('fails the call at once naming server, size and limit, and stops the server', async () => {
    const connection = await open();
    const signal = new AbortController().signal;
    const small = await connection.callTool('small', {}, { signal, timeoutMs: 10_000 });
    expect(small.content).toEqual([{ type: 'text', text: 'small answer' }]);

    const started = Date.now();
    const failure = await connection.callTool('huge', {}, { signal, timeoutMs: 60_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(McpCallError);
    expect((failure as Error).message).toMatch(
      /^MCP server "huge" is no longer running \(it sent a message of at least 8(\.\d)? MiB, over the 8 MiB limit for one MCP message, so it was stopped; its stderr ends: pid \d+\); its tools cannot be used for the rest of this run$/,
    );
    expect(connection.alive).toBe(false);
    expect(await waitForGroupGone(connection.pid ?? 0)).toBe(true);

    const later = await connection.callTool('small', {}, { signal, timeoutMs: 10_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((later as Error).message).toContain('over the 8 MiB limit');
  });
});

describe('the CLI calling a stdio server that answers with 40 MB', () => {
  it('gets an error result for that call at once, and the run goes on to its end', async () => {
    const config = {
      mcpServers: { huge: { command: process.execPath, args: [HUGE_SERVER] } },
    };
    const started = Date.now();
    const run = await runCli(
      [
        '-p',
        'go',
        '--output-format',
        'stream-json',
        '--verbose',
        '--mcp-config',
        JSON.stringify(config),
      ],
      {
        files: { '.github/ci-agent.yml': 'permissions: { allow: [mcp__huge] }\n' },
        turns: [
          [{ type: 'tool_use', id: 'toolu_huge', name: 'mcp__huge__huge', input: {} }],
          [{ type: 'text', text: 'Done.' }],
        ],
        timeoutMs: 60_000,
      },
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.code, run.stderr).toBe(0);
    const result = run.lines.find((entry) => entry.type === 'user');
    expect(JSON.stringify(result)).toMatch(
      /Error: MCP server \\"huge\\" is no longer running \(it sent a message of at least 8(\.\d)? MiB, over the 8 MiB limit/,
    );
    expect(run.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
  });
});
