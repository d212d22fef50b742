import { mkdir, symlink } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { compileFileType } from '../../../../src/tools/builtin/search/file-types.js';
import { compileOverrides } from '../../../../src/tools/builtin/search/glob-patterns.js';
import { loadLayerChain } from '../../../../src/tools/builtin/search/ignore-layers.js';
import { walkFiles } from '../../../../src/tools/builtin/search/walk.js';

describe('walkFiles', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  async function walk(options: { globs?: string[]; type?: string; signal?: AbortSignal } = {}) {
    const result = await walkFiles({
      root: workspace.root,
      rootLayer: await loadLayerChain(workspace.root),
      overrides: compileOverrides(options.globs ?? []),
      fileType: options.type ? compileFileType(options.type) : undefined,
      signal: options.signal ?? new AbortController().signal,
    });
    return result.files.map((path) => path.slice(workspace.root.length + 1));
  }

  it('lists files depth first with each directory sorted by name', async () => {
    for (const path of ['b.txt', 'a.txt', 'a/z.txt', 'a-c.txt', 'sub/deep/x', '.hidden']) {
      await workspace.write(path, '');
    }
    expect(await walk()).toEqual(['.hidden', 'a/z.txt', 'a-c.txt', 'a.txt', 'b.txt', 'sub/deep/x']);
  });

  it('skips .git, symbolic links and ignored directories', async () => {
    await workspace.write('.git/HEAD', '');
    await workspace.write('.gitignore', 'build/\n');
    await workspace.write('build/out.js', '');
    await workspace.write('src/a.ts', '');
    await symlink(workspace.path('src'), workspace.path('link'));
    expect(await walk()).toEqual(['.gitignore', 'src/a.ts']);
  });

  it('applies globs and the type filter to files', async () => {
    for (const path of ['a.py', 'b.ts', 'sub/c.py', 'sub/d.md']) await workspace.write(path, '');
    expect(await walk({ type: 'py' })).toEqual(['a.py', 'sub/c.py']);
    expect(await walk({ globs: ['*.md'] })).toEqual(['sub/d.md']);
  });

  it('returns nothing once the signal has fired', async () => {
    await workspace.write('a.txt', '');
    const controller = new AbortController();
    controller.abort();
    expect(await walk({ signal: controller.signal })).toEqual([]);
  });

  it('leaves out and counts the files the caller excludes, after the other filters', async () => {
    for (const path of ['a.txt', '.env', 'sub/.env', 'sub/b.md']) await workspace.write(path, '');
    const result = await walkFiles({
      root: workspace.root,
      rootLayer: await loadLayerChain(workspace.root),
      overrides: compileOverrides(['!*.md']),
      fileType: undefined,
      signal: new AbortController().signal,
      exclude: (path) => path.endsWith('.env') || path.endsWith('.md'),
    });
    expect(result.files).toEqual([workspace.path('a.txt')]);
    expect(result.excluded).toBe(2);
  });

  it('counts a directory it cannot read', async () => {
    await mkdir(workspace.path('gone'));
    const result = await walkFiles({
      root: workspace.path('gone/missing'),
      rootLayer: await loadLayerChain(workspace.root),
      overrides: undefined,
      fileType: undefined,
      signal: new AbortController().signal,
    });
    expect(result).toEqual({ files: [], unreadable: 1 });
  });
});
