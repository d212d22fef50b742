import { describe, expect, it } from 'vitest';
import { matchQuoteStyle, normalizeQuotes } from '../../../../src/tools/builtin/file/quotes.js';

describe('normalizeQuotes', () => {
  it('straightens curly single and double quotes and keeps the length', () => {
    const curly = '‘a’ “b”';
    expect(normalizeQuotes(curly)).toBe(`'a' "b"`);
    expect(normalizeQuotes(curly)).toHaveLength(curly.length);
  });
});

describe('matchQuoteStyle', () => {
  it('leaves the replacement alone when the match had no curly quotes', () => {
    expect(matchQuoteStyle(`"x" 'y'`, `"a"`)).toBe(`"x" 'y'`);
  });

  it('curls double quotes, opening after a space or bracket, closing otherwise', () => {
    expect(matchQuoteStyle('"a" ("b")', '“z”')).toBe('“a” (“b”)');
  });

  it('curls single quotes and treats a mid-word quote as an apostrophe', () => {
    expect(matchQuoteStyle("'it's'", '‘z’')).toBe('‘it’s’');
  });

  it('converts only the kind of quote the match used', () => {
    expect(matchQuoteStyle(`"a" 'b'`, '“z”')).toBe(`“a” 'b'`);
  });
});
