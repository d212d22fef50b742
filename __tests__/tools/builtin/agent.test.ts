import { afterEach, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../../src/execution/pipeline.js';
import type { PipelineDeps } from '../../../src/execution/pipeline.js';
import { emptyUsage } from '../../../src/model/types.js';
import { parseRule } from '../../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../../src/permissions/types.js';
import {
  NO_SUBAGENTS_MESSAGE,
  agentTool,
  findSubagentType,
  unknownTypeMessage,
} from '../../../src/tools/builtin/agent.js';
import type { AgentOutput } from '../../../src/tools/builtin/agent.js';
import type { SubagentRequest, SubagentRun } from '../../../src/tools/tool.js';
import { makePipeline } from '../../helpers/pipeline-harness.js';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => {
  workspace?.cleanup();
  workspace = undefined;
});

function finished(overrides: Partial<SubagentRun> = {}): SubagentRun {
  return {
    agentId: 'a0123456789abcdef',
    subtype: 'success',
    isError: false,
    text: 'The parser lives in src/parse.ts.',
    errors: [],
    numTurns: 3,
    durationMs: 1234,
    toolUseCount: 2,
    usage: {
      input_tokens: 100,
      output_tokens: 20,
      cache_creation_input_tokens: 5,
      cache_read_input_tokens: 7,
    },
    totalCostUsd: 0.01,
    ...overrides,
  };
}

/** A session's port, answering with `run` and keeping what it was asked. */
function port(run: SubagentRun) {
  const requests: SubagentRequest[] = [];
  return {
    requests,
    runSubagent: async (request: SubagentRequest) => {
      requests.push(request);
      return run;
    },
  };
}

/** A real pipeline around the Agent tool whose contexts carry the session's port. */
function agentPipeline(
  session: ReturnType<typeof port>,
  policy: Partial<PermissionPolicy> = {},
): PipelineDeps {
  const { deps } = makePipeline([agentTool], { policy });
  return {
    ...deps,
    makeContext: (id, signal) => ({ ...deps.makeContext(id, signal), ...session }),
  };
}

const task = { description: 'Find the parser', prompt: 'Where is the parser? Report the file.' };

