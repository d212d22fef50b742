import { describe, expect, it } from 'vitest';
import { compileMatcher, matcherAccepts } from '../../src/hooks/matcher.js';

describe('compileMatcher', () => {
  it.each([undefined, '', '   ', '*'])('treats %j as matching everything', (matcher) => {
    expect(compileMatcher(matcher)).toEqual({ kind: 'all' });
  });

  it('splits exact names on | and , and trims them', () => {
    expect(compileMatcher(' Edit | Write,Read ,')).toEqual({
      kind: 'exact',
      names: new Set(['Edit', 'Write', 'Read']),
    });
  });

  it('compiles anything with other characters as a regex', () => {
    expect(compileMatcher('mcp__memory__.*').kind).toBe('regex');
  });

  it('reports an invalid regex instead of throwing', () => {
    const compiled = compileMatcher('Edit(');
    expect(compiled.kind).toBe('invalid');
    if (compiled.kind === 'invalid') expect(compiled.error).toMatch(/unterminated|group/i);
  });
});

describe('matcherAccepts', () => {
  it.each([
    // matcher, tool name, expected
    ['*', 'Bash', true],
    ['', 'mcp__github__create_issue', true],
    ['Bash', 'Bash', true],
    ['Bash', 'BashOutput', false],
    ['bash', 'Bash', false],
    ['Edit|Write', 'Write', true],
    ['Edit|MultiEdit|Write', 'NotebookEdit', false],
    ['Edit, Write', 'Edit', true],
    ['Edit,Write', 'Read', false],
    ['Edit.*', 'NotebookEdit', true],
    ['Edit.*', 'Edit', true],
    ['^Edit$', 'NotebookEdit', false],
    ['Notebook', 'NotebookEdit', false],
    ['mcp__brave-search', 'mcp__brave-search', true],
    ['mcp__brave-search', 'mcp__brave-search__web_search', false],
    ['mcp__brave-search__.*', 'mcp__brave-search__web_search', true],
    ['mcp__memory', 'mcp__memory__create_entities', false],
    ['mcp__memory__.*', 'mcp__memory__create_entities', true],
    ['code-reviewer', 'code-reviewer', true],
    ['Task', 'Agent', true],
    ['Task|Bash', 'Agent', true],
    ['^Task$', 'Agent', true],
    ['Agent', 'Agent', true],
    ['Task', 'Bash', false],
    ['Agent', 'Task', false],
    ['Edit(', 'Edit(', false],
    ['[', 'Bash', false],
  ] as const)('matcher %j on %s → %s', (matcher, toolName, expected) => {
    expect(matcherAccepts(compileMatcher(matcher), toolName)).toBe(expected);
  });

  it('does not treat inherited object keys as former tool names', () => {
    expect(matcherAccepts(compileMatcher('Task'), 'constructor')).toBe(false);
  });
});
