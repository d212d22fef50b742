import { describe, expect, it } from 'vitest';
import { formatNumberedLines } from '../../../../src/tools/builtin/file/numbered-lines.js';

describe('formatNumberedLines', () => {
  it('prefixes each line with its number and a tab, starting at the given line', () => {
    expect(formatNumberedLines(['a', '', 'c'], 7, 100)).toBe('7\ta\n8\t\n9\tc');
  });

  it('cuts a line longer than the maximum and says by how much', () => {
    expect(formatNumberedLines(['abcdef'], 1, 4)).toBe('1\tabcd… [line cut at 4 of 6 characters]');
    expect(formatNumberedLines(['abcd'], 1, 4)).toBe('1\tabcd');
  });
});
