import { mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import {
  ignoreMatch,
  loadLayer,
  loadLayerChain,
} from '../../../../src/tools/builtin/search/ignore-layers.js';

describe('loadLayerChain', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('stacks the ignore files of every directory above the searched one', async () => {
    await mkdir(workspace.path('.git'));
    await workspace.write('.gitignore', '*.tmp\n');
    await workspace.write('a/.ignore', 'secret\n');
    await mkdir(workspace.path('a/b'));
    const layer = await loadLayerChain(workspace.path('a/b'));
    expect(ignoreMatch(layer, workspace.path('a/b/x.tmp'), false)).toBe('ignore');
    expect(ignoreMatch(layer, workspace.path('a/b/secret'), false)).toBe('ignore');
    expect(ignoreMatch(layer, workspace.path('a/b/keep'), false)).toBe('none');
  });

  it('applies the global excludes file only inside a repository', async () => {
    const excludes = await workspace.write('config/git/ignore', '*.swp\n');
    await mkdir(workspace.path('plain'));
    await mkdir(workspace.path('repo/.git'), { recursive: true });
    const plain = await loadLayerChain(workspace.path('plain'), excludes);
    const repo = await loadLayerChain(workspace.path('repo'), excludes);
    expect(ignoreMatch(plain, workspace.path('plain/a.swp'), false)).toBe('none');
    expect(ignoreMatch(repo, workspace.path('repo/a.swp'), false)).toBe('ignore');
  });

  it('goes without a global excludes file that does not exist', async () => {
    await mkdir(workspace.path('.git'));
    const layer = await loadLayerChain(workspace.root, workspace.path('nowhere/ignore'));
    expect(layer.empty).toBe(true);
    expect(ignoreMatch(layer, workspace.path('a.swp'), false)).toBe('none');
  });
});

describe('loadLayer', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('reads only the files the listing names', async () => {
    await workspace.write('.gitignore', 'a\n');
    const unlisted = await loadLayer(workspace.root, undefined, new Set());
    const listed = await loadLayer(workspace.root, undefined, new Set(['.gitignore']));
    expect(unlisted.gitignore).toBeUndefined();
    expect(listed.gitignore).toBeDefined();
  });

  it('takes a .git file (a worktree) as a repository root without info/exclude', async () => {
    await workspace.write('.git', 'gitdir: /elsewhere\n');
    const layer = await loadLayer(workspace.root, undefined);
    expect(layer.hasGit).toBe(true);
    expect(layer.gitExclude).toBeUndefined();
  });
});
