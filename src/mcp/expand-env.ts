/**
 * `${VAR}` and `${VAR:-default}` in a server's configuration, as Claude Code expands them in
 * `.mcp.json` (command, args, env values, url, header values). Only the variables the policy
 * allows (`mcp.allowEnv`) are read: a configuration must not be able to carry an arbitrary secret
 * of the runner into a server's arguments or to a remote URL. A bare `$VAR` is left as written.
 */
import type { McpServerConfig } from './server-config.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A reference that cannot be filled; the message says which and how to fix it. */
export class McpEnvError extends Error {
  override readonly name = 'McpEnvError';
}

export interface AllowedEnv {
  /** Names `${…}` may read; compared exactly (environment names are case-sensitive). */
  allow: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

/** Expands one string; `where` names the field for the error message. */
export function expandString(text: string, allowed: AllowedEnv, where: string): string {
  const problems: string[] = [];
  const result = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const value = allowed.allow.includes(name) ? allowed.env[name] : undefined;
    // As in the shell, `:-` also replaces an empty value.
    if (value !== undefined && (value !== '' || fallback === undefined)) return value;
    if (fallback !== undefined) return fallback;
    problems.push(missingMessage(name, allowed));
    return whole;
  });
  if (problems.length > 0) throw new McpEnvError(`${where}: ${problems.join('; ')}`);
  return result;
}

function missingMessage(name: string, allowed: AllowedEnv): string {
  if (allowed.allow.includes(name)) {
    return `\${${name}} is not set (set it, or write \${${name}:-default})`;
  }
  const isSet = allowed.env[name] !== undefined;
  return `\${${name}} is ${isSet ? 'set but ' : ''}not in the policy's mcp.allowEnv, so it is not read (add ${name} to mcp.allowEnv in the policy file)`;
}

/** The configuration with every reference filled; McpEnvError lists every one that cannot be. */
export function expandServerConfig(config: McpServerConfig, allowed: AllowedEnv): McpServerConfig {
  const problems: string[] = [];
  const expand = (text: string, where: string): string => {
    try {
      return expandString(text, allowed, where);
    } catch (error) {
      if (!(error instanceof McpEnvError)) throw error;
      problems.push(error.message);
      return text;
    }
  };
  const expandMap = (map: Readonly<Record<string, string>>, field: string) =>
    Object.fromEntries(
      Object.entries(map).map(([key, value]) => [key, expand(value, `${field}.${key}`)]),
    );
  const expanded: McpServerConfig =
    config.type === 'stdio'
      ? {
          type: 'stdio',
          command: expand(config.command, 'command'),
          args: config.args.map((arg, index) => expand(arg, `args[${index}]`)),
          env: expandMap(config.env, 'env'),
        }
      : {
          type: config.type,
          url: expand(config.url, 'url'),
          headers: expandMap(config.headers, 'headers'),
        };
  if (problems.length > 0) throw new McpEnvError(problems.join('; '));
  return expanded;
}
