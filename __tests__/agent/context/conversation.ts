/**
 * Builds conversations the way the loop records them: the task, then per turn one assistant
 * message with its tool_use blocks and one user message with their results in the same order.
 */
import type { ContextManager } from '../../../src/agent/context/context-manager.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../../../src/model/types.js';

export interface CallSpec {
  id: string;
  name: string;
  input: Record<string, unknown>;
  result: string;
  isError?: boolean;
}

export const call = (
  id: string,
  name: string,
  input: Record<string, unknown>,
  result: string,
  isError = false,
): CallSpec => ({ id, name, input, result, isError });

export const read = (id: string, path: string, result: string, extra: object = {}) =>
  call(id, 'Read', { file_path: path, ...extra }, result);

export const edit = (id: string, path: string, isError = false) =>
  call(
    id,
    'Edit',
    { file_path: path, old_string: 'a', new_string: 'b' },
    isError
      ? '<tool_use_error>String to replace not found</tool_use_error>'
      : `The file ${path} has been updated successfully.`,
    isError,
  );

/** One turn per entry: an assistant message calling the tools, then their results. */
export function conversation(...turns: CallSpec[][]): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'fix the build' }];
  for (const calls of turns) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Working on it.' },
        ...calls.map((spec): ToolUseBlock => ({
          type: 'tool_use',
          id: spec.id,
          name: spec.name,
          input: spec.input,
        })),
      ],
    });
    messages.push({
      role: 'user',
      content: calls.map((spec): ToolResultBlock => ({
        type: 'tool_result',
        tool_use_id: spec.id,
        content: spec.result,
        ...(spec.isError ? { is_error: true } : {}),
      })),
    });
  }
  return messages;
}

/** The result block sent for a tool_use id, from a list of messages. */
export function resultOf(messages: readonly Message[], id: string): ToolResultBlock | undefined {
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const block of message.content)
      if (block.type === 'tool_result' && block.tool_use_id === id) return block;
  }
  return undefined;
}

export const big = (label: string, lines = 200) =>
  Array.from({ length: lines }, (_, index) => `${index + 1}\t${label} line ${index + 1}`).join(
    '\n',
  );

/** The manager, with `prepareMessages` for the tests that look only at the messages it sends. */
export function withPrepareMessages(manager: ContextManager) {
  return {
    ...manager,
    prepareMessages: async (messages: readonly Message[], signal?: AbortSignal) =>
      (await manager.prepare(messages, signal)).messages,
  };
}