describe('agentTool', () => {
  describe('when the input is malformed', () => {
    it.each([
      ['no prompt', { description: 'Find it' }],
      ['an empty prompt', { description: 'Find it', prompt: '' }],
      ['no description', { prompt: 'Find the parser' }],
      ['an unknown parameter', { ...task, model: 'opus' }],
      ['a type that is not a string', { ...task, subagent_type: 3 }],
    ])('refuses %s before anything runs', async (_case, input) => {
      workspace = makeWorkspace('ci-agent-agent-');
      const session = port(finished());
      const run = await runTool(agentTool, input, makeContext(workspace, session));
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('InputValidationError');
      expect(session.requests).toEqual([]);
    });
  });

  describe('when the agent type is unknown', () => {
    it('names the known types and starts nothing', async () => {
      workspace = makeWorkspace('ci-agent-agent-');
      const session = port(finished());
      const run = await runTool(
        agentTool,
        { ...task, subagent_type: 'explore' },
        makeContext(workspace, session),
      );
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        "<tool_use_error>Agent type 'explore' not found. Available agents: general-purpose, Explore</tool_use_error>",
      );
      expect(unknownTypeMessage('x')).toContain('general-purpose, Explore');
      expect(session.requests).toEqual([]);
    });
  });

  describe('when the context has no subagent port', () => {
    it('tells the model to do the task itself', async () => {
      workspace = makeWorkspace('ci-agent-agent-');
      const run = await runTool(agentTool, task, makeContext(workspace));
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(`<tool_use_error>${NO_SUBAGENTS_MESSAGE}</tool_use_error>`);
    });
  });

  describe('when the subagent finishes', () => {
    it('hands the port the task, the type (general-purpose by default), its id and signal', async () => {
      workspace = makeWorkspace('ci-agent-agent-');
      const session = port(finished());
      const controller = new AbortController();
      await runTool(
        agentTool,
        task,
        makeContext(workspace, {
          ...session,
          toolUseId: 'toolu_agent',
          signal: controller.signal,
        }),
      );
      expect(session.requests).toEqual([
        {
          description: 'Find the parser',
          prompt: 'Where is the parser? Report the file.',
          subagentType: 'general-purpose',
          toolUseId: 'toolu_agent',
          signal: controller.signal,
        },
      ]);
    });

    it('returns only its final text and a usage line, with the structured output for hooks', async () => {
      workspace = makeWorkspace('ci-agent-agent-');
      const session = port(finished());
      const run = await runTool(
        agentTool,
        { ...task, subagent_type: 'Explore' },
        makeContext(workspace, session),
      );
      expect(run.block.is_error).toBeUndefined();
      expect(run.block.content).toEqual([
        { type: 'text', text: 'The parser lives in src/parse.ts.' },
        {
          type: 'text',
          text: '<usage>total_tokens: 132\ntool_uses: 2\nduration_ms: 1234</usage>',
        },
      ]);
      expect(run.data).toEqual<AgentOutput>({
        status: 'completed',
        agentId: 'a0123456789abcdef',
        agentType: 'Explore',
        content: [{ type: 'text', text: 'The parser lives in src/parse.ts.' }],
        totalToolUseCount: 2,
        totalDurationMs: 1234,
        totalTokens: 132,
        usage: finished().usage,
        numTurns: 3,
        totalCostUsd: 0.01,
        prompt: task.prompt,
      });
    });

    it('says so when the agent ended without a final message', async () => {
      workspace = makeWorkspace('ci-agent-agent-');
      const session = port(finished({ text: '  ', usage: emptyUsage(), toolUseCount: 0 }));
      const run = await runTool(agentTool, task, makeContext(workspace, session));
      expect(run.text).toBe(
        'The agent finished without a final message.\n<usage>total_tokens: 0\ntool_uses: 0\nduration_ms: 1234</usage>',
      );
    });
  });

  describe('when the subagent stops before finishing', () => {
    it('fails the call with the limit, the reason and what the agent last wrote', async () => {
      workspace = makeWorkspace('ci-agent-agent-');
      const session = port(
        finished({
          subtype: 'error_max_turns',
          isError: true,
          text: 'So far: the lexer is in src/lex.ts.',
          errors: ['Reached max turns (50)'],
        }),
      );
      await expect(runTool(agentTool, task, makeContext(workspace, session))).rejects.toThrow(
        'The general-purpose agent stopped before finishing (error_max_turns): Reached max turns (50).\nIts last message:\nSo far: the lexer is in src/lex.ts.',
      );
    });

    it('becomes an error result through the pipeline', async () => {
      const session = port(
        finished({ subtype: 'error_during_execution', isError: true, text: '' }),
      );
      const deps = agentPipeline(session);
      const outcome = await executeSingleToolUse(
        { type: 'tool_use', id: 'toolu_agent', name: 'Agent', input: task },
        deps,
        new AbortController().signal,
      );
      expect(outcome.stage).toBe('call');
      expect(outcome.result).toMatchObject({
        is_error: true,
        content:
          'Error: The general-purpose agent stopped before finishing (error_during_execution): no reason given.',
      });
    });
  });

  describe('declarations', () => {
    it('lets Explore agents run side by side and general-purpose ones only alone', () => {
      expect(agentTool.isConcurrencySafe({ ...task, subagent_type: 'Explore' })).toBe(true);
      expect(agentTool.isConcurrencySafe({ ...task, subagent_type: 'general-purpose' })).toBe(
        false,
      );
      expect(agentTool.isConcurrencySafe(task)).toBe(false);
    });

    it('is read-only itself, since every call its agent makes is decided on its own', () => {
      expect(agentTool.isReadOnly(task)).toBe(true);
      expect(
        agentTool.checkPermissions({ ...task, subagent_type: 'Explore' }, {} as never),
      ).toEqual({ access: 'other', ruleContent: 'Explore' });
    });

    it('answers to Task in rules and names its type for people', () => {
      expect(agentTool.aliases).toEqual(['Task']);
      expect(agentTool.userFacingName({ subagent_type: 'Explore' })).toBe('Agent(Explore)');
      expect(agentTool.userFacingName()).toBe('Agent');
      expect(findSubagentType('Explore')?.readOnly).toBe(true);
      expect(findSubagentType('general-purpose')?.readOnly).toBe(false);
    });
  });

  describe('when the policy speaks', () => {
    it('is denied by a Task deny rule, and the agent never starts', async () => {
      const session = port(finished());
      const deps = agentPipeline(session, {
        mode: 'default',
        deny: [parseRule('Task', '.claude/settings.json')],
      });
      const outcome = await executeSingleToolUse(
        { type: 'tool_use', id: 'toolu_agent', name: 'Agent', input: task },
        deps,
        new AbortController().signal,
      );
      expect(outcome.stage).toBe('permission');
      expect(outcome.denial?.rules).toEqual(['Task']);
      expect(session.requests).toEqual([]);
    });

    it('is allowed by the mode default and in plan mode', async () => {
      for (const mode of ['default', 'plan'] as const) {
        const session = port(finished());
        const deps = agentPipeline(session, { mode });
        const outcome = await executeSingleToolUse(
          { type: 'tool_use', id: 'toolu_agent', name: 'Agent', input: task },
          deps,
          new AbortController().signal,
        );
        expect(outcome.stage, mode).toBe('completed');
        expect(session.requests).toHaveLength(1);
      }
    });
  });
});
