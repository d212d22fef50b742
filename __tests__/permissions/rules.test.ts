import { describe, expect, it } from 'vitest';
import type { RuleTarget } from '../../src/permissions/rules.js';
import {
  bashSpecifierMatches,
  parseRule,
  ruleMatches,
  RuleSyntaxError,
  splitRuleList,
} from '../../src/permissions/rules.js';

describe('parseRule', () => {
  it.each([
    ['Read', { toolName: 'Read' }],
    ['Bash(*)', { toolName: 'Bash' }],
    ['Bash()', { toolName: 'Bash' }],
    ['Bash(npm test:*)', { toolName: 'Bash', content: 'npm test:*' }],
    ['  Edit(src/**)  ', { toolName: 'Edit', content: 'src/**', text: 'Edit(src/**)' }],
    ['mcp__github__create_issue', { toolName: 'mcp__github__create_issue' }],
    ['mcp__brave-search', { toolName: 'mcp__brave-search' }],
  ])('parses %s', (text, expected) => {
    expect(parseRule(text, 'src')).toMatchObject({ source: 'src', ...expected });
  });

  it.each(['', '(x)', 'Bash(', '9lives', 'Read Write'])(
    'rejects %j naming the source and the form',
    (text) => {
      expect(() => parseRule(text, 'settings.json')).toThrow(RuleSyntaxError);
      expect(() => parseRule(text, 'settings.json')).toThrow(
        /settings\.json: invalid permission rule .*expected a tool name/,
      );
    },
  );
});

describe('splitRuleList', () => {
  it('splits on commas and spaces but not inside parentheses', () => {
    expect(
      splitRuleList(['Read,Grep', 'Bash(git log *) Edit', 'Bash(npm run test:*), Write']),
    ).toEqual(['Read', 'Grep', 'Bash(git log *)', 'Edit', 'Bash(npm run test:*)', 'Write']);
  });
});

describe('bashSpecifierMatches', () => {
  it.each([
    ['npm test', 'npm test', true],
    ['npm test', 'npm test --watch', false],
    ['npm test:*', 'npm test', true],
    ['npm test:*', 'npm test --watch', true],
    ['npm run test:*', 'npm run test:unit', false],
    ['ls *', 'lsof', false],
    ['ls *', 'ls -la', true],
    ['git status', '  git   status ', true],
  ])('%s vs %s → %s', (specifier, command, expected) => {
    expect(bashSpecifierMatches(specifier, command)).toBe(expected);
  });
});

describe('ruleMatches', () => {
  const bash = (parts: string[] | null): RuleTarget => ({
    toolName: 'Bash',
    aliases: [],
    request: { access: 'execute', ruleContent: parts?.join(' && ') ?? '???' },
    commandParts: parts,
  });

  it('matches a tool by its alias', () => {
    const target: RuleTarget = {
      toolName: 'Agent',
      aliases: ['Task'],
      request: { access: 'other' },
    };
    expect(ruleMatches(parseRule('Task', 's'), target, 'allow')).toBe(true);
  });

  it('matches every tool of an MCP server by its prefix, but not another server', () => {
    const target: RuleTarget = {
      toolName: 'mcp__github__create_issue',
      aliases: [],
      request: { access: 'other' },
    };
    expect(ruleMatches(parseRule('mcp__github', 's'), target, 'allow')).toBe(true);
    expect(ruleMatches(parseRule('mcp__git', 's'), target, 'allow')).toBe(false);
  });

  it('allows a compound command only when every part is allowed', () => {
    const rule = parseRule('Bash(echo:*)', 's');
    expect(ruleMatches(rule, bash(['echo hi', 'echo there']), 'allow')).toBe(true);
    expect(ruleMatches(rule, bash(['echo hi', 'rm -rf x']), 'allow')).toBe(false);
  });

  it('denies a compound command when any part is denied', () => {
    expect(ruleMatches(parseRule('Bash(rm:*)', 's'), bash(['echo hi', 'rm -rf x']), 'deny')).toBe(
      true,
    );
  });

  it('never allows an unparseable command by a prefix rule, and denies it conservatively', () => {
    expect(ruleMatches(parseRule('Bash(echo:*)', 's'), bash(null), 'allow')).toBe(false);
    expect(ruleMatches(parseRule('Bash(rm:*)', 's'), bash(null), 'deny')).toBe(true);
  });

  it('never allows through a specifier it cannot evaluate yet', () => {
    const target: RuleTarget = {
      toolName: 'Read',
      aliases: [],
      request: { access: 'read', ruleContent: '/x/.env' },
    };
    expect(ruleMatches(parseRule('Read(.env)', 's'), target, 'allow')).toBe(false);
  });
});
