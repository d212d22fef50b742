/**
 * The `mcp` section of the ci-agent policy file (docs/POLICY.md): servers the repository adds,
 * which servers it trusts and which it cannot run without, the environment `${VAR}` in any
 * server's configuration may read, and whose questions (elicitation) its defaults may answer.
 */
import * as z from 'zod';
import type { McpServerConfig } from './server-config.js';
import { strictServerSchema, toServerConfig } from './server-config.js';

export interface McpPolicy {
  /** Servers the policy file configures, as written (before `${VAR}` expansion). */
  servers: Readonly<Record<string, McpServerConfig>>;
  /** The file `servers` came from, for messages. */
  source?: string;
  /** Servers whose tool annotations (`readOnlyHint`) are believed. */
  trusted: readonly string[];
  /** Servers that must start, or the run stops. */
  required: readonly string[];
  /** Environment variable names `${VAR}` in server configurations may read. */
  allowEnv: readonly string[];
  /**
   * Servers whose elicitation requests are accepted with the requested schema's defaults when
   * every required field has one; any other request is declined (elicitation.ts).
   */
  acceptElicitationDefaults?: readonly string[];
  startupTimeoutSeconds?: number;
  toolTimeoutSeconds?: number;
}

export const EMPTY_MCP_POLICY: McpPolicy = {
  servers: {},
  trusted: [],
  required: [],
  allowEnv: [],
};

/** Server names as rules and tool names use them: `mcp__<name>__<tool>`. */
export const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const serverName = z
  .string({ error: 'expected a server name' })
  .regex(SERVER_NAME, 'expected a server name of letters, digits, "_" and "-"')
  .refine(
    (name) => !name.includes('__'),
    'expected a server name without "__" (it separates server and tool in mcp__server__tool)',
  );

const nameList = z.array(serverName, { error: 'expected a list of server names' });

const seconds = z.number({ error: 'expected a positive number of seconds' }).positive();

export const mcpPolicySchema = z.strictObject(
  {
    servers: z
      .record(serverName, strictServerSchema, {
        // A bad name is reported by its own rule; only a value that is not a mapping gets this.
        error: (issue) =>
          issue.code === 'invalid_key'
            ? 'expected a server name of letters, digits, "_" and "-", without "__" (which separates server and tool in mcp__server__tool)'
            : 'expected a mapping of server name to server',
      })
      .optional(),
    trusted: nameList.optional(),
    required: nameList.optional(),
    acceptElicitationDefaults: nameList.optional(),
    allowEnv: z
      .array(
        z
          .string({ error: 'expected an environment variable name' })
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'),
        { error: 'expected a list of environment variable names' },
      )
      .optional(),
    startupTimeoutSeconds: seconds.optional(),
    toolTimeoutSeconds: seconds.optional(),
  },
  {
    error:
      'expected a mapping with servers, trusted, required, acceptElicitationDefaults, allowEnv, startupTimeoutSeconds, toolTimeoutSeconds',
  },
);

export type McpPolicyContent = z.infer<typeof mcpPolicySchema>;

/** The parsed section as the session uses it; `source` names the policy file. */
export function normalizeMcpPolicy(
  content: McpPolicyContent | undefined,
  source: string,
): McpPolicy {
  if (content === undefined) return EMPTY_MCP_POLICY;
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(content.servers ?? {})) {
    servers[name] = toServerConfig(entry);
  }
  return {
    servers,
    source,
    trusted: content.trusted ?? [],
    required: content.required ?? [],
    allowEnv: content.allowEnv ?? [],
    acceptElicitationDefaults: content.acceptElicitationDefaults ?? [],
    ...(content.startupTimeoutSeconds === undefined
      ? {}
      : { startupTimeoutSeconds: content.startupTimeoutSeconds }),
    ...(content.toolTimeoutSeconds === undefined
      ? {}
      : { toolTimeoutSeconds: content.toolTimeoutSeconds }),
  };
}
