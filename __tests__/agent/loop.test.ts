import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import type { SessionHookRunner } from '../../src/hooks/types.js';
import { noHooks } from '../../src/hooks/types.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type {
  ReplayScriptEntry,
  ReplayServer,
  ReplayServerOptions,
} from '../../testkit/replay-server.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { controlledTool, makeCallLog } from '../helpers/test-tools.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(
  turns: ReplayScriptEntry[],
  options: {
    maxTurns?: number;
    policy?: Partial<PermissionPolicy>;
    server?: Partial<ReplayServerOptions>;
  } = {},
) {
  server = await startReplayServer({ turns, apiKey: 'sk-test', ...options.server });
  const log = makeCallLog();
  const { deps, events } = makePipeline(
    [controlledTool('Read', true, log), controlledTool('Edit', false, log)],
    {
      policy: options.policy,
    },
  );
  const result = await runAgent({
    prompt: 'fix it',
    model: 'claude-sonnet-5-5',
    systemPrompt: 'you are a test',
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    pipeline: deps,
    permissionMode: 'default',
    cwd: '/repo',
    maxTurns: options.maxTurns,
    events: (event) => events.push(event),
  });
  return { result, events, log, requests: server.requests };
}

function toolResultsOf(body: unknown): ToolResultBlock[] {
  const messages = (body as { messages: Message[] }).messages;
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user' || typeof last.content === 'string') return [];
  return last.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('runAgent', () => {
  it('ends with the model text when the model answers without tools', async () => {
    const { result, events } = await run([[{ type: 'text', text: 'All done.' }]]);
    expect(result).toMatchObject({
      subtype: 'success',
      isError: false,
      result: 'All done.',
      numTurns: 1,
    });
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    expect(result.totalCostUsd).toBeGreaterThan(0);
    expect(Object.keys(result.modelUsage)).toEqual(['claude-sonnet-5-5']);
    expect(events.map((event) => event.type)).toEqual([
      'session-start',
      'assistant-message',
      'result',
    ]);
    expect(events.filter((event) => event.type === 'tool-result')).toEqual([]);
  });

  it('sends all tool results of a turn in one user message, in tool_use order', async () => {
    const { result, requests } = await run([
      [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { id: 'a', auto: true } },
        { type: 'tool_use', id: 'toolu_b', name: 'Read', input: { id: 'b', auto: true } },
        { type: 'tool_use', id: 'toolu_c', name: 'Nope', input: {} },
      ],
      [{ type: 'text', text: 'Done.' }],
    ]);
    expect(result.subtype).toBe('success');
    expect(requests).toHaveLength(2);
    const results = toolResultsOf(requests[1]?.body);
    expect(results.map((block) => block.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
    expect(results.map((block) => block.is_error)).toEqual([false, false, true]);
    const sent = (requests[1]?.body as { messages: Message[] }).messages;
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('starts a tool while the model is still streaming the rest of its message', async () => {
    const pause = createPause();
    server = undefined;
    const turn: ReplayScriptEntry = {
      content: [
        { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { id: 'a', auto: true } },
        { type: 'text', text: 'still talking' },
      ],
      pauseAfter: { event: 'content_block_stop', blockIndex: 0, handle: pause },
    };
    const log = makeCallLog();
    server = await startReplayServer({ turns: [turn, [{ type: 'text', text: 'ok' }]] });
    const { deps } = makePipeline([controlledTool('Read', true, log)]);
    const running = runAgent({
      prompt: 'p',
      model: 'claude-sonnet-5-5',
      systemPrompt: 's',
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      pipeline: deps,
      permissionMode: 'default',
      cwd: '/repo',
      events: () => undefined,
    });
    await pause.reached;
    await log.started('a');
    expect(pause.isReleased).toBe(false);
    expect(log.events).toContain('start:a');
    pause.release();
    const result = await running;
    expect(result.subtype).toBe('success');
  });

  it('stops before asking the model again once max turns is reached, after running that turn’s tools', async () => {
    const loop = { type: 'tool_use' as const, name: 'Read', input: { id: 'x', auto: true } };
    const { result, log, requests } = await run(
      [[{ ...loop, id: 'toolu_1' }], [{ ...loop, id: 'toolu_2' }], [{ ...loop, id: 'toolu_3' }]],
      { maxTurns: 2 },
    );
    expect(result).toMatchObject({ subtype: 'error_max_turns', isError: true, numTurns: 2 });
    expect(result.errors).toEqual(['Reached max turns (2)']);
    expect(requests).toHaveLength(2);
    expect(log.events.filter((event) => event.startsWith('end:'))).toHaveLength(2);
  });

  it('records every denial with its rule in permission_denials', async () => {
    const { result } = await run(
      [
        [{ type: 'tool_use', id: 'toolu_e', name: 'Edit', input: { id: 'e', auto: true } }],
        [{ type: 'text', text: 'I could not edit.' }],
      ],
      { policy: { mode: 'default', deny: [parseRule('Edit', '--disallowedTools')] } },
    );
    expect(result.permissionDenials).toEqual([
      {
        tool_name: 'Edit',
        tool_use_id: 'toolu_e',
        tool_input: { id: 'e', auto: true },
        reason: "denied by rule 'Edit' (--disallowedTools)",
        rules: ['Edit'],
        // How to allow it (docs/DECISIONS.md #22): this tool has no path, so a rule by its name.
        suggestion: {
          allowable: true,
          text: 'remove the deny rule "Edit" given with --disallowedTools and add "Edit" to permissions.allow in .claude/settings.json',
          add_rules: ['Edit'],
          file: '.claude/settings.json',
          remove_rules: [{ rule: 'Edit', list: 'deny', source: '--disallowedTools' }],
          on_ask: null,
        },
      },
    ]);
  });

  it('ends with an execution error when the stream fails for good, and every started tool gets a result', async () => {
    const { result, events } = await run(
      [
        [
          { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { id: 'a', auto: true } },
          {
            type: 'text',
            text: 'never finished, because the connection drops in the middle of this',
          },
        ],
      ],
      {
        server: {
          faults: {
            0: { kind: 'error-event', afterEvents: 9, errorType: 'invalid_request_error' },
          },
        },
      },
    );
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors[0]).toContain('invalid_request_error');
    expect(server?.requests).toHaveLength(1);
    expect(server?.requests[0]?.sentEvents).toContain('content_block_stop');
    const toolResults = events.filter((event) => event.type === 'tool-result');
    expect(toolResults).toHaveLength(1);
  });

  it('fails with a clear error when the API key is rejected', async () => {
    server = await startReplayServer({ turns: [], apiKey: 'right' });
    const { deps } = makePipeline([]);
    const result = await runAgent({
      prompt: 'p',
      model: 'claude-sonnet-5-5',
      systemPrompt: 's',
      modelClient: createAnthropicClient({ apiKey: 'wrong', baseURL: server.url }),
      pipeline: deps,
      permissionMode: 'default',
      cwd: '/repo',
      events: () => undefined,
    });
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors[0]).toMatch(/ANTHROPIC_API_KEY/);
  });
});

describe('runAgent with session hooks', () => {
  async function runWithHooks(
    turns: ReplayScriptEntry[],
    sessionHooks: SessionHookRunner,
    extra: { maxBudgetUsd?: number } = {},
  ) {
    server = await startReplayServer({ turns });
    const { deps } = makePipeline([]);
    const result = await runAgent({
      prompt: 'make the tests pass',
      model: 'claude-sonnet-5-5',
      systemPrompt: 's',
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      pipeline: deps,
      permissionMode: 'default',
      cwd: '/repo',
      sessionHooks,
      events: () => undefined,
      ...extra,
    });
    return { result, requests: server.requests };
  }
  const text = (value: string): ReplayScriptEntry => [{ type: 'text', text: value }];

  it('sends the model back to work with the Stop hook reason, and says stop_hook_active next time', async () => {
    const seen: boolean[] = [];
    const hooks: SessionHookRunner = {
      ...noHooks,
      has: (event) => event === 'Stop',
      stop: async (request) => {
        seen.push(request.stopHookActive);
        return seen.length === 1
          ? {
              continueWith: { reason: 'npm test still fails: fix it' },
              systemMessages: [],
              runs: [],
            }
          : { systemMessages: [], runs: [] };
      },
    };
    const { result, requests } = await runWithHooks([text('done?'), text('now done')], hooks);
    expect(result).toMatchObject({ subtype: 'success', result: 'now done', numTurns: 2 });
    expect(seen).toEqual([false, true]);
    const second = (requests[1]?.body as { messages: Message[] }).messages;
    expect(second[second.length - 1]).toEqual({
      role: 'user',
      content: 'npm test still fails: fix it',
    });
  });

  it('gives up with an error when the Stop hook keeps refusing', async () => {
    const hooks: SessionHookRunner = {
      ...noHooks,
      has: (event) => event === 'Stop',
      stop: async () => ({ continueWith: { reason: 'not yet' }, systemMessages: [], runs: [] }),
    };
    const { result, requests } = await runWithHooks(
      Array.from({ length: 12 }, (_, index) => text(`try ${index}`)),
      hooks,
    );
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors[0]).toContain('after 8 attempts: not yet');
    expect(requests).toHaveLength(9);
  });

  it('adds SessionStart and UserPromptSubmit context to the prompt', async () => {
    const hooks: SessionHookRunner = {
      ...noHooks,
      has: (event) => event === 'SessionStart' || event === 'UserPromptSubmit',
      sessionStart: async () => ({
        additionalContext: ['branch policy: small PRs'],
        systemMessages: [],
        runs: [],
      }),
      userPromptSubmit: async () => ({
        additionalContext: ['ticket ABC-1'],
        systemMessages: [],
        runs: [],
      }),
    };
    const { requests } = await runWithHooks([text('ok')], hooks);
    const first = (requests[0]?.body as { messages: Message[] }).messages[0];
    expect(first).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'make the tests pass' },
        { type: 'text', text: '<system-reminder>branch policy: small PRs</system-reminder>' },
        { type: 'text', text: '<system-reminder>ticket ABC-1</system-reminder>' },
      ],
    });
  });

  it('does not send a prompt a UserPromptSubmit hook blocks', async () => {
    const hooks: SessionHookRunner = {
      ...noHooks,
      has: (event) => event === 'UserPromptSubmit',
      userPromptSubmit: async () => ({
        additionalContext: [],
        block: { reason: 'prompts may not mention secrets' },
        systemMessages: [],
        runs: [],
      }),
    };
    const { result, requests } = await runWithHooks([text('ok')], hooks);
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors[0]).toContain('prompts may not mention secrets');
    expect(requests).toHaveLength(0);
  });

  it('stops before the next request once the budget is spent', async () => {
    const loopTurn: ReplayScriptEntry = {
      content: [{ type: 'tool_use', id: 'toolu_x', name: 'Nope', input: {} }],
      usage: { input_tokens: 1_000_000 },
    };
    const { result, requests } = await runWithHooks([loopTurn, loopTurn, text('never')], noHooks, {
      maxBudgetUsd: 1,
    });
    expect(result.subtype).toBe('error_max_budget_usd');
    expect(result.errors[0]).toMatch(/Reached the budget: \$\d+\.\d{4} spent, the limit is \$1/);
    expect(requests).toHaveLength(1);
  });
});
