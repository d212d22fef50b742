import { describe, expect, it } from 'vitest';
import { countLines, FileStateCache } from '../../src/tools/file-state.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

describe('countLines', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['a\n', 2],
    ['a\nb', 2],
    ['a\r\nb\r\n', 3],
  ])('%j has %i lines', (text, lines) => {
    expect(countLines(text)).toBe(lines);
  });
});

describe('FileStateCache', () => {
  it('merges the ranges read of the same version and knows when the whole file was seen', () => {
    const cache = new FileStateCache();
    const text = 'a\nb\nc\nd';
    cache.recordRead('/f', text, 1, 1, 2);
    expect(cache.isFullyRead('/f')).toBe(false);
    expect(cache.hasSeenLines('/f', 1, 2)).toBe(true);
    expect(cache.hasSeenLines('/f', 2, 3)).toBe(false);
    cache.recordRead('/f', text, 1, 3, 4);
    expect(cache.get('/f')?.ranges).toEqual([[1, 4]]);
    expect(cache.isFullyRead('/f')).toBe(true);
  });

  it('forgets the ranges of an older version when the content changed', () => {
    const cache = new FileStateCache();
    cache.recordRead('/f', 'a\nb', 1, 1, 2);
    cache.recordRead('/f', 'a\nB\nc', 2, 3, 3);
    expect(cache.get('/f')?.ranges).toEqual([[3, 3]]);
  });

  it('treats a moved mtime with the same content as fresh and changed content as stale', () => {
    const cache = new FileStateCache();
    expect(cache.freshness('/f', 1, 'x')).toBe('unread');
    cache.recordRead('/f', 'x', 1, 1, 1);
    expect(cache.freshness('/f', 1, 'anything')).toBe('fresh');
    expect(cache.freshness('/f', 2, 'x')).toBe('fresh');
    expect(cache.freshness('/f', 2, 'y')).toBe('stale');
  });

  it('tells the versions of a file read in part only by mtime, and any moved mtime is stale', () => {
    const cache = new FileStateCache();
    cache.recordPartialRead('/big', 1, 1, 10, 30);
    cache.recordPartialRead('/big', 1, 11, 30, 30);
    expect(cache.get('/big')).toMatchObject({ content: undefined, ranges: [[1, 30]] });
    expect(cache.isFullyRead('/big')).toBe(true);
    expect(cache.freshness('/big', 1, 'anything')).toBe('fresh');
    expect(cache.freshness('/big', 2, '')).toBe('stale');
    cache.recordPartialRead('/big', 2, 5, 6, 30);
    expect(cache.get('/big')?.ranges).toEqual([[5, 6]]);
    cache.recordRead('/big', '', 2, 1, 1);
    expect(cache.get('/big')?.ranges).toEqual([[1, 1]]);
  });

  it('takes a file a hook rewrote as known, and only files it already knew', async () => {
    const workspace = makeWorkspace();
    try {
      const path = await workspace.write('a.txt', 'formatted\n');
      const other = await workspace.write('b.txt', 'never read\n');
      const cache = new FileStateCache();
      cache.recordRead(path, 'unformatted', 1, 1, 1);
      await cache.refresh(path);
      await cache.refresh(other);
      expect(cache.get(path)?.content).toBe('formatted\n');
      expect(cache.isFullyRead(path)).toBe(true);
      expect(cache.get(other)).toBeUndefined();
      await cache.refresh(`${workspace.root}/gone.txt`);
    } finally {
      workspace.cleanup();
    }
  });

  it('drops a record whose file disappeared on refresh', async () => {
    const cache = new FileStateCache();
    cache.recordWrite('/nonexistent/file', 'x', 1);
    await cache.refresh('/nonexistent/file');
    expect(cache.get('/nonexistent/file')).toBeUndefined();
  });
});
