/**
 * The transport of one MCP server, by its configuration: stdio (in its own process group, with
 * only the minimal environment), streamable HTTP or SSE, each reading at most one message of
 * the size limit (message-limit.ts).
 *
 * A message over the limit on http is answered in its place, for each request of that response,
 * by an error with OVERSIZE_CODE, so those calls fail at once and the connection goes on. On
 * sse every answer shares one stream: the transport is closed, and `cut.reason` says why.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Oversize } from './limited-fetch.js';
import { limitedFetch } from './limited-fetch.js';
import type { McpServerConfig } from './server-config.js';
import { MAX_MESSAGE_BYTES, oversizePhrase } from './message-limit.js';
import { ProcessGroupStdioTransport, type StdioServerProcess } from './stdio-transport.js';

/** A server that could not be started or reached; the message is complete. */
export class McpStartError extends Error {
  override readonly name = 'McpStartError';
}

/** The error code of the answer put in place of a message over the limit (implementation range). */
export const OVERSIZE_CODE = -32_090;

export interface McpConnectOptions {
  name: string;
  /** Expanded: no `${VAR}` left. */
  config: McpServerConfig;
  /** Where a stdio server runs: the project directory. */
  cwd: string;
  /** The parent environment; a stdio server gets only the SDK's minimal set from it. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  startupTimeoutMs: number;
  signal?: AbortSignal;
  clientVersion?: string;
  /** Per signal step when a stdio server is stopped. */
  graceMs?: number;
  /** The policy lists the server in `mcp.acceptElicitationDefaults`. */
  acceptElicitationDefaults?: boolean;
  /** The largest message read (http, sse); default MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** The OS sandbox a stdio server runs in. */
  sandbox?: StdioServerProcess['sandbox'];
}

/**
 * The environment of a stdio server: the SDK's minimal inherited set (HOME, LOGNAME, PATH,
 * SHELL, TERM, USER), taken from the parent, plus exactly what its configuration names.
 */
export function serverEnvironment(
  parentEnv: Readonly<Record<string, string | undefined>>,
  configured: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of DEFAULT_INHERITED_ENV_VARS) {
    const value = parentEnv[name];
    // A value starting with "()" is an exported shell function: never passed on (as the SDK does).
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return { ...env, ...configured };
}

/** The transport, not yet started; `cut.reason` is set when we close it for an oversize. */
export function makeTransport(options: McpConnectOptions): {
  transport: Transport;
  cut: { reason?: string };
} {
  const cut: { reason?: string } = {};
  const limit = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const onOversize = (oversize: Oversize) => {
    const phrase = oversizePhrase(oversize.bytes, limit, oversize.atLeast);
    if (transport instanceof SSEClientTransport) {
      // Closing the transport fails every pending call as a crash does.
      cut.reason ??= `it ${phrase}, so the connection was closed`;
      void transport.close().catch(() => undefined);
      return;
    }
    const sentence = `MCP server "${options.name}" ${phrase}`;
    for (const id of oversize.requestIds) {
      transport.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: OVERSIZE_CODE, message: sentence, data: sentence },
      });
    }
  };
  const transport = transportFor(options, limitedFetch(limit, onOversize));
  return { transport, cut };
}

function transportFor(options: McpConnectOptions, fetch: FetchLike): Transport {
  const config = options.config;
  if (config.type === 'stdio') {
    return new ProcessGroupStdioTransport({
      command: config.command,
      args: config.args,
      env: serverEnvironment(options.parentEnv, config.env),
      cwd: options.cwd,
      ...(options.graceMs !== undefined && { graceMs: options.graceMs }),
      ...(options.maxMessageBytes !== undefined && { maxMessageBytes: options.maxMessageBytes }),
      ...(options.sandbox && { sandbox: options.sandbox }),
    });
  }
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new McpStartError(
      `MCP server "${options.name}": url ${JSON.stringify(config.url)} is not a URL (expected http:// or https://)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpStartError(
      `MCP server "${options.name}": url ${JSON.stringify(config.url)} is not http:// or https://`,
    );
  }
  const requestInit = { headers: { ...config.headers } };
  return config.type === 'http'
    ? new StreamableHTTPClientTransport(url, { requestInit, fetch })
    : new SSEClientTransport(url, { requestInit, fetch });
}
