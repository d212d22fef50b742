import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AgentEvent, PermissionDenial } from '../../src/agent/events.js';
import { createSubagentRunner, toolsFor } from '../../src/agent/subagent.js';
import type { SubagentRunnerOptions } from '../../src/agent/subagent.js';
import { noHooks } from '../../src/hooks/types.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { SpendMeter } from '../../src/model/spend-meter.js';
import type { ReplayScriptEntry, ReplayServer } from '../../testkit/replay-server.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import { findSubagentType } from '../../src/tools/builtin/agent.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/tool.js';
import type { SubagentRequest } from '../../src/tools/tool.js';
import { makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

const MODEL = 'claude-sonnet-5-5';
const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

interface Setup {
  run: (request?: Partial<SubagentRequest>) => ReturnType<ReturnType<typeof createSubagentRunner>>;
  events: AgentEvent[];
  meter: SpendMeter;
  denials: PermissionDenial[];
  parentShell: { cwd: string };
}

async function setUp(
  turns: ReplayScriptEntry[],
  overrides: Partial<SubagentRunnerOptions> = {},
): Promise<Setup> {
  workspace ??= makeWorkspace('ci-agent-subagent-');
  const root = workspace.root;
  server = await startReplayServer({ apiKey: 'sk-test', turns });
  const events: AgentEvent[] = [];
  const meter = overrides.meter ?? new SpendMeter();
  const denials: PermissionDenial[] = [];
  const parentShell = { cwd: root };
  const base = workspace;
  const runner = createSubagentRunner({
    model: MODEL,
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    retry: false,
    policy: {
      mode: 'bypassPermissions',
      allow: [],
      deny: [],
      ask: [],
      askDefault: 'deny',
      workspaceRoots: [root],
    },
    registry: new ToolRegistry(builtinTools),
    hooksFor: () => noHooks,
    // A session's context: its ports included, which the runner must not pass on.
    makeContext: (toolUseId, signal, own) => ({
      ...makeContext(base, { toolUseId, signal }),
      shell: own.shell,
      fileState: own.fileState,
      runSubagent: () => Promise.reject(new Error('a subagent started another')),
    }),
    systemPrompt: (names, instructions) => `Tools: ${names.join(', ')}\n\n${instructions}`,
    shellCwd: () => parentShell.cwd,
    cwd: root,
    events: (event) => events.push(event),
    meter,
    permissionDenials: denials,
    ...overrides,
  });
  return {
    run: (request = {}) =>
      runner({
        description: 'Look around',
        prompt: 'Find the config file and report its path.',
        subagentType: 'general-purpose',
        toolUseId: 'toolu_agent',
        signal: new AbortController().signal,
        ...request,
      }),
    events,
    meter,
    denials,
    parentShell,
  };
}

function bodyOf(index: number): { system: string; messages: Message[]; tools: { name: string }[] } {
  const body = server?.requests[index]?.body as {
    system: { text: string }[];
    messages: Message[];
    tools: { name: string }[];
  };
  return { ...body, system: body.system.map((block) => block.text).join('\n') };
}

function resultsSentIn(index: number): ToolResultBlock[] {
  const messages = bodyOf(index).messages;
  const last = messages[messages.length - 1];
  if (!last || typeof last.content === 'string') return [];
  return last.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

const text = (block: ToolResultBlock | undefined) =>
  typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content);

describe('createSubagentRunner', () => {
  describe('when a general-purpose agent works and finishes', () => {
    it('asks with a fresh conversation, its own system prompt and every tool but Agent, ExitPlanMode and TodoWrite', async () => {
      const { run } = await setUp([[{ type: 'text', text: 'It is config.yml.' }]]);
      await run();
      const body = bodyOf(0);
      expect(body.messages).toEqual([
        { role: 'user', content: 'Find the config file and report its path.' },
      ]);
      expect(body.system).toContain('# You are a subagent');
      expect(body.tools.map((tool) => tool.name)).toEqual([
        'Bash',
        'Edit',
        'Glob',
        'Grep',
        'NotebookEdit',
        'Read',
        'WebFetch',
        'Write',
      ]);
    });

    it('returns its final text, turns, tool uses and usage, and adds its spend to the session', async () => {
      const setup = await setUp([
        {
          content: [{ type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } }],
          usage: usage(1000, 50),
        },
        { content: [{ type: 'text', text: 'It is config.yml.' }], usage: usage(2000, 30) },
      ]);
      setup.meter.add({ role: 'turn' }, MODEL, usage(500, 5));
      const run = await setup.run();
      expect(run).toMatchObject({
        subtype: 'success',
        isError: false,
        text: 'It is config.yml.',
        errors: [],
        numTurns: 2,
        toolUseCount: 1,
        usage: usage(3000, 80),
      });
      expect(run.agentId).toMatch(/^a[0-9a-f]{16}$/);
      expect(setup.meter.summary().usage).toEqual(usage(3500, 85));
      expect(setup.meter.spentUsd).toBeCloseTo(run.totalCostUsd + (500 * 2 + 5 * 10) / 1e6, 12);
    });

    it('files every event under the Agent call, with its agent id and type', async () => {
      const setup = await setUp([[{ type: 'text', text: 'Done.' }]]);
      const run = await setup.run();
      expect(setup.events.length).toBeGreaterThan(2);
      for (const event of setup.events) {
        expect(event).toMatchObject({
          type: 'subagent-event',
          parentToolUseId: 'toolu_agent',
          agentId: run.agentId,
          agentType: 'general-purpose',
        });
      }
      const inner = setup.events.map((event) =>
        event.type === 'subagent-event' ? event.event.type : event.type,
      );
      expect(inner[0]).toBe('session-start');
      expect(inner[inner.length - 1]).toBe('result');
    });

    it('keeps its own Bash cwd, starting where the parent is, and leaves the parent’s alone', async () => {
      workspace = makeWorkspace('ci-agent-subagent-');
      await mkdir(workspace.path('sub'));
      const setup = await setUp([
        [{ type: 'tool_use', id: 'toolu_pwd1', name: 'Bash', input: { command: 'pwd' } }],
        [{ type: 'tool_use', id: 'toolu_cd', name: 'Bash', input: { command: 'cd ..' } }],
        [{ type: 'tool_use', id: 'toolu_pwd2', name: 'Bash', input: { command: 'pwd' } }],
        [{ type: 'text', text: 'Done.' }],
      ]);
      setup.parentShell.cwd = workspace.path('sub');
      await setup.run();
      expect(text(resultsSentIn(1)[0])).toBe(workspace.path('sub'));
      expect(text(resultsSentIn(3)[0])).toBe(workspace.root);
      expect(setup.parentShell.cwd).toBe(workspace.path('sub'));
    });

    it('never hands its calls a way to start another agent', async () => {
      const probe = defineTool({
        name: 'Probe',
        description: 'Says whether the call could start a subagent.',
        internalInputSchema: z.object({}),
        checkPermissions: () => ({ access: 'read' }),
        isReadOnly: () => true,
        async *call(_input, context) {
          return { data: context.runSubagent === undefined ? 'no port' : 'port' };
        },
        mapToolResultToToolResultBlockParam: (data, id) => ({
          type: 'tool_result',
          tool_use_id: id,
          content: data,
        }),
      });
      const setup = await setUp(
        [
          [{ type: 'tool_use', id: 'toolu_p', name: 'Probe', input: {} }],
          [{ type: 'text', text: 'ok' }],
        ],
        { registry: new ToolRegistry([...builtinTools, probe]) },
      );
      await setup.run();
      expect(resultsSentIn(1)).toMatchObject([{ tool_use_id: 'toolu_p', content: 'no port' }]);
    });
  });

  describe('when the policy denies one of its calls', () => {
    it('tells its model and adds the denial to the session', async () => {
      const setup = await setUp(
        [
          [{ type: 'tool_use', id: 'toolu_rm', name: 'Bash', input: { command: 'rm -rf build' } }],
          [{ type: 'text', text: 'I could not clean.' }],
        ],
        {
          policy: {
            mode: 'bypassPermissions',
            allow: [],
            deny: [parseRule('Bash(rm:*)', '.github/ci-agent.yml')],
            ask: [],
            askDefault: 'deny',
            workspaceRoots: [],
          },
        },
      );
      const run = await setup.run();
      expect(text(resultsSentIn(1)[0])).toContain('Permission to use Bash was denied');
      expect(setup.denials).toMatchObject([{ tool_use_id: 'toolu_rm', rules: ['Bash(rm:*)'] }]);
      expect(run.subtype).toBe('success');
    });
  });

  describe('when it is an Explore agent', () => {
    it('offers only tools that can read, and refuses a call that would change something', async () => {
      const setup = await setUp([
        [
          {
            type: 'tool_use',
            id: 'toolu_touch',
            name: 'Bash',
            input: { command: 'touch made-by-explore' },
          },
          { type: 'tool_use', id: 'toolu_ls', name: 'Bash', input: { command: 'ls' } },
        ],
        [{ type: 'text', text: 'Nothing to see.' }],
      ]);
      await workspace!.write('seen.txt', 'x');
      await setup.run({ subagentType: 'Explore' });
      expect(bodyOf(0).tools.map((tool) => tool.name)).toEqual(['Bash', 'Glob', 'Grep', 'Read']);
      expect(bodyOf(0).system).toContain('# Read-only');
      const [touch, ls] = resultsSentIn(1);
      expect(touch?.is_error).toBe(true);
      expect(text(touch)).toContain(
        'The Explore agent is read-only: this Bash call could change something or send data out, so it was not run.',
      );
      expect(existsSync(workspace!.path('made-by-explore'))).toBe(false);
      expect(ls?.is_error).toBeUndefined();
      expect(text(ls)).toContain('seen.txt');
    });
  });

  describe('when it reaches its turn cap', () => {
    it('ends as error_max_turns with what it wrote so far', async () => {
      const setup = await setUp(
        [
          [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } },
          ],
        ],
        { maxTurns: 1 },
      );
      const run = await setup.run();
      expect(run).toMatchObject({
        subtype: 'error_max_turns',
        isError: true,
        text: 'Looking.',
        errors: ['Reached max turns (1)'],
      });
      expect(server?.requests).toHaveLength(1);
    });
  });

  describe("when the run's budget is already spent", () => {
    it('starts nothing and says why', async () => {
      const setup = await setUp([[{ type: 'text', text: 'never asked' }]], {
        meter: new SpendMeter({ limitUsd: 0.001 }),
      });
      setup.meter.add({ role: 'turn' }, MODEL, usage(1000, 0));
      const run = await setup.run();
      expect(run).toMatchObject({
        subtype: 'error_max_budget_usd',
        isError: true,
        errors: ["the run's budget ($0.001) is spent; no subagent can start"],
        numTurns: 0,
      });
      expect(server?.requests).toHaveLength(0);
    });
  });

  describe('when what is left of the budget runs out', () => {
    it('stops before the turn that would pass it', async () => {
      const setup = await setUp(
        [
          {
            content: [{ type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } }],
            usage: usage(10_000, 100),
          },
          [{ type: 'text', text: 'never asked' }],
        ],
        { meter: new SpendMeter({ limitUsd: 0.06 }) },
      );
      setup.meter.add({ role: 'turn' }, MODEL, usage(5_000, 0));
      const run = await setup.run();
      expect(run.subtype).toBe('error_max_budget_usd');
      // The first request's worst case fitted what was left; the second one's did not.
      expect(run.errors[0]).toMatch(
        /the next request \(subagent general-purpose a[0-9a-f]{16}\) was not sent/,
      );
      expect(server?.requests).toHaveLength(1);
      expect(setup.meter.spentUsd).toBeLessThanOrEqual(0.06);
    });
  });

  describe('when the Agent call is aborted', () => {
    it('stops its stream and ends as interrupted', async () => {
      const pause = createPause();
      const setup = await setUp([
        {
          content: [{ type: 'text', text: 'Thinking about it' }],
          pauseAfter: { event: 'content_block_delta', handle: pause },
        },
      ]);
      const controller = new AbortController();
      const running = setup.run({ signal: controller.signal });
      await pause.reached;
      controller.abort(new Error('the run was cancelled'));
      const run = await running;
      pause.release();
      expect(run).toMatchObject({
        subtype: 'error_during_execution',
        isError: true,
        errors: ['the run was stopped: the run was cancelled'],
      });
    });
  });

  describe('when the type is unknown', () => {
    it('throws, naming it', async () => {
      const setup = await setUp([]);
      await expect(setup.run({ subagentType: 'Plan' })).rejects.toThrow(
        'unknown subagent type "Plan"',
      );
    });
  });
});

describe('toolsFor', () => {
  it('keeps the session order and leaves out what the type may not have', () => {
    const general = findSubagentType('general-purpose')!;
    const explore = findSubagentType('Explore')!;
    const names = (type: typeof general) => toolsFor(type, builtinTools).map((tool) => tool.name);
    expect(names(general)).not.toContain('Agent');
    expect(names(general)).toContain('Write');
    expect(names(explore)).toEqual(['Bash', 'Glob', 'Grep', 'Read']);
  });

  it('lets a read-only type validate read-only calls as the tool itself would', async () => {
    workspace = makeWorkspace('ci-agent-subagent-');
    const explore = findSubagentType('Explore')!;
    const read = toolsFor(explore, builtinTools).find((tool) => tool.name === 'Read')!;
    const missing = await read.validateInput(
      { file_path: workspace.path('nope.txt') },
      makeContext(workspace),
    );
    expect(missing).toMatchObject({ result: false });
    expect(missing.result === false && missing.message).toContain('does not exist');
  });
});
