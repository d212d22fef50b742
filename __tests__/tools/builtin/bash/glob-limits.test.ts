/**
 * The permission check expands a command's globs before the command runs, on the main thread: a
 * pattern the model writes must not be able to stall it (issue 11, item 10).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashFileOperands } from '../../../../src/tools/builtin/bash/file-operands.js';
import { tooManyStars } from '../../../../src/tools/builtin/bash/glob-limits.js';
import { readScope } from '../../../../src/tools/builtin/bash/read-scope.js';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

describe('tooManyStars', () => {
  it.each([
    ['*.ts', false],
    ['src/**/*.test.ts', false],
    ['*a*b*c', false],
    ['*a*a*a*a*b', true],
    ['ok/*a*a*a*a*a*b/x', true],
  ])('%j → %s', (pattern, expected) => {
    expect(tooManyStars(pattern)).toBe(expected);
  });
});

describe('the permission check on a backtracking glob', () => {
  let workspace: Workspace;
  const command = 'cat *a*a*a*a*a*a*a*a*b';

  beforeAll(() => {
    workspace = makeWorkspace('ci-agent-glob-limits-');
    writeFileSync(workspace.path('a'.repeat(80)), 'x\n');
    writeFileSync(workspace.path('ab.txt'), 'x\n');
  });
  afterAll(() => workspace.cleanup());

  it('names the files a command writes without expanding the glob on disk', () => {
    const started = performance.now();
    const operands = bashFileOperands(`rm ${command.slice(4)}`, {
      cwd: workspace.root,
      homeDir: workspace.root,
      env: {},
    });
    expect(performance.now() - started).toBeLessThan(500);
    expect(operands).toEqual([
      expect.objectContaining({ path: `${workspace.root}/*a*a*a*a*a*a*a*a*b`, access: 'write' }),
    ]);
  });

  it('counts such a glob as read outside, so that it is not auto-allowed', () => {
    const started = performance.now();
    const scope = readScope(command, {
      cwd: workspace.root,
      homeDir: workspace.root,
      env: {},
      workspaceRoots: [workspace.root],
    });
    expect(performance.now() - started).toBeLessThan(500);
    expect(scope.outside.join('\n')).toContain('a glob with too many stars to check');
  });

  it('still expands an ordinary glob', () => {
    const operands = bashFileOperands('rm *b.txt', {
      cwd: workspace.root,
      homeDir: workspace.root,
      env: {},
    });
    expect(operands.map((operand) => operand.path)).toContain(`${workspace.root}/ab.txt`);
  });
});
