/**
 * The plan, carried through compaction word for word: the last task list (TodoWrite) and the last
 * plan presented (ExitPlanMode) among the messages being summarised. A summary may paraphrase;
 * these are what the model committed to, so they go back exactly as it wrote them.
 */
import type { Message } from '../../model/types.js';
import { indexToolCalls, isRecord } from './tool-calls.js';

type Render = (input: Record<string, unknown>) => string | undefined;

/** Tools whose input is the plan. An own-property lookup: model-supplied names find nothing else. */
const PLAN_TOOLS: Readonly<Record<string, Render>> = {
  TodoWrite: (input) => {
    const todos = Array.isArray(input['todos']) ? input['todos'] : [];
    const lines = todos
      .filter(isRecord)
      .map((todo) => `- [${String(todo['status'])}] ${String(todo['content'])}`);
    return lines.length === 0 ? undefined : `Your task list (last TodoWrite):\n${lines.join('\n')}`;
  },
  ExitPlanMode: (input) =>
    typeof input['plan'] === 'string' ? `The plan you presented:\n${input['plan']}` : undefined,
};

/** The latest successful plan call of each kind among `messages`, rendered; undefined if none. */
export function planOf(messages: readonly Message[]): string | undefined {
  const latest = new Map<string, string>();
  for (const call of indexToolCalls(messages).values()) {
    if (!Object.hasOwn(PLAN_TOOLS, call.name) || call.isError !== false) continue;
    const text = isRecord(call.input) ? PLAN_TOOLS[call.name]?.(call.input) : undefined;
    if (text === undefined) continue;
    // Re-inserted so that the newer of the two comes last.
    latest.delete(call.name);
    latest.set(call.name, text);
  }
  return latest.size === 0 ? undefined : [...latest.values()].join('\n\n');
}
