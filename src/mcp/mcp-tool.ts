/**
 * One MCP tool as a `Tool` the registry holds, built directly (not through defineTool): its
 * input schema is the server's JSON Schema, not a zod object.
 *
 * - name `mcp__<server>__<tool>`, within the API's `^[a-zA-Z0-9_-]{1,64}$`
 * - input validated with ajv against the server's schema, which the model also sees
 * - effects: an MCP tool may do anything, so it is `other` access, unsafe for concurrency and
 *   not read-only, unless the policy trusts its server and the tool says `readOnlyHint: true`
 * - a result with `isError` is an `is_error` tool_result; a failed transport throws, which the
 *   pipeline turns into `Error: …`
 * - what the server asked for during the call, and what it was answered, is kept with the call:
 *   `elicitations` in the structured result (the log's `tool_use_result`, PostToolUse's
 *   `tool_response`), or a sentence added to the error when the call fails
 */
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool, ToolCallGenerator, ToolContext } from '../tools/tool.js';
import type { ElicitationRecord } from './elicitation.js';
import { describeElicitation } from './elicitation.js';
import { compileInputSchema } from './input-schema.js';
import type { McpCallOptions, McpToolInfo } from './mcp-connection.js';
import { McpCallError } from './mcp-connection.js';
import { toToolResultBlock } from './tool-result.js';

/** The part of a connection a tool uses. */
export interface McpToolCaller {
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult>;
}

export interface McpToolOptions {
  server: string;
  info: McpToolInfo;
  caller: McpToolCaller;
  /** Whether the policy trusts the server's annotations. */
  trusted: boolean;
  timeoutMs: number;
}

const MAX_NAME = 64;
/** Claude Code's cap on an MCP tool's description. */
const MAX_DESCRIPTION = 2_048;

/** `mcp__<server>__<tool>` with characters outside the API's alphabet as `_`; long names hashed. */
export function mcpToolName(server: string, tool: string): string {
  const clean = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');
  const name = `mcp__${clean(server)}__${clean(tool)}`;
  if (name.length <= MAX_NAME) return name;
  // Cut names must stay distinct: the tail is a hash of the whole original.
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/** The tool; throws when its input schema is not usable JSON Schema. */
export function createMcpTool(options: McpToolOptions): Tool {
  const { info, server } = options;
  const { inputSchema, jsonSchema } = compileInputSchema(info.inputSchema);
  const name = mcpToolName(server, info.name);
  const readOnly = options.trusted && info.annotations?.readOnlyHint === true;
  const description = (
    info.description ??
    info.title ??
    `The ${info.name} tool of ${server}`
  ).slice(0, MAX_DESCRIPTION);
  const display = `${server} - ${info.annotations?.title ?? info.title ?? info.name} (MCP)`;
  return {
    name,
    aliases: [],
    description,
    inputSchema,
    internalInputSchema: inputSchema,
    hiddenKeys: [],
    userFacingName: () => display,
    isConcurrencySafe: () => readOnly,
    isReadOnly: () => readOnly,
    requiresUserInteraction: () => false,
    isEnabled: () => true,
    validateInput: () => Promise.resolve({ result: true }),
    checkPermissions: () => ({ access: readOnly ? 'read' : 'other' }),
    call: (input, context) => callMcpTool(options, input as Record<string, unknown>, context),
    mapToolResultToToolResultBlockParam: (output, toolUseId) =>
      toToolResultBlock(output as CallToolResult, toolUseId),
    jsonSchema: () => jsonSchema,
  };
}

/** The call, with the server's progress notifications passed on as they come. */
async function* callMcpTool(
  options: McpToolOptions,
  args: Record<string, unknown>,
  context: ToolContext,
): ToolCallGenerator<CallToolResult> {
  const progress: string[] = [];
  const elicitations: ElicitationRecord[] = [];
  let wake: (() => void) | undefined;
  const pending = options.caller.callTool(options.info.name, args, {
    signal: context.signal,
    timeoutMs: options.timeoutMs,
    onProgress: (message) => {
      progress.push(message);
      wake?.();
    },
    onElicitation: (record) => elicitations.push(record),
  });
  let settled = false;
  const done = pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  // Progress that arrived just before the result is still passed on.
  for (;;) {
    const next = progress.shift();
    if (next !== undefined) {
      yield { type: 'progress', message: next };
      continue;
    }
    if (settled) break;
    await Promise.race([done, new Promise<void>((resolve) => (wake = resolve))]);
    wake = undefined;
  }
  let result: CallToolResult;
  try {
    result = await pending;
  } catch (error) {
    // A cancelled call keeps its own error: the pipeline tells cancellation by it.
    if (elicitations.length === 0 || context.signal.aborted || !(error instanceof Error)) {
      throw error;
    }
    const asked = elicitations.map(describeElicitation).join('; ');
    throw new McpCallError(`${error.message} (during the call: ${asked})`);
  }
  const { _meta: _ignored, ...data } = result;
  return { data: elicitations.length === 0 ? data : { ...data, elicitations } };
}
