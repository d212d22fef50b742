import { describe, expect, it } from 'vitest';
import {
  compileOverrides,
  splitGlobArgument,
} from '../../../../src/tools/builtin/search/glob-patterns.js';

describe('splitGlobArgument', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['*.ts', ['*.ts']],
    ['*.ts *.tsx', ['*.ts', '*.tsx']],
    ['*.ts,*.tsx', ['*.ts', '*.tsx']],
    [' *.ts ,  *.js ', ['*.ts', '*.js']],
    ['*.{ts,tsx}', ['*.{ts,tsx}']],
    ['src/**/*.{ts,tsx} !**/*.test.ts', ['src/**/*.{ts,tsx}', '!**/*.test.ts']],
  ])('splits %j into %j', (value, expected) => {
    expect(splitGlobArgument(value)).toEqual(expected);
  });
});

describe('compileOverrides', () => {
  it('is undefined without globs', () => {
    expect(compileOverrides([])).toBeUndefined();
  });

  describe('when an including glob is given', () => {
    const matcher = compileOverrides(['*.ts', '!*.test.ts'])!;

    it('includes matching files and excludes the rest', () => {
      expect(matcher('src/a.ts', false)).toBe('include');
      expect(matcher('src/a.test.ts', false)).toBe('exclude');
      expect(matcher('src/a.js', false)).toBe('exclude');
    });

    it('leaves unmatched directories to the other filters', () => {
      expect(matcher('src', true)).toBe('none');
    });
  });

  describe('when only excluding globs are given', () => {
    const matcher = compileOverrides(['!vendor/', '!*.min.js'])!;

    it('excludes what they match and leaves the rest alone', () => {
      expect(matcher('vendor', true)).toBe('exclude');
      expect(matcher('vendor', false)).toBe('none');
      expect(matcher('a/b.min.js', false)).toBe('exclude');
      expect(matcher('a/b.js', false)).toBe('none');
    });
  });

  it('expands braces', () => {
    const matcher = compileOverrides(['*.{ts,tsx}'])!;
    expect(matcher('a.tsx', false)).toBe('include');
    expect(matcher('a.js', false)).toBe('exclude');
  });
});
