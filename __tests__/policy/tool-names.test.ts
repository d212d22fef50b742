import { describe, expect, it } from 'vitest';
import { parseRule, ruleNamesTool } from '../../src/permissions/rules.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import {
  matcherToolProblem,
  mcpServerOf,
  ruleServerProblem,
  ruleToolProblem,
  TOOL_NAMES,
} from '../../src/policy/tool-names.js';

const rule = (text: string) => parseRule(text, 'test');

describe('TOOL_NAMES', () => {
  it('holds every built-in tool, every alias and WebSearch, and nothing else', () => {
    const expected = [
      ...builtinTools.flatMap((tool) => [tool.name, ...tool.aliases]),
      'WebSearch',
    ].sort();
    expect(TOOL_NAMES).toEqual(expected);
    expect(TOOL_NAMES).toEqual(expect.arrayContaining(['Agent', 'Task', 'Bash', 'WebFetch']));
  });
});

describe('ruleToolProblem', () => {
  it('reports what matching does: tool names are compared exactly, so "bash" never names Bash', () => {
    expect(ruleNamesTool(rule('bash'), 'Bash', [], 'deny')).toBe(false);
    expect(ruleNamesTool(rule('Task'), 'Agent', ['Task'], 'deny')).toBe(true);
  });

  describe('when the rule names a tool', () => {
    it.each([
      'Bash',
      'Bash(curl:*)',
      'Read(/.env)',
      'Edit(src/**)',
      'Write',
      'Glob',
      'Grep',
      'NotebookEdit',
      'TodoWrite',
      'ExitPlanMode',
      'WebFetch',
      'WebFetch(domain:example.com)',
      'WebSearch',
      'Agent',
      'Agent(Explore)',
      'Agent(general-purpose)',
      'Task',
      'Task(Explore)',
      'mcp__github',
      'mcp__github__create_issue',
      'mcp__db-admin__query',
      'mcp__github__*',
      'mcp__*',
      'mcp*',
      '*',
      'Web*',
      '*Fetch',
    ])('accepts %s in every kind of rule', (text) => {
      for (const kind of ['allow', 'deny', 'ask', 'if'] as const) {
        expect(ruleToolProblem(rule(text), kind)).toBeUndefined();
      }
    });
  });

  describe('when the rule names no tool', () => {
    it.each([
      [
        'bash(curl:*)',
        'deny',
        'deny rule "bash(curl:*)" names no tool ci-agent has, so it denies nothing: tool names are case-sensitive; did you mean "Bash(curl:*)"?',
      ],
      [
        'READ',
        'allow',
        'allow rule "READ" names no tool ci-agent has, so it allows nothing: tool names are case-sensitive; did you mean "Read"?',
      ],
      [
        'WebFech',
        'deny',
        'deny rule "WebFech" names no tool ci-agent has, so it denies nothing: did you mean "WebFetch"?',
      ],
      [
        'Shell(ls)',
        'ask',
        'ask rule "Shell(ls)" names no tool ci-agent has, so it asks about nothing: did you mean "Bash(ls)"?',
      ],
      [
        'Deploy',
        'deny',
        'deny rule "Deploy" names no tool ci-agent has, so it denies nothing: expected one of Agent, Bash, Edit, ExitPlanMode, Glob, Grep, NotebookEdit, Read, Task, TodoWrite, WebFetch, WebSearch, Write, or mcp__<server>[__<tool>]',
      ],
      [
        'MultiEdit',
        'deny',
        'deny rule "MultiEdit" names the Claude Code tool MultiEdit, which ci-agent does not have, so it denies nothing (Edit covers its edits); remove it',
      ],
      [
        'AskUserQuestion',
        'allow',
        'allow rule "AskUserQuestion" names the Claude Code tool AskUserQuestion, which ci-agent does not have, so it allows nothing (nobody can answer in CI); remove it',
      ],
      [
        'Agent(explore)',
        'deny',
        'deny rule "Agent(explore)" names no agent type, so it denies nothing: did you mean "Agent(Explore)"?',
      ],
      [
        'Task(model:opus)',
        'deny',
        'deny rule "Task(model:opus)" names no agent type, so it denies nothing: expected Task(<type>) with a type of general-purpose, Explore',
      ],
      [
        'mcp__',
        'deny',
        'deny rule "mcp__" names no MCP server, so it denies nothing: expected "mcp__<server>" or "mcp__<server>__<tool>"',
      ],
      ['bash*', 'deny', 'deny rule "bash*" matches no tool, so it denies nothing'],
      [
        'bash(git push:*)',
        'if',
        'the "if" rule "bash(git push:*)" names no tool ci-agent has, so the hook never runs: tool names are case-sensitive; did you mean "Bash(git push:*)"?',
      ],
    ] as const)('%s as a %s rule: %s', (text, kind, message) => {
      expect(ruleToolProblem(rule(text), kind)).toBe(message);
    });
  });
});

describe('matcherToolProblem', () => {
  it.each([
    'Bash',
    'Edit|Write',
    'Edit, Write',
    'Edit|MultiEdit|Write',
    'Task',
    'mcp__docs',
    '*',
    '',
    'Notebook.*',
    'bash.*',
  ])('accepts %j: every name can match, or it is a pattern', (matcher) => {
    expect(matcherToolProblem(matcher)).toBeUndefined();
  });

  it.each([
    [
      'bash',
      '"bash" names no tool ci-agent has, so the hook never runs: tool names are case-sensitive; did you mean "Bash"?',
    ],
    [
      'Edit|Writ',
      '"Writ" names no tool ci-agent has, so the hook never runs for it: did you mean "Write"?',
    ],
    [
      'Shell, Deploy',
      '"Shell" names no tool ci-agent has, so the hook never runs: did you mean "Bash"?; "Deploy" names no tool ci-agent has, so the hook never runs: expected one of Agent, Bash, Edit, ExitPlanMode, Glob, Grep, NotebookEdit, Read, Task, TodoWrite, WebFetch, WebSearch, Write, or mcp__<server>[__<tool>]',
    ],
  ])('reports the names in %j that match no tool', (matcher, message) => {
    expect(matcherToolProblem(matcher)).toBe(message);
  });
});

describe('mcpServerOf', () => {
  it.each([
    ['mcp__github', 'github'],
    ['mcp__github__create_issue', 'github'],
    ['mcp__github__*', 'github'],
    ['mcp__*', undefined],
    ['mcp__', undefined],
    ['Bash', undefined],
  ])('%s names the server %s', (name, server) => {
    expect(mcpServerOf(name)).toBe(server);
  });
});

describe('ruleServerProblem', () => {
  const servers = new Set(['docs', 'github']);

  it.each(['mcp__docs', 'mcp__github__create_issue', 'mcp__github__*', 'mcp__*', 'Bash'])(
    'accepts %s, which names a configured server or none',
    (text) => {
      expect(ruleServerProblem(rule(text), 'deny', servers)).toBeUndefined();
    },
  );

  it('warns about a server nothing configures, suggesting the one probably meant', () => {
    expect(ruleServerProblem(rule('mcp__Docs__search'), 'deny', servers)).toBe(
      'deny rule "mcp__Docs__search" names the MCP server "Docs", which neither .mcp.json nor the policy file configures, so it matches nothing unless --mcp-config adds it; did you mean "mcp__docs"?',
    );
    expect(ruleServerProblem(rule('mcp__jira'), 'allow', servers)).toBe(
      'allow rule "mcp__jira" names the MCP server "jira", which neither .mcp.json nor the policy file configures, so it matches nothing unless --mcp-config adds it',
    );
  });
});
