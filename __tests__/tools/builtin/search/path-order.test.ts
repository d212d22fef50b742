import { utimes } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import {
  comparePaths,
  sortByModificationTime,
} from '../../../../src/tools/builtin/search/path-order.js';

describe('comparePaths', () => {
  it('orders a directory before names that extend it, like rg --sort path', () => {
    const paths = ['/r/a.txt', '/r/sub/b.txt', '/r/a-c.txt', '/r/a/z.txt', '/r/a b'];
    expect([...paths].sort(comparePaths)).toEqual([
      '/r/a/z.txt',
      '/r/a b',
      '/r/a-c.txt',
      '/r/a.txt',
      '/r/sub/b.txt',
    ]);
  });

  it('puts a prefix first and treats equal paths as equal', () => {
    expect(comparePaths('/r/ab', '/r/abc')).toBeLessThan(0);
    expect(comparePaths('/r/abc', '/r/ab')).toBeGreaterThan(0);
    expect(comparePaths('/r/x', '/r/x')).toBe(0);
  });
});

describe('sortByModificationTime', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('puts the newest first and breaks ties by path', async () => {
    const old = await workspace.write('old.txt', '');
    const newer = await workspace.write('newer.txt', '');
    const tieB = await workspace.write('b.txt', '');
    const tieA = await workspace.write('a.txt', '');
    await utimes(old, 1000, 1000);
    await utimes(newer, 3000, 3000);
    await utimes(tieA, 2000, 2000);
    await utimes(tieB, 2000, 2000);
    expect(await sortByModificationTime([old, tieB, newer, tieA])).toEqual([
      newer,
      tieA,
      tieB,
      old,
    ]);
  });

  it('puts paths that no longer exist last', async () => {
    const present = await workspace.write('here.txt', '');
    const gone = workspace.path('gone.txt');
    expect(await sortByModificationTime([gone, present])).toEqual([present, gone]);
  });
});
