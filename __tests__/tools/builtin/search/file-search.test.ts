import { describe, expect, it } from 'vitest';
import {
  compileMatcher,
  countMatches,
  previewLongLine,
  printGroups,
  searchText,
} from '../../../../src/tools/builtin/search/file-search.js';

const SUFFIX = ' [... omitted end of long line]';

function matcher(pattern: string, options: { multiline?: boolean; ignoreCase?: boolean } = {}) {
  return compileMatcher({
    pattern,
    ignoreCase: options.ignoreCase ?? false,
    multiline: options.multiline ?? false,
  });
}

const print = { path: 'f', lineNumbers: true, before: 0, after: 0 };

describe('compileMatcher', () => {
  it('refuses a literal line break outside multiline mode', () => {
    expect(() => matcher('a\\nb')).toThrow(/not allowed/);
    expect(() => matcher('a\\nb', { multiline: true })).not.toThrow();
  });

  it('refuses what JavaScript cannot compile', () => {
    expect(() => matcher('a(')).toThrow(SyntaxError);
  });
});

describe('searchText', () => {
  it('finds nothing in text without a match, and nothing in empty text', () => {
    expect(searchText('abc\n', matcher('x'), false).groups).toEqual([]);
    expect(searchText('', matcher(''), false).groups).toEqual([]);
  });

  it('stops at the first matching line when asked', () => {
    expect(searchText('x\nx\n', matcher('x'), true).groups).toHaveLength(1);
  });

  describe('in line mode', () => {
    it('counts matching lines, not matches', () => {
      expect(countMatches(searchText('x x\ny\nx\n', matcher('x'), false))).toBe(2);
    });

    it('does not let a class match across a line break', () => {
      expect(countMatches(searchText('a\nb\n', matcher('a\\sb'), false))).toBe(0);
    });
  });

  describe('in multiline mode', () => {
    it('counts the matches in groups whose lines touch', () => {
      expect(
        countMatches(searchText('ab\nab\nab\n', matcher('b\\na|b', { multiline: true }), false)),
      ).toBe(3);
    });

    it('counts lines when the pattern cannot match a line break', () => {
      expect(
        countMatches(searchText('foo foo\nx\nfoo\n', matcher('foo', { multiline: true }), false)),
      ).toBe(2);
    });

    it('ends a match that ends with a line break on that line', () => {
      const search = searchText('a\nb\na\nb\n', matcher('a\\nb\\n?', { multiline: true }), false);
      expect(printGroups(search, print)).toEqual(['f:1:a', 'f:2:b', 'f:3:a', 'f:4:b']);
      expect(countMatches(search)).toBe(2);
    });

    it('ignores an empty match after the final line break', () => {
      expect(searchText('a\n', matcher('^$', { multiline: true }), false).groups).toEqual([]);
    });
  });
});

describe('printGroups', () => {
  const text = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';

  it('prints matching lines with the path and line number', () => {
    expect(printGroups(searchText(text, matcher('o'), false), print)).toEqual([
      'f:1:one',
      'f:2:two',
      'f:4:four',
    ]);
  });

  it('prints context lines with dashes and separates groups that are apart', () => {
    const lines = printGroups(searchText(text, matcher('^t'), false), {
      ...print,
      before: 1,
      after: 1,
    });
    expect(lines).toEqual(['f-1-one', 'f:2:two', 'f:3:three', 'f-4-four']);
    const apart = printGroups(searchText(text, matcher('one|seven'), false), {
      ...print,
      after: 1,
    });
    expect(apart).toEqual(['f:1:one', 'f-2-two', '--', 'f:7:seven']);
  });

  it('leaves out what is not asked for', () => {
    const lines = printGroups(searchText(text, matcher('six'), false), {
      path: undefined,
      lineNumbers: false,
      before: 1,
      after: 0,
    });
    expect(lines).toEqual(['five', 'six']);
  });
});

describe('previewLongLine', () => {
  it('keeps a line of up to 500 bytes with its line break', () => {
    expect(previewLongLine('a'.repeat(499), true)).toBe('a'.repeat(499));
    expect(previewLongLine('a'.repeat(500), false)).toBe('a'.repeat(500));
  });

  it('cuts a longer line to 500 characters and marks it', () => {
    expect(previewLongLine('a'.repeat(500), true)).toBe(`${'a'.repeat(500)}${SUFFIX}`);
  });

  it('measures bytes but keeps whole graphemes', () => {
    const accented = 'é'.repeat(300);
    expect(previewLongLine(accented, true)).toBe(`${accented}${SUFFIX}`);
    const combining = 'e\u0301'.repeat(600);
    expect(previewLongLine(combining, true)).toBe(`${'e\u0301'.repeat(500)}${SUFFIX}`);
  });
});
