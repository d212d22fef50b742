import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/policy/json-syntax.js';

describe('findJsonSyntaxError', () => {
  it.each(['{}', ' [1, -2.5e3, "a\\"b\\u00e9", true, false, null, {"k": []}] ', '"text"', '0'])(
    'finds nothing wrong in %j',
    (text) => {
      expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(findJsonSyntaxError(text)).toBeUndefined();
    },
  );

  it.each([
    ['{"a": 1,}', 8, 'expected a property name in double quotes, found "}"'],
    ['[1, 2,]', 6, 'expected a value, found "]"'],
    ['{"a" 1}', 5, 'expected ":", found "1"'],
    ['{"a": 1 "b": 2}', 8, 'expected "," or "}", found "\\""'],
    ['[1 2]', 3, 'expected "," or "]", found "2"'],
    ['{"a": 01}', 7, 'expected "," or "}", found "1"'],
    ['{"a": "tab\there"}', 6, 'expected a value, found "\\""'],
    ['{"a": tru}', 6, 'expected a value, found "t"'],
    ['{} {}', 3, 'expected the end of the file, found "{"'],
    ['{"a": [', 7, 'expected a value, found the end of the file'],
  ])('finds where %j goes wrong', (text, offset, message) => {
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(findJsonSyntaxError(text)).toEqual({ offset, message });
  });
});
