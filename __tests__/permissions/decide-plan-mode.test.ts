/**
 * Plan mode over the real tools' own declarations: every call that can change something is
 * refused, whatever else would allow it, and read-only calls go on as in default mode.
 */
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import type { Tool } from '../../src/tools/tool.js';
import { defineTool } from '../../src/tools/tool.js';

const workspace = makeWorkspace('ci-agent-plan-decide-');
afterAll(() => workspace.cleanup());
const context = makeContext(workspace);
const file = workspace.path('a.txt');

/** An MCP tool as the MCP adapter declares it: `other` access, read-only as its server says. */
function mcpTool(readOnly: boolean): Tool {
  return defineTool({
    name: readOnly ? 'mcp__docs__search' : 'mcp__tracker__create_issue',
    description: 'an MCP tool',
    internalInputSchema: z.object({}),
    isReadOnly: () => readOnly,
    checkPermissions: () => ({ access: 'other' }),
    async *call() {
      return { data: null };
    },
    mapToolResultToToolResultBlockParam: (_output, id) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: '',
    }),
  });
}

function builtin(name: string): Tool {
  const tool = builtinTools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return tool;
}

/** The request the pipeline would build for this call. */
function requestFor(tool: Tool, input: unknown): DecisionRequest {
  const parsed: unknown = tool.inputSchema.parse(input);
  return {
    toolName: tool.name,
    aliases: tool.aliases,
    request: tool.checkPermissions(parsed, context),
    projectDir: workspace.root,
    readOnly: tool.isReadOnly(parsed),
    requiresUserInteraction: tool.requiresUserInteraction(),
  };
}

function policy(overrides: Partial<PermissionPolicy> = {}): PermissionPolicy {
  return {
    mode: 'plan',
    allow: [],
    deny: [],
    ask: [],
    askDefault: 'deny',
    workspaceRoots: [workspace.root],
    ...overrides,
  };
}

const todo = { content: 'a', status: 'pending', activeForm: 'A-ing' };
const changes: Array<[string, DecisionRequest]> = [
  ['Bash npm install', requestFor(builtin('Bash'), { command: 'npm install' })],
  ['Bash with a redirection', requestFor(builtin('Bash'), { command: 'echo x > a.txt' })],
  ['Bash rm', requestFor(builtin('Bash'), { command: 'rm -rf build' })],
  ['Write', requestFor(builtin('Write'), { file_path: file, content: 'x' })],
  ['Edit', requestFor(builtin('Edit'), { file_path: file, old_string: 'a', new_string: 'b' })],
  [
    'NotebookEdit',
    requestFor(builtin('NotebookEdit'), {
      notebook_path: workspace.path('a.ipynb'),
      cell_id: 'c',
      new_source: 'x',
    }),
  ],
  ['an MCP tool', requestFor(mcpTool(false), {})],
];
const readOnly: Array<[string, DecisionRequest]> = [
  ['Read', requestFor(builtin('Read'), { file_path: file })],
  ['Glob', requestFor(builtin('Glob'), { pattern: '*.ts' })],
  ['Grep', requestFor(builtin('Grep'), { pattern: 'x' })],
  ['Bash git status', requestFor(builtin('Bash'), { command: 'git status' })],
  ['Bash ls', requestFor(builtin('Bash'), { command: 'ls -la' })],
  ['TodoWrite', requestFor(builtin('TodoWrite'), { todos: [todo] })],
  ['a read-only MCP tool', requestFor(mcpTool(true), {})],
];
const exitPlan = requestFor(builtin('ExitPlanMode'), { plan: 'p' });

describe('decide', () => {
  describe('when the session is in plan mode', () => {
    it.each(changes)('refuses %s', (_name, request) => {
      const decision = decide(request, policy());
      expect(decision).toMatchObject({ behavior: 'deny', source: 'mode', askResolved: false });
      expect(decision.reason).toBe(
        `plan mode is read-only and ${request.toolName} could change something; present your plan with ExitPlanMode, changes can be made once it is approved`,
      );
    });

    it.each(readOnly)('allows %s without asking', (_name, request) => {
      expect(decide(request, policy())).toMatchObject({
        behavior: 'allow',
        source: 'default',
        askResolved: false,
      });
    });

    it.each(changes)(
      'refuses %s even when an allow rule, a hook allow or an ask resolved to allow would let it through',
      (_name, request) => {
        const everything = parseRule('*', 'policy');
        const named = parseRule(request.toolName, 'policy');
        const lenient = policy({ allow: [named], ask: [everything], askDefault: 'allow' });
        expect(decide(request, lenient).source).toBe('mode');
        const hookAllow = { ...request, hook: { behavior: 'allow' as const, source: 'ok.sh' } };
        expect(decide(hookAllow, policy({ allow: [named] })).source).toBe('mode');
      },
    );

    it('still names the deny rule when one matches a change', () => {
      const request = changes[3]![1];
      const decision = decide(request, policy({ deny: [parseRule('Write', 'policy')] }));
      expect(decision).toMatchObject({ behavior: 'deny', source: 'deny-rule' });
    });

    it('still refuses a read-only call that an ask rule catches, by the ask default', () => {
      const decision = decide(readOnly[0]![1], policy({ ask: [parseRule('Read', 'policy')] }));
      expect(decision).toMatchObject({ behavior: 'deny', source: 'ask-rule', askResolved: true });
    });
  });

  describe('when the model asks to leave plan mode', () => {
    it('asks, and the policy default (deny) answers', () => {
      expect(decide(exitPlan, policy())).toMatchObject({
        behavior: 'deny',
        source: 'user-interaction',
        askResolved: true,
      });
    });

    it("allows it when the policy's ask answer for ExitPlanMode is allow", () => {
      const decision = decide(exitPlan, policy({ askDefaultByTool: { ExitPlanMode: 'allow' } }));
      expect(decision).toMatchObject({ behavior: 'allow', askResolved: true });
      expect(decision.reason).toContain(
        "the policy's `permissions.onAsk.tools.ExitPlanMode: allow` allows it",
      );
    });

    it('refuses it when a deny rule names it, whatever the ask answer', () => {
      const decision = decide(
        exitPlan,
        policy({ deny: [parseRule('ExitPlanMode', 'policy')], askDefault: 'allow' }),
      );
      expect(decision).toMatchObject({ behavior: 'deny', source: 'deny-rule' });
    });
  });

  describe('when the session has left plan mode', () => {
    it.each(changes.filter(([name]) => ['Write', 'Edit', 'NotebookEdit'].includes(name)))(
      'lets acceptEdits allow %s inside the workspace',
      (_name, request) => {
        expect(decide(request, policy({ mode: 'acceptEdits' }))).toMatchObject({
          behavior: 'allow',
          source: 'mode',
        });
      },
    );
  });
});
