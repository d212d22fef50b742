import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type {
  HookRunner,
  PreToolUseOutcome,
  PostToolUseOutcome,
  SessionHookRunner,
} from '../../src/hooks/types.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import { defineTool } from '../../src/tools/tool.js';
import { makePipeline } from '../helpers/pipeline-harness.js';

const calls: unknown[] = [];

const echoTool = defineTool({
  name: 'Echo',
  description: 'test tool',
  internalInputSchema: z.object({
    text: z.string().describe('text to echo'),
    mode: z.enum(['ok', 'throw', 'progress', 'hang', 'error']).optional().describe('behaviour'),
    _secret: z.string().optional().describe('hidden'),
  }),
  hiddenKeys: ['_secret'],
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async validateInput(input) {
    return input.text === 'invalid'
      ? { result: false, message: 'text must not be "invalid"', errorCode: 1 }
      : { result: true };
  },
  checkPermissions: (input) => ({ access: 'read', ruleContent: input.text }),
  async *call(input, context) {
    calls.push(input);
    if (input.mode === 'throw') throw new Error('disk on fire');
    if (input.mode === 'progress') yield { type: 'progress', message: 'half way' };
    if (input.mode === 'hang') await new Promise(() => undefined);
    return {
      data: {
        echoed: input.text,
        signalAborted: context.signal.aborted,
        isError: input.mode === 'error',
      },
    };
  },
  mapToolResultToToolResultBlockParam: (output, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: `echo: ${output.echoed}`,
    is_error: output.isError,
  }),
});

function use(input: unknown, name = 'Echo'): ToolUseBlock {
  return { type: 'tool_use', id: 'toolu_1', name, input };
}

const live = () => new AbortController().signal;

function hooks(
  pre: Partial<PreToolUseOutcome> = {},
  post: Partial<PostToolUseOutcome> = {},
): HookRunner {
  return {
    preToolUse: async () => ({ additionalContext: [], runs: [], ...pre }),
    postToolUse: async () => ({ additionalContext: [], runs: [], ...post }),
  };
}

