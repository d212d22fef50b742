/**
 * One MCP server as configured: the `mcpServers` entries of Claude Code's `.mcp.json` (and of
 * `--mcp-config`), which the policy file's `mcp.servers` repeats in the same shape.
 *
 *   stdio:          {type?: "stdio", command, args?, env?}
 *   http and sse:   {type: "http" | "sse", url, headers?}
 *
 * Strings may hold `${VAR}` and `${VAR:-default}`; they are expanded when the server starts
 * (expand-env.ts), so the values here are as written.
 */
import * as z from 'zod';

export type McpServerConfig =
  | {
      type: 'stdio';
      command: string;
      args: readonly string[];
      env: Readonly<Record<string, string>>;
    }
  | { type: 'http' | 'sse'; url: string; headers: Readonly<Record<string, string>> };

/** A server with the place it was configured, for messages. */
export interface McpServerEntry {
  name: string;
  config: McpServerConfig;
  /** `.mcp.json`, `--mcp-config`, or the policy file's path. */
  source: string;
}

const stringMap = (what: string) =>
  z.record(z.string(), z.string({ error: `expected a string ${what} value` }), {
    error: `expected a mapping of ${what} names to strings`,
  });

export const serverFields = {
  type: z.enum(['stdio', 'http', 'sse'], { error: 'expected "stdio", "http" or "sse"' }).optional(),
  command: z
    .string({ error: 'expected the command that starts the server' })
    .min(1, 'expected the command that starts the server')
    .optional(),
  args: z
    .array(z.string({ error: 'expected a string argument' }), {
      error: 'expected a list of string arguments',
    })
    .optional(),
  env: stringMap('environment variable').optional(),
  url: z
    .string({ error: 'expected the server URL (http:// or https://)' })
    .min(1, 'expected the server URL (http:// or https://)')
    .optional(),
  headers: stringMap('header').optional(),
};

type ServerFields = z.infer<z.ZodObject<typeof serverFields>>;

/** The fields that belong to each kind; the others are mistakes worth naming. */
const STDIO_ONLY = ['command', 'args', 'env'] as const;
const REMOTE_ONLY = ['url', 'headers'] as const;

/** Cross-field rules: the one place both the strict and the lenient schema share. */
export function checkServerFields(entry: ServerFields, context: z.RefinementCtx): void {
  const add = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message, params: { complete: true } });
  const type = entry.type ?? 'stdio';
  if (type === 'stdio') {
    if (entry.command === undefined) {
      if (entry.url !== undefined && entry.type === undefined) {
        add('type', 'a server with a url needs type: "http" (or "sse")');
      } else {
        add('command', 'missing; a stdio server needs the command that starts it');
      }
    }
    for (const key of REMOTE_ONLY) {
      if (entry[key] !== undefined && entry.command !== undefined)
        add(key, `"${key}" is for http and sse servers; this one runs a command`);
    }
    return;
  }
  if (entry.url === undefined) add('url', `missing; an ${type} server needs its url`);
  for (const key of STDIO_ONLY) {
    if (entry[key] !== undefined) add(key, `"${key}" is for stdio servers; this one has a url`);
  }
}

/** The policy file's form: our file, so unknown keys are errors. */
export const strictServerSchema = z
  .strictObject(serverFields, {
    error: 'expected a server such as {command: npx, args: [...]} or {type: http, url: ...}',
  })
  .superRefine(checkServerFields);

/** `.mcp.json`'s form: Claude Code's file, so unknown keys are left to the caller to warn about. */
export const lenientServerSchema = z
  .object(serverFields, {
    error:
      'expected a server such as {"command": "npx", "args": [...]} or {"type": "http", "url": ...}',
  })
  .superRefine(checkServerFields);

export function toServerConfig(entry: ServerFields): McpServerConfig {
  const type = entry.type ?? 'stdio';
  if (type === 'stdio') {
    return { type, command: entry.command ?? '', args: entry.args ?? [], env: entry.env ?? {} };
  }
  return { type, url: entry.url ?? '', headers: entry.headers ?? {} };
}

export const KNOWN_SERVER_KEYS: readonly string[] = Object.keys(serverFields);
