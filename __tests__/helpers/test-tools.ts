/**
 * Real tool definitions for tests of the execution core, whose calls the test controls: each
 * call waits on a gate the test opens, and records when it started and finished.
 */
import { z } from 'zod';
import { defineTool } from '../../src/tools/tool.js';
import type { Tool } from '../../src/tools/tool.js';
import type { ToolUseBlock } from '../../src/model/types.js';

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export interface CallLog {
  events: string[];
  /** Opens the call with this id (or a name) so it can finish. */
  release(id: string): void;
  /** Resolves when the call with this id has started. */
  started(id: string): Promise<void>;
  running: Set<string>;
  maxRunning: number;
}

export function makeCallLog(): CallLog {
  const gates = new Map<string, Deferred>();
  const starts = new Map<string, Deferred>();
  const gate = (id: string) => {
    let entry = gates.get(id);
    if (!entry) gates.set(id, (entry = deferred()));
    return entry;
  };
  const start = (id: string) => {
    let entry = starts.get(id);
    if (!entry) starts.set(id, (entry = deferred()));
    return entry;
  };
  const log: CallLog & { gate: typeof gate; start: typeof start } = {
    events: [],
    running: new Set(),
    maxRunning: 0,
    release: (id) => gate(id).resolve(),
    started: (id) => start(id).promise,
    gate,
    start,
  };
  return log;
}

const inputSchema = z.object({
  id: z.string().describe('call id used by the test'),
  fail: z.boolean().optional().describe('return an error result'),
  auto: z.boolean().optional().describe('finish without waiting for release'),
});

/** A controllable tool. `safe` decides concurrency safety and read-only-ness. */
export function controlledTool(name: string, safe: boolean, log: CallLog): Tool {
  const internal = log as CallLog & {
    gate(id: string): Deferred;
    start(id: string): Deferred;
  };
  return defineTool({
    name,
    description: `test tool ${name}`,
    internalInputSchema: inputSchema,
    isConcurrencySafe: () => safe,
    isReadOnly: () => safe,
    checkPermissions: () => ({ access: safe ? 'read' : 'edit' }),
    async *call(input, context) {
      log.events.push(`start:${input.id}`);
      log.running.add(input.id);
      log.maxRunning = Math.max(log.maxRunning, log.running.size);
      internal.start(input.id).resolve();
      try {
        if (!input.auto) {
          await Promise.race([
            internal.gate(input.id).promise,
            new Promise((resolve) =>
              context.signal.addEventListener('abort', resolve, { once: true }),
            ),
          ]);
        }
      } finally {
        log.running.delete(input.id);
      }
      const aborted = context.signal.aborted;
      log.events.push(`${aborted ? 'abort' : 'end'}:${input.id}`);
      return { data: { id: input.id, fail: input.fail === true, aborted } };
    },
    mapToolResultToToolResultBlockParam(output, toolUseId) {
      return {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: output.aborted ? `aborted ${output.id}` : `done ${output.id}`,
        is_error: output.fail || output.aborted,
      };
    },
  });
}

export function toolUse(
  name: string,
  id: string,
  extra: Record<string, unknown> = {},
): ToolUseBlock {
  return { type: 'tool_use', id, name, input: { id, ...extra } };
}