describe('executeSingleToolUse', () => {
  describe('when the tool does not exist', () => {
    it.each(['Nope', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])(
      'answers %s with "No such tool available"',
      async (name) => {
        const { deps } = makePipeline([echoTool]);
        const outcome = await executeSingleToolUse(use({ text: 'x' }, name), deps, live());
        expect(outcome.stage).toBe('unknown-tool');
        expect(outcome.result).toEqual({
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: `<tool_use_error>Error: No such tool available: ${name}</tool_use_error>`,
          is_error: true,
        });
      },
    );
  });

  it('does not start a call when the run is already aborted', async () => {
    const { deps } = makePipeline([echoTool]);
    const controller = new AbortController();
    controller.abort(new Error('received SIGTERM'));
    calls.length = 0;
    const outcome = await executeSingleToolUse(use({ text: 'x' }), deps, controller.signal);
    expect(outcome.stage).toBe('aborted');
    expect(outcome.result.content).toContain('received SIGTERM');
    expect(calls).toEqual([]);
  });

  describe('when the input does not match the schema', () => {
    it('names the parameter, the expected and the provided type', async () => {
      const { deps } = makePipeline([echoTool]);
      const outcome = await executeSingleToolUse(use({ text: 42 }), deps, live());
      expect(outcome.stage).toBe('schema');
      expect(outcome.result.content).toBe(
        '<tool_use_error>InputValidationError: Echo failed due to the following issue:\nThe parameter `text` type is expected as `string` but provided as `number`</tool_use_error>',
      );
    });

    it('names a missing required parameter', async () => {
      const { deps } = makePipeline([echoTool]);
      const outcome = await executeSingleToolUse(use({}), deps, live());
      expect(outcome.result.content).toContain('The required parameter `text` is missing');
    });

    it('rejects a parameter the model may not set, including hidden ones', async () => {
      const { deps } = makePipeline([echoTool]);
      const outcome = await executeSingleToolUse(
        use({ text: 'x', _secret: 'y', extra: 1 }),
        deps,
        live(),
      );
      expect(outcome.result.content).toContain('An unexpected parameter `_secret` was provided');
      expect(outcome.result.content).toContain('An unexpected parameter `extra` was provided');
      expect(outcome.result.content).toContain('following issues');
    });
  });

  it('returns the validateInput message as an error result without calling the tool', async () => {
    const { deps } = makePipeline([echoTool]);
    calls.length = 0;
    const outcome = await executeSingleToolUse(use({ text: 'invalid' }), deps, live());
    expect(outcome.stage).toBe('validation');
    expect(outcome.result.content).toBe(
      '<tool_use_error>text must not be "invalid"</tool_use_error>',
    );
    expect(calls).toEqual([]);
  });

  describe('when a PreToolUse hook decides', () => {
    it('denies the call with the hook named in the result', async () => {
      const { deps } = makePipeline([echoTool], {
        hooks: hooks({
          decision: { behavior: 'deny', reason: 'no echo today', source: 'guard.sh' },
        }),
      });
      const outcome = await executeSingleToolUse(use({ text: 'x' }), deps, live());
      expect(outcome.stage).toBe('permission');
      expect(outcome.result.content).toContain('denied by PreToolUse hook guard.sh: no echo today');
      expect(outcome.denial).toMatchObject({ tool_name: 'Echo', tool_use_id: 'toolu_1' });
    });

    it('runs the call with a valid updatedInput', async () => {
      const { deps } = makePipeline([echoTool], {
        hooks: hooks({ updatedInput: { text: 'rewritten' } }),
      });
      const outcome = await executeSingleToolUse(use({ text: 'x' }), deps, live());
      expect(outcome.result.content).toBe('echo: rewritten');
      expect(outcome.input).toEqual({ text: 'rewritten' });
    });

    it('refuses an updatedInput that breaks the schema, even through a hidden key', async () => {
      const { deps } = makePipeline([echoTool], {
        hooks: hooks({ updatedInput: { text: 'x', _secret: 'sneaky' } }),
      });
      calls.length = 0;
      const outcome = await executeSingleToolUse(use({ text: 'x' }), deps, live());
      expect(outcome.stage).toBe('hook');
      expect(outcome.result.content).toContain('rewrote the input into an invalid one');
      expect(calls).toEqual([]);
    });

    it('adds the hook context to the result and passes on a stop request', async () => {
      const { deps } = makePipeline([echoTool], {
        hooks: hooks(
          { additionalContext: ['remember the style guide'], stop: { reason: 'enough' } },
          { block: { reason: 'lint failed' } },
        ),
      });
      const outcome = await executeSingleToolUse(use({ text: 'x' }), deps, live());
      expect(outcome.result.content).toBe(
        'echo: x\n<system-reminder>remember the style guide</system-reminder>\nlint failed',
      );
      expect(outcome.stopRun).toEqual({ reason: 'enough' });
    });
  });

  describe('when the policy denies', () => {
    it('returns a denial naming the rule and records it', async () => {
      const { deps, events } = makePipeline([echoTool], {
        policy: { deny: [parseRule('Echo', '--disallowedTools')] },
      });
      const outcome = await executeSingleToolUse(use({ text: 'x' }), deps, live());
      expect(outcome.result.is_error).toBe(true);
      expect(outcome.result.content).toContain("'Echo' (--disallowedTools)");
      expect(outcome.denial?.rules).toEqual(['Echo']);
      const decision = events.find((event) => event.type === 'permission-decision');
      expect(decision).toMatchObject({ decision: { behavior: 'deny', source: 'deny-rule' } });
    });
  });

  describe('what hooks are given', () => {
    it('passes the model input as sent (no defaults filled in) and the call duration', async () => {
      const seen: unknown[] = [];
      const withDefault = defineTool({
        name: 'Defaults',
        description: 'test tool',
        internalInputSchema: z.object({
          text: z.string().describe('t'),
          flag: z.boolean().default(false).describe('f'),
        }),
        checkPermissions: () => ({ access: 'read' }),
        async *call(input) {
          return { data: input };
        },
        mapToolResultToToolResultBlockParam: (_output, id) => ({
          type: 'tool_result',
          tool_use_id: id,
          content: 'ok',
        }),
      });
      const { deps } = makePipeline([withDefault], {
        hooks: {
          preToolUse: async (request) => (
            seen.push(['pre', request.toolInput]),
            { additionalContext: [], runs: [] }
          ),
          postToolUse: async (request) => (
            seen.push(['post', request.toolInput, request.toolResponse, typeof request.durationMs]),
            { additionalContext: [], runs: [] }
          ),
        },
      });
      await executeSingleToolUse(use({ text: 'x' }, 'Defaults'), deps, live());
      expect(seen).toEqual([
        ['pre', { text: 'x' }],
        ['post', { text: 'x' }, { text: 'x', flag: false }, 'number'],
      ]);
    });

    it('fires PostToolUseFailure, not PostToolUse, when the call fails', async () => {
      const fired: string[] = [];
      const hooks: HookRunner & Pick<SessionHookRunner, 'postToolUseFailure'> = {
        preToolUse: async () => ({ additionalContext: [], runs: [] }),
        postToolUse: async () => (fired.push('post'), { additionalContext: [], runs: [] }),
        postToolUseFailure: async (request) => (
          fired.push(`failure:${request.error}`),
          { additionalContext: [], runs: [] }
        ),
      };
      const { deps } = makePipeline([echoTool], { hooks });
      await executeSingleToolUse(use({ text: 'x', mode: 'throw' }), deps, live());
      await executeSingleToolUse(use({ text: 'y', mode: 'error' }), deps, live());
      await executeSingleToolUse(use({ text: 'z' }), deps, live());
      expect(fired).toEqual(['failure:Error: disk on fire', 'failure:echo: y', 'post']);
    });
  });

  describe('when a deny rule names the call', () => {
    it('denies before validateInput looks at anything', async () => {
      const { deps } = makePipeline([echoTool], {
        policy: { mode: 'bypassPermissions', deny: [parseRule('Echo', 'policy.yml')] },
      });
      calls.length = 0;
      const outcome = await executeSingleToolUse(use({ text: 'invalid' }), deps, live());
      expect(outcome.stage).toBe('permission');
      expect(outcome.result.content).toContain("'Echo' (policy.yml)");
      expect(outcome.denial?.tool_input).toEqual({ text: 'invalid' });
    });
  });

  describe('when the tool runs', () => {
    it('reports progress events and the structured output', async () => {
      const { deps, events } = makePipeline([echoTool]);
      const outcome = await executeSingleToolUse(
        use({ text: 'x', mode: 'progress' }),
        deps,
        live(),
      );
      expect(outcome.stage).toBe('completed');
      expect(outcome.structured).toMatchObject({ echoed: 'x' });
      expect(events.map((event) => event.type)).toEqual([
        'tool-call-start',
        'permission-decision',
        'tool-progress',
        'tool-result',
      ]);
    });

    it('turns a thrown error into an error result', async () => {
      const { deps } = makePipeline([echoTool]);
      const outcome = await executeSingleToolUse(use({ text: 'x', mode: 'throw' }), deps, live());
      expect(outcome.result).toMatchObject({ is_error: true, content: 'Error: disk on fire' });
    });

    it('marks an error result from the tool as a call failure', async () => {
      const { deps } = makePipeline([echoTool]);
      const outcome = await executeSingleToolUse(use({ text: 'x', mode: 'error' }), deps, live());
      expect(outcome.stage).toBe('call');
    });

    it('stops a call that outlives the ceiling, even if the tool ignores its signal', async () => {
      const { deps } = makePipeline([echoTool]);
      deps.callTimeoutMs = 50;
      const outcome = await executeSingleToolUse(use({ text: 'x', mode: 'hang' }), deps, live());
      expect(outcome.result.content).toBe('Error: Echo did not finish within 0s and was stopped');
    }, 10_000);
  });
});

