import { execaSync } from 'execa';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  gitRepositoryAt,
  isWorkspaceRepository,
} from '../../../../src/tools/builtin/bash/git-repository.js';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

describe('gitRepositoryAt', () => {
  let workspace: Workspace;
  let elsewhere: Workspace;

  beforeAll(() => {
    workspace = makeWorkspace('ci-agent-git-repo-');
    elsewhere = makeWorkspace('ci-agent-git-elsewhere-');
    execaSync('git', ['init', '-q', workspace.root]);
    execaSync('git', ['init', '-q', '--bare', elsewhere.path('bare.git')]);
    mkdirSync(workspace.path('src/deep'), { recursive: true });
    // A bare layout committed as ordinary files.
    mkdirSync(workspace.path('tools/refs'), { recursive: true });
    writeFileSync(workspace.path('tools/HEAD'), 'ref: refs/heads/main\n');
    // A nested repository.
    execaSync('git', ['init', '-q', workspace.path('vendor/lib')]);
    // A file named HEAD alone does not make a git dir.
    mkdirSync(workspace.path('docs'));
    writeFileSync(workspace.path('docs/HEAD'), 'notes\n');
    symlinkSync(elsewhere.path('bare.git'), workspace.path('linked'));
  });
  afterAll(() => {
    workspace.cleanup();
    elsewhere.cleanup();
  });

  // [where git starts, the repository the walk finds ('' for none)]
  const table: Array<[string, string]> = [
    ['.', '.git'],
    ['src/deep', '.git'],
    ['.git', '.git'],
    ['.git/refs', '.git'],
    ['docs', '.git'],
    ['tools', 'tools'],
    ['tools/refs', 'tools'],
    ['vendor/lib', 'vendor/lib/.git'],
  ];
  it.each(table)('from %s finds %s', (start, expected) => {
    expect(gitRepositoryAt(workspace.path(start))).toBe(workspace.path(expected));
  });

  it('finds a bare repository through a symlink at its real path', () => {
    expect(gitRepositoryAt(workspace.path('linked'))).toBe(elsewhere.path('bare.git'));
  });

  it('agrees with git where git finds a repository', () => {
    for (const start of ['.', 'src/deep', 'vendor/lib']) {
      const gitDir = execaSync('git', ['rev-parse', '--absolute-git-dir'], {
        cwd: workspace.path(start),
      }).stdout.trim();
      expect(gitRepositoryAt(workspace.path(start))).toBe(gitDir);
    }
  });

  describe('isWorkspaceRepository', () => {
    it.each([
      ['.', true],
      ['src/deep', true],
      ['docs', true],
      ['tools', false],
      ['vendor/lib', false],
      ['linked', false],
    ])('from %s: %s', (start, expected) => {
      expect(isWorkspaceRepository(workspace.path(start), [workspace.root])).toBe(expected);
    });

    it('takes the repository of an additional directory as the workspace’s too', () => {
      const roots = [workspace.root, workspace.path('vendor/lib')];
      expect(isWorkspaceRepository(workspace.path('vendor/lib'), roots)).toBe(true);
    });

    it('allows a directory where git finds no repository at all', () => {
      expect(isWorkspaceRepository(elsewhere.root, [workspace.root])).toBe(true);
    });
  });
});
