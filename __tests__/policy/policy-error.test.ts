import { describe, expect, it } from 'vitest';
import { describeValue, formatPath, PolicyError } from '../../src/policy/policy-error.js';

describe('formatPath', () => {
  it.each([
    [['hooks', 'PreToolUse', 0, 'hooks', 1, 'timeout'], 'hooks.PreToolUse[0].hooks[1].timeout'],
    [['permissions', 'onAsk', 'tools', 'mcp__db-admin'], 'permissions.onAsk.tools.mcp__db-admin'],
    [['permissions', 'onAsk', 'tools', 'a.b'], 'permissions.onAsk.tools["a.b"]'],
    [[0, 'x'], '[0].x'],
    [[], ''],
  ])('writes %j as %s', (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });
});

describe('describeValue', () => {
  it.each([
    ['10s', '"10s"'],
    [-1, '-1'],
    [Infinity, 'Infinity'],
    [null, 'null'],
    [undefined, 'nothing'],
    [{ a: [1] }, '{"a":[1]}'],
    ['x'.repeat(100), `"${'x'.repeat(56)}...`],
  ])('shows %j as %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });

  it('describes a value that refers to itself without failing', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(describeValue(cycle)).toBe('a value that contains itself');
  });
});

describe('PolicyError', () => {
  it('puts one problem on each line: file, position, path, message', () => {
    const error = new PolicyError([
      { file: 'a.yml', path: ['limits', 'maxTurns'], line: 3, column: 13, message: 'bad' },
      { file: 'b.json', path: [], message: 'invalid JSON: x' },
    ]);
    expect(error.message).toBe('a.yml:3:13: limits.maxTurns: bad\nb.json: invalid JSON: x');
    expect(error.name).toBe('PolicyError');
  });

  it('shows the first ten problems and counts the rest', () => {
    const issues = Array.from({ length: 12 }, (_, index) => ({
      file: 'p.yml',
      path: [index],
      message: 'bad',
    }));
    const lines = new PolicyError(issues).message.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe('… and 2 more problems');
  });
});
