/**
 * TodoWrite: the model's task list (docs/CC-COMPAT.md §3). Each call replaces the whole list; the session
 * keeps it (ToolContext.todos) and the structured output `{oldTodos, newTodos}` reaches the tool
 * log through the tool-result event, which is where the run report reads it from.
 *
 * It changes nothing outside the session, so it is read-only for the permission decision (allowed
 * without asking, also in plan mode); it is not concurrency-safe, because two calls in one turn
 * must replace the list in the order the model wrote them.
 */
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { TodoItem } from '../tool.js';

const todoSchema = z.strictObject({
  content: z.string().min(1).describe('The task, in the imperative ("Run the tests").'),
  status: z
    .enum(['pending', 'in_progress', 'completed'])
    .describe('pending, in_progress (one task at a time) or completed.'),
  activeForm: z
    .string()
    .min(1)
    .describe('The task in the present continuous ("Running the tests"), shown while it runs.'),
});

const inputSchema = z.object({
  todos: z.array(todoSchema).describe('The whole updated task list; it replaces the previous one.'),
});

export interface TodoWriteOutput {
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

export const TODO_RESULT_TEXT =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';

const description = `Creates and updates your task list for this run. The list is shown in the run's report, so it tells the people reviewing the work what you did and what is left.

- Use it for work with three or more distinct steps, or when the task lists several things to do. Skip it for a single, simple change.
- Send the whole list every time: it replaces the previous one.
- Each task has content (imperative: "Fix the failing test"), activeForm (present continuous: "Fixing the failing test") and a status.
- Keep exactly one task in_progress while you work; mark it completed as soon as it is done, not in batches at the end.
- Mark a task completed only when it is fully done: not when tests fail, the change is partial, or you hit an error you could not resolve. Add a task for what blocks you instead.`;

export const todoWriteTool = defineTool({
  name: 'TodoWrite',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'TodoWrite',
  isReadOnly: () => true,
  isConcurrencySafe: () => false,

  checkPermissions: () => ({ access: 'other' }),

  async *call(input, context) {
    const oldTodos = [...(context.todos?.todos ?? [])];
    const newTodos = input.todos.map((todo) => ({ ...todo }));
    // The output travels on to hooks and the log; the session keeps a list of its own.
    if (context.todos) context.todos.todos = newTodos.map((todo) => ({ ...todo }));
    const data: TodoWriteOutput = { oldTodos, newTodos };
    return { data };
  },

  mapToolResultToToolResultBlockParam(_output, toolUseId) {
    return { type: 'tool_result', tool_use_id: toolUseId, content: TODO_RESULT_TEXT };
  },
});
