/**
 * Starting every configured MCP server for a run, and stopping them all at its end.
 *
 * 1. a server the policy requires but nobody configures stops the run at once
 * 2. each server's `${VAR}` references are filled from the allowed environment
 * 3. all servers start in parallel, each within the startup timeout
 * 4. a server that fails is a warning, unless the policy requires it: then the others are
 *    stopped and the run does not start
 * 5. each listed tool becomes a Tool; one that cannot (a bad schema, a name taken, a tool that
 *    only runs as a task) is left out with a warning
 */
import type { Tool } from '../tools/tool.js';
import { errorMessage } from '../util/errors.js';
import { expandServerConfig } from './expand-env.js';
import type { McpConfigSet } from './load-mcp-config.js';
import { McpConnection, type McpConnectOptions } from './mcp-connection.js';
import type { McpPolicy } from './mcp-policy.js';
import { createMcpTool } from './mcp-tool.js';

export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 30;
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 600;

export interface McpServerStatus {
  name: string;
  status: 'connected' | 'failed';
}

export interface StartMcpServersOptions {
  config: McpConfigSet;
  policy: McpPolicy;
  /** Where stdio servers run. */
  projectDir: string;
  parentEnv: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
  clientVersion?: string;
  /** Per signal step when a stdio server is stopped. */
  graceMs?: number;
  /** The OS sandbox stdio servers run in. */
  sandbox?: McpConnectOptions['sandbox'];
}

export interface McpServers {
  tools: Tool[];
  servers: McpServerStatus[];
  warnings: string[];
  /** Process ids (and process group ids) of the stdio servers that started. */
  pids(): number[];
  /** Stops every server; `force` (a cancelled run) kills stdio servers without waiting. */
  close(options?: { force?: boolean }): Promise<void>;
}

/** A server the policy requires could not be started: the run stops with this message. */
export class McpStartupError extends Error {
  override readonly name = 'McpStartupError';
}

export async function startMcpServers(options: StartMcpServersOptions): Promise<McpServers> {
  const { config, policy } = options;
  const configured = new Set([...config.servers, ...config.broken].map((entry) => entry.name));
  const missing = policy.required.filter((name) => !configured.has(name));
  if (missing.length > 0) {
    throw new McpStartupError(
      `the policy requires MCP server${missing.length > 1 ? 's' : ''} ${missing.map((name) => `"${name}"`).join(', ')}, which no .mcp.json, policy mcp.servers or --mcp-config configures`,
    );
  }
  const warnings = [...config.warnings];
  const failures = new Map<string, string>(
    config.broken.map((entry) => [entry.name, entry.message]),
  );
  const startupTimeoutMs =
    (policy.startupTimeoutSeconds ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1_000;
  const attempts = await Promise.all(
    config.servers.map(async (entry) => {
      try {
        const expanded = expandServerConfig(entry.config, {
          allow: policy.allowEnv,
          env: options.parentEnv,
        });
        return await McpConnection.open({
          name: entry.name,
          config: expanded,
          cwd: options.projectDir,
          parentEnv: options.parentEnv,
          startupTimeoutMs,
          ...(options.signal && { signal: options.signal }),
          ...(options.clientVersion && { clientVersion: options.clientVersion }),
          ...(options.graceMs !== undefined && { graceMs: options.graceMs }),
          ...(options.sandbox && { sandbox: options.sandbox }),
          acceptElicitationDefaults: (policy.acceptElicitationDefaults ?? []).includes(entry.name),
        });
      } catch (error) {
        const message = errorMessage(error);
        failures.set(
          entry.name,
          message.includes(`"${entry.name}"`)
            ? message
            : `MCP server "${entry.name}" (${entry.source}): ${message}`,
        );
        return undefined;
      }
    }),
  );
  const connections = attempts.filter((connection) => connection !== undefined);
  const closeAll = async (force?: boolean) => {
    await Promise.all(connections.map((connection) => connection.close({ force })));
  };

  const requiredFailures = policy.required.filter((name) => failures.has(name));
  if (requiredFailures.length > 0) {
    await closeAll(true);
    throw new McpStartupError(
      requiredFailures
        .map((name) => `required ${failures.get(name) ?? `MCP server "${name}" failed`}`)
        .join('\n'),
    );
  }
  for (const message of failures.values()) {
    warnings.push(`${message}; the run goes on without its tools`);
  }

  const toolTimeoutMs = (policy.toolTimeoutSeconds ?? DEFAULT_TOOL_TIMEOUT_SECONDS) * 1_000;
  const tools: Tool[] = [];
  const taken = new Set<string>();
  for (const connection of connections) {
    const trusted = policy.trusted.includes(connection.name);
    for (const info of connection.tools) {
      const label = `MCP tool "${info.name}" of server "${connection.name}"`;
      if (info.execution?.taskSupport === 'required') {
        warnings.push(`${label} runs only as a task, which ci-agent does not support; left out`);
        continue;
      }
      let tool: Tool;
      try {
        tool = createMcpTool({
          server: connection.name,
          info,
          caller: connection,
          trusted,
          timeoutMs: toolTimeoutMs,
        });
      } catch (error) {
        warnings.push(`${label} has an unusable input schema (${errorMessage(error)}); left out`);
        continue;
      }
      if (taken.has(tool.name)) {
        warnings.push(`${label} is named ${tool.name} like another tool of its server; left out`);
        continue;
      }
      taken.add(tool.name);
      tools.push(tool);
    }
  }

  const connected = new Set(connections.map((connection) => connection.name));
  return {
    tools,
    servers: [...configured].map((name) => ({
      name,
      status: connected.has(name) ? 'connected' : 'failed',
    })),
    warnings,
    pids: () =>
      connections.flatMap((connection) => (connection.pid === undefined ? [] : [connection.pid])),
    close: (closeOptions) => closeAll(closeOptions?.force),
  };
}
