/**
 * Which MCP servers a run has, from three places:
 *
 * 1. `.mcp.json` in the project directory (on pull requests the action has already put back the
 *    base branch's copy, so it is trusted configuration);
 * 2. the policy file's `mcp.servers`;
 * 3. each `--mcp-config` value: JSON text when it starts with `{`, else a file path.
 *
 * A later source replaces a server of the same name from an earlier one, with a warning.
 * `--strict-mcp-config` keeps only the third. A file that cannot be read or parsed is an error for
 * the operator; a single bad server entry only makes that server fail to start.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { errorMessage } from '../util/errors.js';
import type { McpPolicy } from './mcp-policy.js';
import { SERVER_NAME } from './mcp-policy.js';
import type { McpServerEntry } from './server-config.js';
import { KNOWN_SERVER_KEYS, lenientServerSchema, toServerConfig } from './server-config.js';

export const PROJECT_MCP_FILE = '.mcp.json';

/** Reads a file as UTF-8; undefined when it does not exist. */
export type ReadTextFile = (absolutePath: string) => Promise<string | undefined>;

export interface LoadMcpConfigOptions {
  projectDir: string;
  /** Where relative `--mcp-config` paths resolve; default: projectDir. */
  cwd?: string;
  /** `--mcp-config` values, in order. */
  configArgs?: readonly string[];
  /** `--strict-mcp-config`: only the `--mcp-config` servers. */
  strict?: boolean;
  policy: McpPolicy;
  readFile?: ReadTextFile;
}

/** A server whose entry cannot be used: it counts as failing to start, with this message. */
export interface BrokenServerEntry {
  name: string;
  source: string;
  message: string;
}

export interface McpConfigSet {
  servers: McpServerEntry[];
  broken: BrokenServerEntry[];
  warnings: string[];
}

/** A configuration file the run cannot use; the message names the file and what is wrong. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

export async function loadMcpConfig(options: LoadMcpConfigOptions): Promise<McpConfigSet> {
  const read = options.readFile ?? readIfPresent;
  const cwd = options.cwd ?? options.projectDir;
  const collected: McpConfigSet = { servers: [], broken: [], warnings: [] };
  const add = (entry: McpServerEntry | BrokenServerEntry) => {
    const earlier = [...collected.servers, ...collected.broken].find((e) => e.name === entry.name);
    if (earlier) {
      collected.warnings.push(
        `MCP server "${entry.name}" from ${entry.source} replaces the one from ${earlier.source}`,
      );
      collected.servers = collected.servers.filter((e) => e.name !== entry.name);
      collected.broken = collected.broken.filter((e) => e.name !== entry.name);
    }
    if ('config' in entry) collected.servers.push(entry);
    else collected.broken.push(entry);
  };
  const addDocument = (text: string, source: string) => {
    const parsed = parseMcpConfigDocument(text, source);
    collected.warnings.push(...parsed.warnings);
    for (const entry of [...parsed.servers, ...parsed.broken]) add(entry);
  };

  if (!options.strict) {
    const projectFile = await read(resolve(options.projectDir, PROJECT_MCP_FILE));
    if (projectFile !== undefined) addDocument(projectFile, PROJECT_MCP_FILE);
    const policySource = options.policy.source ?? 'the policy file';
    for (const [name, config] of Object.entries(options.policy.servers)) {
      add({ name, config, source: policySource });
    }
  }
  for (const value of options.configArgs ?? []) {
    if (isInlineMcpConfig(value)) {
      addDocument(value, '--mcp-config');
      continue;
    }
    const path = resolve(cwd, value);
    const text = await read(path);
    if (text === undefined) throw new McpConfigError(`--mcp-config ${value}: no such file`);
    addDocument(text, path);
  }
  return collected;
}

/** A `--mcp-config` value that is the JSON itself, not the path of a file that holds it. */
export function isInlineMcpConfig(value: string): boolean {
  return value.trimStart().startsWith('{');
}

/** `{"mcpServers": {name: server}}` → entries; McpConfigError when the document is unusable. */
export function parseMcpConfigDocument(text: string, source: string): McpConfigSet {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${source}: not valid JSON (${errorMessage(error)})`);
  }
  if (!isPlainObject(document) || !isPlainObject(document.mcpServers)) {
    throw new McpConfigError(
      `${source}: expected {"mcpServers": {"<name>": {"command": …} or {"type": "http", "url": …}}}`,
    );
  }
  const result: McpConfigSet = { servers: [], broken: [], warnings: [] };
  for (const key of Object.keys(document).filter((key) => key !== 'mcpServers')) {
    result.warnings.push(`${source}: ignored unknown key "${key}"`);
  }
  for (const [written, value] of Object.entries(document.mcpServers)) {
    const name = serverNameOf(written);
    if (name !== written) {
      result.warnings.push(
        `${source}: MCP server "${written}" is called "${name}" in tool names and rules`,
      );
    }
    if (isPlainObject(value)) {
      for (const key of Object.keys(value).filter((key) => !KNOWN_SERVER_KEYS.includes(key))) {
        result.warnings.push(`${source}: mcpServers.${written}: ignored unknown key "${key}"`);
      }
    }
    const parsed = lenientServerSchema.safeParse(value);
    if (parsed.success) {
      result.servers.push({ name, config: toServerConfig(parsed.data), source });
      continue;
    }
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    result.broken.push({
      name,
      source,
      message: `${source}: mcpServers.${written}: ${problems.join('; ')}`,
    });
  }
  return result;
}

/**
 * The name tools and rules use (`mcp__<name>__<tool>`): characters outside the API's tool-name
 * alphabet become `_`, and runs of `_` shrink to one, because `__` separates server from tool.
 */
export function serverNameOf(written: string): string {
  if (SERVER_NAME.test(written) && !written.includes('__')) return written;
  const cleaned = written.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{2,}/g, '_');
  return cleaned === '' ? '_' : cleaned;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new McpConfigError(`${path}: cannot be read (${errorMessage(error)})`);
  }
}
