import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { makePipeline } from '../../helpers/pipeline-harness.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runSession } from '../../../src/agent/session.js';
import type { SessionOptions } from '../../../src/agent/session.js';
import { executeSingleToolUse } from '../../../src/execution/pipeline.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import type { ReplayServer } from '../../../testkit/replay-server.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../../src/model/types.js';
import { parseRule } from '../../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../../src/permissions/types.js';
import {
  exitPlanModeTool,
  NOT_IN_PLAN_MODE_MESSAGE,
} from '../../../src/tools/builtin/exit-plan-mode.js';
import type { PermissionModeState, ToolContext } from '../../../src/tools/tool.js';

describe('exitPlanModeTool', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  const contextIn = (state: PermissionModeState | undefined): ToolContext =>
    makeContext(workspace, state ? { permissionMode: state } : {});

  it('is offered only to a session that starts in plan mode', () => {
    expect(exitPlanModeTool.isEnabled({ permissionMode: 'plan' })).toBe(true);
    for (const permissionMode of ['default', 'acceptEdits', 'bypassPermissions'] as const) {
      expect(exitPlanModeTool.isEnabled({ permissionMode })).toBe(false);
    }
  });

  it('is read-only, needs a person, and never runs beside another call', () => {
    const input = { plan: 'x' };
    expect(exitPlanModeTool.isReadOnly(input)).toBe(true);
    expect(exitPlanModeTool.requiresUserInteraction()).toBe(true);
    expect(exitPlanModeTool.isConcurrencySafe(input)).toBe(false);
    expect(exitPlanModeTool.checkPermissions(input, contextIn(undefined))).toEqual({
      access: 'other',
    });
  });

  describe('when the session is in plan mode', () => {
    it('switches to the mode named for after the plan and says so', async () => {
      const state: PermissionModeState = { mode: 'plan', afterPlan: 'acceptEdits' };
      const run = await runTool(exitPlanModeTool, { plan: '1. Fix f\n2. Test' }, contextIn(state));
      expect(run.block.is_error).toBeFalsy();
      expect(state.mode).toBe('acceptEdits');
      expect(run.data).toEqual({ plan: '1. Fix f\n2. Test', mode: 'acceptEdits' });
      expect(run.text).toBe(
        'The policy approved your plan. Plan mode is over: the rest of the run is in acceptEdits permission mode, so you can start making the changes.\n\nThe approved plan:\n1. Fix f\n2. Test',
      );
    });

    it('goes to default when the mode named for after the plan is plan itself', async () => {
      const state: PermissionModeState = { mode: 'plan', afterPlan: 'plan' };
      await runTool(exitPlanModeTool, { plan: 'p' }, contextIn(state));
      expect(state.mode).toBe('default');
    });
  });

  describe('when the session is not in plan mode', () => {
    const inDefault: PermissionModeState = { mode: 'default', afterPlan: 'default' };
    it.each([
      ['in default mode', inDefault],
      ['without a mode state', undefined],
    ])('refuses the call %s and changes nothing', async (_name, state) => {
      const run = await runTool(exitPlanModeTool, { plan: 'p' }, contextIn(state));
      expect(run.text).toBe(`<tool_use_error>${NOT_IN_PLAN_MODE_MESSAGE}</tool_use_error>`);
      expect(state?.mode ?? 'default').toBe('default');
    });

    it('refuses in call() too when plan mode ended after validation', async () => {
      const state: PermissionModeState = { mode: 'plan', afterPlan: 'default' };
      const context = contextIn(state);
      expect(await exitPlanModeTool.validateInput({ plan: 'p' }, context)).toEqual({
        result: true,
      });
      state.mode = 'default';
      await expect(exitPlanModeTool.call({ plan: 'p' }, context).next()).rejects.toThrow(
        NOT_IN_PLAN_MODE_MESSAGE,
      );
    });
  });

  describe('when the input is wrong', () => {
    it.each([
      ['a missing plan', {}],
      ['an empty plan', { plan: '' }],
      ['a plan that is not text', { plan: ['a'] }],
      ['an unknown key', { plan: 'p', planFilePath: '/tmp/p.md' }],
    ])('refuses %s', async (_name, input) => {
      const state: PermissionModeState = { mode: 'plan', afterPlan: 'default' };
      const run = await runTool(exitPlanModeTool, input, contextIn(state));
      expect(run.text).toMatch(/^<tool_use_error>InputValidationError: /);
      expect(state.mode).toBe('plan');
    });
  });

  describe('when the pipeline decides on it', () => {
    /** A pipeline whose tools switch the mode of the very policy it decides with. */
    const pipelineWith = (policy: Partial<PermissionPolicy>) => {
      const harness = makePipeline([exitPlanModeTool], {
        root: workspace.root,
        policy: { mode: 'plan', ...policy },
      });
      const { deps } = harness;
      const permissionMode: PermissionModeState = {
        get mode() {
          return deps.policy.mode;
        },
        set mode(mode) {
          deps.policy.mode = mode;
        },
        afterPlan: 'default',
      };
      const baseContext = deps.makeContext.bind(deps);
      deps.makeContext = (id, signal) => ({ ...baseContext(id, signal), permissionMode });
      return harness;
    };
    const call = { type: 'tool_use' as const, id: 'toolu_exit', name: 'ExitPlanMode' };
    const input = { plan: 'Change f' };

    it('resolves the ask to the policy default, deny, and stays in plan mode', async () => {
      const { deps } = pipelineWith({});
      const outcome = await executeSingleToolUse(
        { ...call, input },
        deps,
        new AbortController().signal,
      );
      expect(outcome.stage).toBe('permission');
      expect(outcome.decision).toMatchObject({ behavior: 'deny', askResolved: true });
      expect(outcome.result.content).toBe(
        'Permission to use ExitPlanMode was denied: ExitPlanMode needs a person to answer; nobody can approve in CI and the policy resolves asks to deny. Do not retry the same call; try another way or explain what you needed.',
      );
      expect(deps.policy.mode).toBe('plan');
    });

    it('leaves plan mode when the policy resolves its asks to allow', async () => {
      const { deps } = pipelineWith({ askDefaultByTool: { ExitPlanMode: 'allow' } });
      const outcome = await executeSingleToolUse(
        { ...call, input },
        deps,
        new AbortController().signal,
      );
      expect(outcome.stage).toBe('completed');
      expect(outcome.decision).toMatchObject({ behavior: 'allow', askResolved: true });
      expect(deps.policy.mode).toBe('default');
    });

    it('cannot be approved by an allow rule: only the ask default answers', async () => {
      const { deps } = pipelineWith({ allow: [parseRule('ExitPlanMode', 'policy')] });
      const outcome = await executeSingleToolUse(
        { ...call, input },
        deps,
        new AbortController().signal,
      );
      expect(outcome.decision?.behavior).toBe('deny');
      expect(deps.policy.mode).toBe('plan');
    });
  });
});

