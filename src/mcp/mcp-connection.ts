/**
 * One running MCP server: started (stdio) or reached (http, sse), initialized, its tools listed,
 * then called until the run ends. Every failure is turned into a sentence that names the server
 * and says what happened; the callers decide whether it is the operator's (start) or the
 * model's (call) to read.
 *
 * Startup: spawn or connect → initialize → tools/list (all pages), all within one deadline.
 * A server that exits later is remembered as gone: its calls fail at once with why.
 *
 * The client offers elicitation (form and URL mode): a server's question is answered by the
 * policy (elicitation.ts) and reported to every call running on the connection when it came,
 * since the protocol does not say which call a server request belongs to.
 *
 * A message over the size limit (message-limit.ts) fails the calls it answered at once: over
 * stdio the server is stopped (stdio-transport.ts); over streamable HTTP the calls of that
 * response get an error and the connection goes on (limited-fetch.ts); over the older SSE
 * transport, where every answer shares one stream, the connection is closed as a crashed one.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../util/errors.js';
import type { ElicitationRecord } from './elicitation.js';
import { answerElicitation } from './elicitation.js';
import {
  makeTransport,
  McpStartError,
  OVERSIZE_CODE,
  type McpConnectOptions,
} from './mcp-transport.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';

export type { McpToolInfo };
export { McpStartError, serverEnvironment } from './mcp-transport.js';

export type { McpConnectOptions } from './mcp-transport.js';

export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (message: string) => void;
  /** The server asked for input during the call; this is what was asked and answered. */
  onElicitation?: (record: ElicitationRecord) => void;
}

/** A call that failed outside the tool (transport, protocol, timeout); the message is complete. */
export class McpCallError extends Error {
  override readonly name = 'McpCallError';
}

export class McpConnection {
  private gone: string | undefined;
  private closing = false;

  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly transport: Transport,
    readonly tools: readonly McpToolInfo[],
    /** The elicitation listeners of the calls running now. */
    private readonly running: Set<(record: ElicitationRecord) => void>,
    /** Why the connection was cut by us (sse: a message over the limit). */
    private readonly cut: { reason?: string },
  ) {
    client.onclose = () => {
      if (!this.closing) this.gone = this.describeEnd();
    };
  }

  static async open(options: McpConnectOptions): Promise<McpConnection> {
    const { transport, cut } = makeTransport(options);
    const client = new Client(
      { name: 'ci-agent', version: options.clientVersion ?? '0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    const running = new Set<(record: ElicitationRecord) => void>();
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const answer = answerElicitation(
        options.name,
        request.params,
        options.acceptElicitationDefaults === true,
      );
      for (const listener of running) listener(answer.record);
      return answer.result;
    });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.startupTimeoutMs);
    const signal = options.signal
      ? AbortSignal.any([deadline.signal, options.signal])
      : deadline.signal;
    const request = { signal, timeout: options.startupTimeoutMs };
    try {
      await client.connect(transport, request);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return new McpConnection(options.name, client, transport, tools, running, cut);
    } catch (error) {
      await stopQuietly(client, transport);
      throw new McpStartError(startFailure(options, transport, error, deadline.signal.aborted));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the server can still be called. */
  get alive(): boolean {
    return this.gone === undefined && !this.closing;
  }

  /** The server's process id (stdio only). */
  get pid(): number | undefined {
    return this.transport instanceof ProcessGroupStdioTransport ? this.transport.pid : undefined;
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    if (this.gone !== undefined) throw new McpCallError(this.goneMessage());
    const listener = options.onElicitation;
    if (listener) this.running.add(listener);
    try {
      const result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
        ...(options.onProgress && {
          onprogress: ({ progress, total, message }) =>
            options.onProgress?.(
              message ?? `${progress}${total === undefined ? '' : ` of ${total}`}`,
            ),
        }),
      });
      return result as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (this.gone !== undefined || isCode(error, ErrorCode.ConnectionClosed)) {
        this.gone ??= this.describeEnd();
        throw new McpCallError(this.goneMessage());
      }
      if (
        error instanceof McpError &&
        error.code === OVERSIZE_CODE &&
        typeof error.data === 'string'
      ) {
        throw new McpCallError(error.data);
      }
      if (isCode(error, ErrorCode.RequestTimeout)) {
        throw new McpCallError(
          `MCP tool "${tool}" of server "${this.name}" did not answer within ${seconds(options.timeoutMs)}; the call was cancelled`,
        );
      }
      throw new McpCallError(`MCP server "${this.name}" failed the call: ${errorMessage(error)}`);
    } finally {
      if (listener) this.running.delete(listener);
    }
  }

  /** Stops the server (stdio) or ends the session (http); `force` skips the polite steps. */
  async close(options: { force?: boolean } = {}): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (options.force && this.transport instanceof ProcessGroupStdioTransport) {
      this.transport.kill();
    }
    if (this.transport instanceof StreamableHTTPClientTransport && !options.force) {
      // Ask the server to drop the session; a server that does not answer is not waited for.
      await Promise.race([
        this.transport.terminateSession().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
      ]);
    }
    await stopQuietly(this.client, this.transport);
  }

  private describeEnd(): string {
    if (this.cut.reason) return this.cut.reason;
    const transport = this.transport;
    if (transport instanceof ProcessGroupStdioTransport) {
      const how = transport.exitDescription ?? 'closed its connection';
      const stderr = transport.stderrTail;
      return stderr ? `it ${how}; its stderr ends: ${lastLines(stderr)}` : `it ${how}`;
    }
    return 'the connection was closed';
  }

  private goneMessage(): string {
    return `MCP server "${this.name}" is no longer running (${this.gone}); its tools cannot be used for the rest of this run`;
  }
}

function startFailure(
  options: McpConnectOptions,
  transport: Transport,
  error: unknown,
  timedOut: boolean,
): string {
  const prefix = `MCP server "${options.name}"`;
  const stderr =
    transport instanceof ProcessGroupStdioTransport && transport.stderrTail
      ? `; its stderr ends: ${lastLines(transport.stderrTail)}`
      : '';
  if (timedOut) {
    return `${prefix} did not finish starting within ${seconds(options.startupTimeoutMs)} (mcp.startupTimeoutSeconds in the policy sets the limit)${stderr}`;
  }
  if (options.signal?.aborted) return `${prefix} was not started: the run was stopped`;
  if (transport instanceof ProcessGroupStdioTransport && transport.exitDescription) {
    return `${prefix} ${transport.exitDescription} before it was ready${stderr}`;
  }
  const target = options.config.type === 'stdio' ? '' : ` at ${options.config.url}`;
  return `${prefix}${target} failed to start: ${causeOf(error)}${stderr}`;
}

async function stopQuietly(client: Client, transport: Transport): Promise<void> {
  try {
    await client.close();
  } catch {
    // already closed
  }
  // Client.close does nothing when connect never finished; the transport may still run.
  await transport.close().catch(() => undefined);
}

function isCode(error: unknown, code: number): boolean {
  return error instanceof McpError && error.code === code;
}

/** fetch hides the reason (ECONNREFUSED…) in `cause`. */
function causeOf(error: unknown): string {
  const message = errorMessage(error);
  if (error instanceof Error && error.cause instanceof Error) {
    return `${message} (${error.cause.message})`;
  }
  return message;
}

function lastLines(text: string): string {
  return text.split('\n').slice(-5).join('\n');
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
