/**
 * What a session needs from MCP, in one call: read the configuration (load-mcp-config.ts), start
 * the servers (start-mcp-servers.ts), and tell the caller what started and what did not, before
 * the first request, so warnings are printed and the init line lists the servers.
 *
 * The MCP SDK (and its JSON Schema validator, ~0.2 MiB) loads only when there is a server to
 * start: most runs have none, and every run pays for what loads before its first request.
 */
import type { McpPolicy } from './mcp-policy.js';
import { EMPTY_MCP_POLICY } from './mcp-policy.js';
import { loadMcpConfig } from './load-mcp-config.js';
import type { McpServers, McpServerStatus, StartMcpServersOptions } from './start-mcp-servers.js';

export interface SessionMcpOptions {
  /** The policy file's `mcp` section. */
  policy?: McpPolicy;
  /** `--mcp-config` values, in order. */
  configArgs?: readonly string[];
  /** `--strict-mcp-config`. */
  strict?: boolean;
  /** Where relative `--mcp-config` paths resolve; default: the project directory. */
  cwd?: string;
  /** Called once the servers are up (or failed), before the run starts. */
  onStart?: (report: { servers: McpServerStatus[]; warnings: string[] }) => void;
  /** Per signal step when a stdio server is stopped; default 1 s. */
  graceMs?: number;
}

export interface SessionMcpContext {
  projectDir: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
  clientVersion?: string;
  /** The OS sandbox stdio servers run in. */
  sandbox?: StartMcpServersOptions['sandbox'];
  /** Servers start once this settles (the workspace is ready); a rejection stops them starting. */
  ready?: () => Promise<void>;
}

export async function openSessionMcp(
  options: SessionMcpOptions = {},
  context: SessionMcpContext,
): Promise<McpServers> {
  const policy = options.policy ?? EMPTY_MCP_POLICY;
  const config = await loadMcpConfig({
    projectDir: context.projectDir,
    cwd: options.cwd ?? context.projectDir,
    configArgs: options.configArgs ?? [],
    strict: options.strict ?? false,
    policy,
  });
  if (config.servers.length === 0 && config.broken.length === 0 && policy.required.length === 0) {
    options.onStart?.({ servers: [], warnings: config.warnings });
    return noServers(config.warnings);
  }
  const [{ startMcpServers }] = await Promise.all([
    import('./start-mcp-servers.js'),
    context.ready?.(),
  ]);
  const servers = await startMcpServers({
    config,
    policy,
    projectDir: context.projectDir,
    parentEnv: context.env,
    ...(context.signal && { signal: context.signal }),
    ...(context.clientVersion && { clientVersion: context.clientVersion }),
    ...(options.graceMs !== undefined && { graceMs: options.graceMs }),
    ...(context.sandbox && { sandbox: context.sandbox }),
  });
  options.onStart?.({ servers: servers.servers, warnings: servers.warnings });
  return servers;
}

function noServers(warnings: string[]): McpServers {
  return {
    tools: [],
    servers: [],
    warnings,
    pids: () => [],
    close: () => Promise.resolve(),
  };
}
