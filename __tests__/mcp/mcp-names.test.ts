/**
 * MCP tool names in permission rules and hook matchers (docs/CC-COMPAT.md §1.3, §2.5): the existing
 * rule and matcher code applied to the names mcp-tool.ts gives, as flat truth tables.
 */
import { describe, expect, it } from 'vitest';
import { compileMatcher, matcherAccepts } from '../../src/hooks/matcher.js';
import { mcpToolName } from '../../src/mcp/mcp-tool.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule, ruleNamesTool } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';

const echo = mcpToolName('everything', 'echo');
const braveSearch = mcpToolName('brave-search', 'web_search');

describe('ruleNamesTool with mcp__ names', () => {
  it.each([
    ['mcp__everything__echo', 'allow', echo, true],
    ['mcp__everything', 'allow', echo, true],
    ['mcp__everything__*', 'allow', echo, true],
    ['mcp__everything__ec*', 'allow', echo, true],
    ['mcp__every', 'allow', echo, false],
    ['mcp__everything__echo2', 'allow', echo, false],
    ['mcp__*', 'allow', echo, false],
    ['mcp__*', 'deny', echo, true],
    ['*', 'deny', echo, true],
    ['mcp__brave-search', 'deny', braveSearch, true],
    ['mcp__brave', 'deny', braveSearch, false],
  ] as const)('%s as %s rule names %s: %s', (text, kind, tool, expected) => {
    expect(ruleNamesTool(parseRule(text, 'test'), tool, [], kind)).toBe(expected);
  });
});

describe('decide for an MCP tool', () => {
  const policy = (rules: Partial<PermissionPolicy>): PermissionPolicy => ({
    mode: 'default',
    allow: [],
    deny: [],
    ask: [],
    askDefault: 'deny',
    workspaceRoots: ['/repo'],
    ...rules,
  });
  const request = (readOnly = false, access: 'read' | 'other' = 'other') => ({
    toolName: echo,
    aliases: [],
    request: { access },
    readOnly,
    requiresUserInteraction: false,
    projectDir: '/repo',
  });
  const rule = (text: string) => parseRule(text, 'test');

  it.each([
    ['no rule (asks, which CI denies)', {}, request(), 'deny', 'default'],
    [
      'an allow rule for the tool',
      { allow: [rule('mcp__everything__echo')] },
      request(),
      'allow',
      'rule',
    ],
    [
      'an allow rule for the server',
      { allow: [rule('mcp__everything')] },
      request(),
      'allow',
      'rule',
    ],
    [
      'a server deny beside a tool allow',
      { allow: [rule('mcp__everything__echo')], deny: [rule('mcp__everything')] },
      request(),
      'deny',
      'rule',
    ],
    [
      'an ask rule beside an allow rule',
      { allow: [rule('mcp__everything')], ask: [rule('mcp__everything__echo')] },
      request(),
      'deny',
      'rule',
    ],
    ['bypassPermissions', { mode: 'bypassPermissions' as const }, request(), 'allow', 'mode'],
    ['a trusted read-only tool in the default mode', {}, request(true, 'read'), 'allow', 'default'],
    [
      'a trusted read-only tool in plan mode',
      { mode: 'plan' as const },
      request(true, 'read'),
      'allow',
      'default',
    ],
  ])('with %s: decides as expected', (_, rules, input, behavior, source) => {
    const decision = decide(input, policy(rules));
    expect(decision.behavior).toBe(behavior);
    expect(decision.source).toContain(source);
  });
});

describe('hook matchers with mcp__ names', () => {
  it.each([
    ['mcp__everything__echo', echo, true],
    ['mcp__everything__.*', echo, true],
    ['mcp__everything__echo|Bash', echo, true],
    ['mcp__.*__echo', echo, true],
    ['mcp__everything', echo, false],
    ['mcp__brave-search', braveSearch, false],
    ['mcp__brave-search__.*', braveSearch, true],
    ['Bash', echo, false],
    ['*', echo, true],
  ])('%s matches %s: %s', (matcher, tool, expected) => {
    expect(matcherAccepts(compileMatcher(matcher), tool)).toBe(expected);
  });
});
