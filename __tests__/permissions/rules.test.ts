import { describe, expect, it } from 'vitest';
import type { RuleTarget } from '../../src/permissions/rules.js';
import {
  allowRulesCovering,
  bashSpecifierMatches,
  parseRule,
  ruleMatches,
  ruleNamesTool,
  RuleSyntaxError,
  ruleWarning,
  splitRuleList,
} from '../../src/permissions/rules.js';

type Kind = 'allow' | 'deny' | 'ask';
const rule = (text: string) => parseRule(text, 'src');

describe('parseRule', () => {
  it.each([
    ['Read', { toolName: 'Read' }],
    ['Bash(*)', { toolName: 'Bash' }],
    ['Bash()', { toolName: 'Bash' }],
    ['Bash(npm test:*)', { toolName: 'Bash', content: 'npm test:*' }],
    ['  Edit(src/**)  ', { toolName: 'Edit', content: 'src/**', text: 'Edit(src/**)' }],
    ['mcp__github__create_issue', { toolName: 'mcp__github__create_issue' }],
    ['mcp__brave-search', { toolName: 'mcp__brave-search' }],
    ['*', { toolName: '*' }],
    ['mcp__*', { toolName: 'mcp__*' }],
    ['mcp__github__*', { toolName: 'mcp__github__*' }],
    ['WebFetch(domain:*.example.com)', { toolName: 'WebFetch', content: 'domain:*.example.com' }],
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
  it('compares a specifier with one command line, whitespace-normalised', () => {
    expect(bashSpecifierMatches('git status', '  git   status ')).toBe(true);
    expect(bashSpecifierMatches('ls *', 'lsof')).toBe(false);
  });
});

describe('ruleNamesTool', () => {
  // [rule, tool, aliases, kind, expected]
  const table: Array<[string, string, string[], Kind, boolean]> = [
    ['Read', 'Read', [], 'allow', true],
    ['Read', 'Edit', [], 'deny', false],
    ['Task', 'Agent', ['Task'], 'allow', true],
    ['Agent', 'Agent', ['Task'], 'deny', true],
    ['mcp__github', 'mcp__github__create_issue', [], 'allow', true],
    ['mcp__git', 'mcp__github__create_issue', [], 'allow', false],
    ['mcp__github__create_issue', 'mcp__github__create_issue', [], 'allow', true],
    ['mcp__github__create_issue', 'mcp__github__list_issues', [], 'allow', false],
    ['mcp__github__*', 'mcp__github__list_issues', [], 'allow', true],
    ['mcp__github__list_*', 'mcp__github__list_issues', [], 'allow', true],
    ['mcp__github__*', 'mcp__gitlab__list_issues', [], 'deny', false],
    ['mcp__*', 'mcp__github__list_issues', [], 'deny', true],
    ['mcp__*', 'mcp__github__list_issues', [], 'ask', true],
    ['mcp__*', 'mcp__github__list_issues', [], 'allow', false],
    ['mcp__*', 'Read', [], 'deny', false],
    ['*', 'Bash', [], 'deny', true],
    ['*', 'Bash', [], 'allow', false],
    ['mcp__gi*__x', 'mcp__github__x', [], 'allow', false],
    ['mcp__gi*__x', 'mcp__github__x', [], 'deny', true],
    ['T*', 'Agent', ['Task'], 'deny', true],
  ];
  it.each(table)('%s names %s (aliases %j) as %s → %s', (text, tool, aliases, kind, expected) => {
    expect(ruleNamesTool(rule(text), tool, aliases, kind)).toBe(expected);
  });
});

describe('ruleMatches', () => {
  const target = (toolName: string, ruleContent?: string, aliases: string[] = []): RuleTarget => ({
    toolName,
    aliases,
    request: { access: 'other', ...(ruleContent !== undefined ? { ruleContent } : {}) },
    projectDir: '/work/repo',
    homeDir: '/home/dev',
  });

  describe('when the rule names only a tool', () => {
    it.each([
      ['Bash', target('Bash', 'rm -rf /'), 'allow', true],
      ['Bash(*)', target('Bash', 'rm -rf /'), 'allow', true],
      ['Task', target('Agent', undefined, ['Task']), 'allow', true],
      ['mcp__github', target('mcp__github__create_issue'), 'deny', true],
      ['Write', target('Write', '/work/repo/a'), 'deny', true],
    ] as const)('%s against %o as %s → %s', (text, subject, kind, expected) => {
      expect(ruleMatches(rule(text), subject, kind)).toBe(expected);
    });
  });

  describe('when the specifier cannot be evaluated', () => {
    it.each([
      ['Agent(Explore)', 'allow', false],
      ['Agent(Explore)', 'deny', true],
      ['Agent(Explore)', 'ask', true],
    ] as const)(
      '%s as %s → %s without a subagent type (never allows, fails closed)',
      (text, kind, expected) => {
        expect(ruleMatches(rule(text), target('Agent', undefined, ['Task']), kind)).toBe(expected);
      },
    );
  });

  describe('when the tool is Agent', () => {
    it.each([
      ['Agent(Explore)', 'Explore', 'allow', true],
      ['Task(Explore)', 'Explore', 'deny', true],
      ['Agent(Explore)', 'general-purpose', 'deny', false],
      ['Agent(Explore)', 'general-purpose', 'allow', false],
      ['Agent(explore)', 'Explore', 'deny', false],
    ] as const)('%s against the type %s as %s → %s', (text, type, kind, expected) => {
      expect(ruleMatches(rule(text), target('Agent', type, ['Task']), kind)).toBe(expected);
    });
  });

  describe('when a path specifier is on a tool whose rules are never consulted', () => {
    it.each(['Write(.env)', 'NotebookEdit(*.ipynb)', 'Glob(src/**)'])(
      '%s matches nothing, even as a deny rule',
      (text) => {
        const toolName = text.slice(0, text.indexOf('('));
        for (const kind of ['allow', 'deny', 'ask'] as const) {
          expect(ruleMatches(rule(text), target(toolName, '/work/repo/.env'), kind)).toBe(false);
        }
      },
    );
  });

  describe('when the tool is WebFetch', () => {
    it.each([
      ['WebFetch(domain:example.com)', 'domain:EXAMPLE.com', 'allow', true],
      ['WebFetch(domain:example.com)', 'domain:api.example.com', 'allow', false],
      ['WebFetch(https://example.com)', 'domain:example.com', 'allow', false],
      ['WebFetch(https://example.com)', 'domain:example.com', 'deny', true],
    ] as const)('%s against %s as %s → %s', (text, content, kind, expected) => {
      expect(ruleMatches(rule(text), target('WebFetch', content), kind)).toBe(expected);
    });
  });

  it('parses the command from the request, not from the deprecated commandParts', () => {
    const subject: RuleTarget = {
      ...target('Bash', 'echo hi; rm -rf x'),
      commandParts: ['echo hi'],
    };
    expect(ruleMatches(rule('Bash(echo:*)'), subject, 'allow')).toBe(false);
    expect(ruleMatches(rule('Bash(rm:*)'), subject, 'deny')).toBe(true);
  });

  it('re-reads the command when the same target object changes', () => {
    const subject = target('Bash', 'echo hi');
    expect(ruleMatches(rule('Bash(echo:*)'), subject, 'allow')).toBe(true);
    subject.request = { access: 'execute', ruleContent: 'rm x' };
    expect(ruleMatches(rule('Bash(echo:*)'), subject, 'allow')).toBe(false);
  });
});

describe('allowRulesCovering', () => {
  const bash = (command: string): RuleTarget => ({
    toolName: 'Bash',
    aliases: [],
    request: { access: 'execute', ruleContent: command },
  });
  const rules = [rule('Bash(echo:*)'), rule('Bash(git status)'), rule('Read')];

  it('allows a compound command whose parts are each allowed by a different rule', () => {
    const covering = allowRulesCovering(rules, bash('echo x && git status'));
    expect(covering.map((item) => item.text)).toEqual(['Bash(echo:*)', 'Bash(git status)']);
  });

  it('allows nothing when one part is allowed by no rule', () => {
    expect(allowRulesCovering(rules, bash('echo x && git status && rm y'))).toEqual([]);
  });

  it('allows nothing for a command it cannot parse', () => {
    expect(allowRulesCovering(rules, bash('for x in a; do echo; done'))).toEqual([]);
  });

  it('returns the rules that match the whole call on their own', () => {
    const read: RuleTarget = { toolName: 'Read', aliases: [], request: { access: 'read' } };
    expect(allowRulesCovering(rules, read).map((item) => item.text)).toEqual(['Read']);
    expect(allowRulesCovering([rule('Bash'), ...rules], bash('x; y')).map((r) => r.text)).toEqual([
      'Bash',
    ]);
  });
});

describe('ruleWarning', () => {
  it.each([
    ['*', 'allow', /allow rule "\*" is ignored: .*mcp__<server>__/],
    ['mcp__*', 'allow', /is ignored/],
    ['Write(.env)', 'deny', /never consulted: .* write "Edit\(\.env\)" instead/],
    ['Glob(src/**)', 'allow', /write "Read\(src\/\*\*\)" instead/],
    [
      'WebFetch(https://x.dev)',
      'allow',
      /expected "WebFetch\(domain:<host>\)"; as written it allows nothing/,
    ],
    ['WebFetch(https://x.dev)', 'deny', /as written it denies every WebFetch call/],
  ] as const)('warns about %s as %s', (text, kind, message) => {
    expect(ruleWarning(parseRule(text, 'settings.json'), kind)).toMatch(message);
    expect(ruleWarning(parseRule(text, 'settings.json'), kind)).toMatch(/^settings\.json: /);
  });

  it.each([
    ['*', 'deny'],
    ['mcp__*', 'ask'],
    ['mcp__github__*', 'allow'],
    ['Write', 'deny'],
    ['Edit(src/**)', 'allow'],
    ['Bash(npm test:*)', 'allow'],
    ['WebFetch(domain:*.example.com)', 'allow'],
  ] as const)('says nothing about %s as %s', (text, kind) => {
    expect(ruleWarning(parseRule(text, 's'), kind)).toBeUndefined();
  });
});
