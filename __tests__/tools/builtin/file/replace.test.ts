import { describe, expect, it } from 'vitest';
import {
  findMatches,
  lineSpan,
  replaceMatches,
} from '../../../../src/tools/builtin/file/replace.js';

describe('findMatches', () => {
  it('finds every non-overlapping exact occurrence', () => {
    expect(findMatches('abcabcab', 'ab')).toEqual([
      { index: 0, text: 'ab' },
      { index: 3, text: 'ab' },
      { index: 6, text: 'ab' },
    ]);
  });

  it('falls back to straightened quotes and returns the file’s own text', () => {
    expect(findMatches('say “hi”', 'say "hi"')).toEqual([{ index: 0, text: 'say “hi”' }]);
  });

  it('does not use the fallback when an exact match exists', () => {
    expect(findMatches('“x” "x"', '"x"')).toEqual([{ index: 4, text: '"x"' }]);
  });

  it('finds nothing for an empty needle', () => {
    expect(findMatches('abc', '')).toEqual([]);
  });
});

describe('lineSpan', () => {
  it('gives the 1-based lines a match covers, not counting a final newline', () => {
    const text = 'a\nb\nc\nd\n';
    expect(lineSpan(text, { index: 2, text: 'b\nc' })).toEqual([2, 3]);
    expect(lineSpan(text, { index: 2, text: 'b\n' })).toEqual([2, 2]);
    expect(lineSpan(text, { index: 0, text: 'a' })).toEqual([1, 1]);
  });
});

describe('replaceMatches', () => {
  it('replaces literally', () => {
    const text = 'a-b';
    expect(replaceMatches(text, findMatches(text, '-'), '-', '$&$&')).toBe('a$&$&b');
  });

  it('styles the replacement only for matches found through the quote fallback', () => {
    const text = '“a” "b"';
    const matches = [
      { index: 0, text: '“a”' },
      { index: 4, text: '"b"' },
    ];
    expect(replaceMatches(text, matches, '"b"', '"c"')).toBe('“c” "c"');
  });

  it('takes the following newline along when deleting', () => {
    const text = 'x\ny\nx';
    expect(replaceMatches(text, findMatches(text, 'x'), 'x', '')).toBe('y\n');
  });
});
