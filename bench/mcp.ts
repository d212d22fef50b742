/**
 * MCP call overhead over stdio.
 *
 * server-everything's `echo` (a trivial tool), called three ways against the same kind of server
 * process, interleaved so load from other processes falls on every series alike:
 *   1. baseline: the SDK's own Client and StdioClientTransport, `client.callTool` directly;
 *   2. our connection: McpConnection.callTool over the process-group stdio transport;
 *   3. the whole path a model's call takes: the MCP tool through the pipeline (schema check with
 *      ajv, permission decision, hooks port, the call, the result block).
 * Also the start-up of a server (spawn, initialize, tools/list) for the SDK and for us.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { executeSingleToolUse } from '../src/execution/pipeline.js';
import type { PipelineDeps } from '../src/execution/pipeline.js';
import { McpConnection } from '../src/mcp/mcp-connection.js';
import { createMcpTool } from '../src/mcp/mcp-tool.js';
import { fmt, median, percentile, printTable } from './stats.js';
import { benchPipeline } from './bench-pipeline.js';

const SERVER = join(process.cwd(), 'node_modules', '.bin', 'mcp-server-everything');
const CALLS = 2_000;
const WARM_UP = 100;
const STARTS = 5;

async function sdkClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: SERVER, args: [], stderr: 'ignore' }));
  await client.listTools();
  return { client, close: () => client.close() };
}

function ourConnection(): Promise<McpConnection> {
  return McpConnection.open({
    name: 'everything',
    config: { type: 'stdio', command: SERVER, args: [], env: {} },
    cwd: process.cwd(),
    parentEnv: process.env,
    startupTimeoutMs: 30_000,
    graceMs: 500,
  });
}

function pipelineFor(connection: McpConnection): PipelineDeps {
  const info = connection.tools.find((tool) => tool.name === 'echo');
  if (!info) throw new Error('server-everything has no echo tool');
  const tool = createMcpTool({
    server: 'everything',
    info,
    caller: connection,
    trusted: false,
    timeoutMs: 60_000,
  });
  const root = process.cwd();
  return benchPipeline([tool], root);
}

async function time(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

const row = (run: string, samples: number[], digits = 3) => ({
  run,
  median: fmt(median(samples), digits),
  p95: fmt(percentile(samples, 95), digits),
});

export async function runMcpBench(): Promise<{ overheadMs: number; baselineMs: number }> {
  const sdkStarts: number[] = [];
  const ourStarts: number[] = [];
  for (let index = 0; index < STARTS; index++) {
    let sdk: Awaited<ReturnType<typeof sdkClient>> | undefined;
    sdkStarts.push(await time(async () => (sdk = await sdkClient())));
    await sdk?.close();
    let ours: McpConnection | undefined;
    ourStarts.push(await time(async () => (ours = await ourConnection())));
    await ours?.close();
  }

  const sdk = await sdkClient();
  const connection = await ourConnection();
  const deps = pipelineFor(connection);
  const signal = new AbortController().signal;
  const raw: number[] = [];
  const direct: number[] = [];
  const full: number[] = [];
  try {
    for (let index = 0; index < CALLS + WARM_UP; index++) {
      const arguments_ = { message: `call ${index}` };
      const a = await time(() => sdk.client.callTool({ name: 'echo', arguments: arguments_ }));
      const b = await time(() =>
        connection.callTool('echo', arguments_, { signal, timeoutMs: 60_000 }),
      );
      const c = await time(() =>
        executeSingleToolUse(
          {
            type: 'tool_use',
            id: `toolu_${index}`,
            name: 'mcp__everything__echo',
            input: arguments_,
          },
          deps,
          signal,
        ),
      );
      if (index < WARM_UP) continue;
      raw.push(a);
      direct.push(b);
      full.push(c);
    }
  } finally {
    await Promise.all([sdk.close(), connection.close()]);
  }

  printTable(`echo over stdio, ${CALLS} calls each (ms)`, [
    row('SDK Client.callTool (baseline)', raw),
    row('McpConnection.callTool', direct),
    row('MCP tool through the pipeline', full),
  ]);
  printTable(`server start-up: spawn, initialize, tools/list, ${STARTS} each (ms)`, [
    row('SDK Client + StdioClientTransport', sdkStarts, 0),
    row('McpConnection.open', ourStarts, 0),
  ]);
  const baselineMs = median(raw);
  const overheadMs = median(full) - baselineMs;
  console.log(
    `overhead of an MCP call through ci-agent: ${fmt(overheadMs, 3)} ms per call over the SDK's ${fmt(baselineMs, 3)} ms`,
  );
  return { overheadMs, baselineMs };
}

if (import.meta.url === `file://${process.argv[1]}`) await runMcpBench();
