/**
 * What the conversation says about its tool calls, derived from the messages alone: each
 * tool_use with its position (turn and order), whether its result was an error, and for the file
 * tools the file it touched. Context management decides from this index, so the loop keeps no
 * extra bookkeeping and a decision made once is made the same way on every later request.
 */
import { expandPath } from '../../tools/paths.js';
import type { Message, ToolResultBlock } from '../../model/types.js';

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  /** 0-based index of the assistant message (the turn) that made the call. */
  turn: number;
  /** Position among all calls of the conversation: execution order for calls on one file. */
  order: number;
  /** Undefined while the result has not arrived. */
  isError?: boolean;
}

/**
 * Tools whose input names one file, the field that names it, and what they do to it. An
 * own-property lookup: a model-supplied name such as `constructor` finds nothing.
 */
const FILE_TOOLS: Readonly<Record<string, { kind: 'read' | 'write'; field: string }>> = {
  Read: { kind: 'read', field: 'file_path' },
  Write: { kind: 'write', field: 'file_path' },
  Edit: { kind: 'write', field: 'file_path' },
  MultiEdit: { kind: 'write', field: 'file_path' },
  NotebookEdit: { kind: 'write', field: 'notebook_path' },
};

export type FileAccess =
  { kind: 'read'; path: string; offset?: number; limit?: number } | { kind: 'write'; path: string };

export function indexToolCalls(messages: readonly Message[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  let turn = -1;
  for (const message of messages) {
    if (message.role === 'assistant') {
      turn++;
      for (const block of message.content) {
        if (block.type !== 'tool_use') continue;
        calls.set(block.id, {
          id: block.id,
          name: block.name,
          input: block.input,
          turn,
          order: calls.size,
        });
      }
    } else if (typeof message.content !== 'string') {
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const call = calls.get(block.tool_use_id);
        if (call) call.isError = block.is_error === true;
      }
    }
  }
  return calls;
}

/** The file a call reads or writes, resolved against the working directory; undefined for others. */
export function fileAccessOf(call: ToolCall, cwd: string): FileAccess | undefined {
  const tool = Object.hasOwn(FILE_TOOLS, call.name) ? FILE_TOOLS[call.name] : undefined;
  if (tool === undefined || !isRecord(call.input)) return undefined;
  const { kind, field } = tool;
  const filePath = call.input[field];
  if (typeof filePath !== 'string' || filePath === '') return undefined;
  const path = expandPath(filePath, cwd);
  if (kind === 'write') return { kind, path };
  const offset = numberField(call.input, 'offset');
  const limit = numberField(call.input, 'limit');
  return {
    kind,
    path,
    ...(offset === undefined ? {} : { offset }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/** Characters of text in a result (an image counts its base64 data). */
export function resultChars(result: ToolResultBlock): number {
  if (typeof result.content === 'string') return result.content.length;
  return result.content.reduce(
    (total, block) =>
      total + (block.type === 'text' ? block.text.length : block.source.data.length),
    0,
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberField(record: Record<string, unknown>, name: string): number | undefined {
  const value = record[name];
  return typeof value === 'number' ? value : undefined;
}
