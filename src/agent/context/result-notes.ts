/**
 * The short texts that stand in for old tool results. Each tells the model what it no longer
 * sees and how to get it back, so a replaced result is never a silent gap.
 */
import type { ToolResultBlock } from '../../model/types.js';
import { isRecord, resultChars } from './tool-calls.js';
import type { ToolCall } from './tool-calls.js';

/** Content replacement: a read that a later call made stale. */
export function supersededNote(read: ToolCall, path: string, by: ToolCall): string {
  const why =
    by.name === read.name
      ? `the same lines were read again later (${by.id})`
      : `the file was changed later by ${by.name} (${by.id})`;
  return `[Earlier read of ${path} removed from the context: ${why}. Read the file again if you need its current content.]`;
}

/** An unchanged re-read: the earlier result it repeats is still in the context, whole. */
export function unchangedNote(path: string, anchor: ToolCall): string {
  return `[File unchanged since the earlier read of ${path} (${anchor.id}): the lines read here are the ones that result shows. Refer to it rather than reading again while the file is unchanged.]`;
}

/** Microcompact: an old, long result reduced to one line. */
export function shortenedNote(call: ToolCall, result: ToolResultBlock): string {
  const chars = resultChars(result);
  const text = textOf(result);
  const lines = text === '' ? 0 : text.split('\n').length;
  const first = text.split('\n', 1)[0]?.trim().slice(0, 100) ?? '';
  const start = first === '' ? '' : `, starting "${first}"`;
  return `[Old tool result shortened to save context: ${call.name}(${describeInput(call.input)}) returned ${chars} characters in ${lines} lines${start}. Run the call again if you need it.]`;
}

/** The one input field that identifies a call best, else the input as short JSON. */
export function describeInput(input: unknown): string {
  if (isRecord(input)) {
    for (const field of ['file_path', 'command', 'pattern', 'path', 'url']) {
      const value = input[field];
      if (typeof value === 'string') return clip(value, 120);
    }
  }
  return clip(JSON.stringify(input) ?? '', 120);
}

function textOf(result: ToolResultBlock): string {
  if (typeof result.content === 'string') return result.content;
  return result.content.map((block) => (block.type === 'text' ? block.text : '[image]')).join('\n');
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`;
}