describe('executeSingleToolUse with a PostToolUse hook that rewrites the file', () => {
  it('refreshes the recorded file state so the next edit is not refused as stale', async () => {
    const { makeWorkspace } = await import('../helpers/tool-harness.js');
    const { editTool } = await import('../../src/tools/builtin/edit.js');
    const { readTool } = await import('../../src/tools/builtin/read.js');
    const { writeFileSync } = await import('node:fs');
    const workspace = makeWorkspace();
    try {
      const file = await workspace.write('a.js', 'const a = 1\n');
      const formatter: HookRunner = {
        preToolUse: async () => ({ additionalContext: [], runs: [] }),
        postToolUse: async (request) => {
          if (request.toolName === 'Edit') writeFileSync(file, 'const a = 2;\n');
          return {
            additionalContext: [],
            runs: [
              { event: 'PostToolUse', matcher: 'Edit', command: 'fmt', exitCode: 0, durationMs: 1 },
            ],
          };
        },
      };
      const { deps } = makePipeline([readTool, editTool], {
        root: workspace.root,
        hooks: formatter,
      });
      const call = (name: string, input: unknown, id: string) =>
        executeSingleToolUse({ type: 'tool_use', id, name, input }, deps, live());
      expect((await call('Read', { file_path: file }, 't1')).result.is_error).toBeFalsy();
      expect(
        (await call('Edit', { file_path: file, old_string: '1', new_string: '2' }, 't2')).stage,
      ).toBe('completed');
      const second = await call(
        'Edit',
        { file_path: file, old_string: '2;', new_string: '3;' },
        't3',
      );
      expect(second.result.is_error).toBeFalsy();
      expect(second.stage).toBe('completed');
    } finally {
      workspace.cleanup();
    }
  });
});
