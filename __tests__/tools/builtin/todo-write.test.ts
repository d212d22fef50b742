import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { TODO_RESULT_TEXT, todoWriteTool } from '../../../src/tools/builtin/todo-write.js';
import type { TodoStore, ToolContext } from '../../../src/tools/tool.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runSession } from '../../../src/agent/session.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import type { ReplayServer } from '../../../testkit/replay-server.js';
import { startReplayServer } from '../../../testkit/replay-server.js';

const firstList = [
  { content: 'Reproduce the failure', status: 'completed', activeForm: 'Reproducing the failure' },
  { content: 'Fix the parser', status: 'in_progress', activeForm: 'Fixing the parser' },
  { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
] as const;

describe('todoWriteTool', () => {
  let workspace: Workspace;
  let store: TodoStore;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    store = { todos: [] };
    context = makeContext(workspace, { todos: store });
  });
  afterEach(() => workspace.cleanup());

  const write = (todos: unknown) => runTool(todoWriteTool, { todos }, context);

  it('is read-only for permissions but never runs beside another call', () => {
    const input = { todos: [] };
    expect(todoWriteTool.isReadOnly(input)).toBe(true);
    expect(todoWriteTool.isConcurrencySafe(input)).toBe(false);
    expect(todoWriteTool.requiresUserInteraction()).toBe(false);
    expect(todoWriteTool.checkPermissions(input, context)).toEqual({ access: 'other' });
  });

  describe('when the model writes its list', () => {
    it('keeps the list in the session and answers with the reference text', async () => {
      const run = await write(firstList);
      expect(run.block).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_test',
        content: TODO_RESULT_TEXT,
      });
      expect(store.todos).toEqual(firstList);
    });

    it('returns the previous and the new list as structured output', async () => {
      expect((await write(firstList)).data).toEqual({ oldTodos: [], newTodos: firstList });
      const next = firstList.map((todo) => ({ ...todo, status: 'completed' }));
      expect((await write(next)).data).toEqual({ oldTodos: firstList, newTodos: next });
      expect(store.todos).toEqual(next);
    });

    it('replaces the whole list, so an empty list clears it', async () => {
      await write(firstList);
      expect((await write([])).data).toEqual({ oldTodos: firstList, newTodos: [] });
      expect(store.todos).toEqual([]);
    });

    it('does not share the objects it returned with the store', async () => {
      const run = await write(firstList);
      (run.data as { newTodos: Array<{ content: string }> }).newTodos[0]!.content = 'changed';
      expect(store.todos[0]?.content).toBe('Reproduce the failure');
    });
  });

  describe('when the context has no store', () => {
    it('still answers, with an empty previous list each time', async () => {
      context = makeContext(workspace);
      expect((await write(firstList)).data).toEqual({ oldTodos: [], newTodos: firstList });
      expect((await write(firstList)).data).toEqual({ oldTodos: [], newTodos: firstList });
    });
  });

  describe('when the input is wrong', () => {
    it.each([
      ['an unknown status', [{ content: 'a', status: 'done', activeForm: 'A-ing' }]],
      ['a missing activeForm', [{ content: 'a', status: 'pending' }]],
      ['an empty content', [{ content: '', status: 'pending', activeForm: 'A-ing' }]],
      ['an empty activeForm', [{ content: 'a', status: 'pending', activeForm: '' }]],
      ['an unknown key in a task', [{ content: 'a', status: 'pending', activeForm: 'A', id: '1' }]],
      ['a list that is not a list', 'do things'],
    ])('refuses %s as an input validation error and keeps the list', async (_name, todos) => {
      await write(firstList);
      const run = await write(todos);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toMatch(/^<tool_use_error>InputValidationError: /);
      expect(store.todos).toEqual(firstList);
    });
  });
});

describe('TodoWrite in a session', () => {
  let server: ReplayServer | undefined;
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace('ci-agent-todo-');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    workspace.cleanup();
  });

  it('is allowed without asking, even in plan mode, and reports each list change in order', async () => {
    const second = firstList.map((todo) => ({ ...todo, status: 'completed' }));
    server = await startReplayServer({
      apiKey: 'sk-test',
      turns: [
        [
          { type: 'tool_use', id: 'toolu_1', name: 'TodoWrite', input: { todos: firstList } },
          { type: 'tool_use', id: 'toolu_2', name: 'TodoWrite', input: { todos: second } },
        ],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    const events: AgentEvent[] = [];
    const result = await runSession({
      prompt: 'plan the work',
      cwd: workspace.root,
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
      permissionMode: 'plan',
      rules: { allow: [], deny: [] },
      env: process.env,
      events: (event) => events.push(event),
    });
    expect(result.permissionDenials).toEqual([]);
    const structured = events.flatMap((event) =>
      event.type === 'tool-result' ? [[event.toolUseId, event.structured]] : [],
    );
    expect(structured).toEqual([
      ['toolu_1', { oldTodos: [], newTodos: firstList }],
      ['toolu_2', { oldTodos: firstList, newTodos: second }],
    ]);
  });
});
