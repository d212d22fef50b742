/**
 * The MCP server names `.mcp.json` configures, as tools and rules name them, for the loader's
 * warning about rules that name a server nothing configures. The MCP loader
 * (src/mcp/load-mcp-config.ts) reads the file for real and reports what is wrong with it.
 */
import { resolve } from 'node:path';
import { PROJECT_MCP_FILE, serverNameOf } from '../mcp/load-mcp-config.js';
import type { ReadFile } from './types.js';

/**
 * The server names `.mcp.json` gives tools and rules; undefined when it cannot be read as such
 * (the MCP loader reports that), so no rule is warned about on a guess.
 */
export async function readMcpServerNames(
  read: ReadFile,
  projectDir: string,
): Promise<ReadonlySet<string> | undefined> {
  let text: string | undefined;
  try {
    text = await read(resolve(projectDir, PROJECT_MCP_FILE));
  } catch {
    return undefined;
  }
  if (text === undefined) return new Set();
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  const servers = isObject(document) ? document.mcpServers : undefined;
  if (!isObject(servers)) return undefined;
  return new Set(Object.keys(servers).map(serverNameOf));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