describe('a session that starts in plan mode', () => {
  let server: ReplayServer | undefined;
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace('ci-agent-plan-');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    workspace.cleanup();
  });

  const write = (id: string, name: string) => ({
    type: 'tool_use' as const,
    id,
    name: 'Write',
    input: { file_path: workspace.path(name), content: `${name}\n` },
  });
  const exitPlan = {
    type: 'tool_use' as const,
    id: 'toolu_exit',
    name: 'ExitPlanMode',
    input: { plan: 'Write the files' },
  };

  async function runPlanSession(options: Partial<SessionOptions>) {
    server = await startReplayServer({
      apiKey: 'sk-test',
      turns: [
        [write('toolu_before', 'before.txt'), exitPlan, write('toolu_after', 'after.txt')],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    const events: AgentEvent[] = [];
    const result = await runSession({
      prompt: 'write the files',
      cwd: workspace.root,
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
      permissionMode: 'plan',
      rules: { allow: [], deny: [] },
      env: process.env,
      events: (event) => events.push(event),
      ...options,
    });
    const messages = (server.requests[1]?.body as { messages: Message[] }).messages;
    const last = messages[messages.length - 1]?.content;
    const results = (Array.isArray(last) ? last : []) as ToolResultBlock[];
    return { result, results, events };
  }

  it('refuses changes, then after an approved plan decides in the mode the session names', async () => {
    const { result, results } = await runPlanSession({
      askDefaultByTool: { ExitPlanMode: 'allow' },
      modeAfterPlan: 'acceptEdits',
    });
    expect(results.map((block) => [block.tool_use_id, block.is_error ?? false])).toEqual([
      ['toolu_before', true],
      ['toolu_exit', false],
      ['toolu_after', false],
    ]);
    expect(results[0]?.content).toContain(
      'plan mode is read-only and Write could change something',
    );
    expect(existsSync(workspace.path('before.txt'))).toBe(false);
    expect(readFileSync(workspace.path('after.txt'), 'utf8')).toBe('after.txt\n');
    expect(result.permissionDenials.map((denial) => denial.tool_use_id)).toEqual(['toolu_before']);
  });

  it('offers ExitPlanMode to the model in plan mode, and not in the default mode', async () => {
    await runPlanSession({});
    const offered = (server!.requests[0]?.body as { tools: { name: string }[] }).tools;
    expect(offered.map((tool) => tool.name)).toContain('ExitPlanMode');
    await server!.close();
    server = undefined;
    await runPlanSession({ permissionMode: 'default' });
    const inDefault = (server!.requests[0]?.body as { tools: { name: string }[] }).tools;
    expect(inDefault.map((tool) => tool.name)).not.toContain('ExitPlanMode');
  });

  it('stays in plan mode when the policy leaves its asks at deny', async () => {
    const { result, results } = await runPlanSession({});
    expect(results.map((block) => block.is_error)).toEqual([true, true, true]);
    expect(existsSync(workspace.path('after.txt'))).toBe(false);
    expect(result.permissionDenials.map((denial) => denial.tool_use_id)).toEqual([
      'toolu_before',
      'toolu_exit',
      'toolu_after',
    ]);
  });

  it('goes to default mode when nothing is named: a write then still needs approval', async () => {
    const { results } = await runPlanSession({ askDefaultByTool: { ExitPlanMode: 'allow' } });
    expect(results[1]?.is_error).toBeFalsy();
    expect(results[2]?.content).toContain('no rule allows Write in default mode');
  });
});
