import { describe, expect, it } from 'vitest';
import {
  RegexTranslationError,
  translateRegex,
} from '../../../../src/tools/builtin/search/regex.js';

const lineMode = { ignoreCase: false, multiline: false };
const multiline = { ignoreCase: false, multiline: true };

function compile(pattern: string, options = lineMode): RegExp {
  const translated = translateRegex(pattern, options);
  return new RegExp(translated.source, translated.ignoreCase ? 'isu' : 'su');
}

describe('translateRegex', () => {
  it.each([
    ['\\d', '٣', true],
    ['\\D', '٣', false],
    ['^\\w+$', 'naïve', true],
    ['^\\W$', 'é', false],
    ['\\bcafé\\b', 'un café noir', true],
    ['\\Bfé', 'café', true],
    ['\\x{41}\\x42', 'AB', true],
    ['\\pL', 'ж', true],
    ['\\p{Greek}', 'α', true],
    ['\\P{Greek}', 'α', false],
    ['^[[:alpha:]]+[[:digit:]]$', 'abc1', true],
    ['[[:space:]]', 'a b', true],
    ['[]a]', ']', true],
    ['[^]a]', ']', false],
    ['[\\w-]+@', 'a-b@', true],
    ['a]b}', 'a]b}', true],
    ['\\#\\&\\~\\-', '#&~-', true],
    ['\\a', '\u0007', true],
    ['(?P<name>x)\\k<name>', 'xx', true],
    ['a{2,3}', 'aa', true],
    ['a{2}', 'a', false],
    ['.', '\r', true],
    ['\\Aab', 'ab', true],
    ['ab\\z', 'ab', true],
  ])('%s matching %j: %s', (pattern, subject, expected) => {
    expect(compile(pattern).test(subject)).toBe(expected);
  });

  it('reads leading flags and lets them be switched off', () => {
    expect(translateRegex('(?i)abc', lineMode).ignoreCase).toBe(true);
    expect(translateRegex('(?-i)abc', { ignoreCase: true, multiline: false }).ignoreCase).toBe(
      false,
    );
    expect(translateRegex('(?ms)a', lineMode).source).toBe('a');
  });

  it('drops whitespace and comments in verbose mode', () => {
    expect(compile('(?x) a \\  b  # a comment\n c').test('a bc')).toBe(true);
  });

  it('passes flag groups through', () => {
    expect(compile('a(?i:b)').test('aB')).toBe(true);
  });

  describe('in multiline mode', () => {
    it('anchors ^ and $ at line feeds only, not at carriage returns', () => {
      const regex = compile('^b$', multiline);
      expect(regex.test('a\nb\nc')).toBe(true);
      expect(regex.test('a\rb\rc')).toBe(false);
    });

    it('anchors \\A and \\z at the ends of the whole text', () => {
      expect(compile('\\Ab', multiline).test('a\nb')).toBe(false);
      expect(compile('a\\z', multiline).test('a\nb')).toBe(false);
      expect(compile('b\\z', multiline).test('a\nb')).toBe(true);
    });

    it.each([
      ['foo', false],
      ['foo.bar', true],
      ['\\s', true],
      ['\\S+', false],
      ['[^x]', true],
      ['[a-z]', false],
      ['\\n', true],
      ['\\x0a', true],
      ['\\W', true],
      ['\\D', true],
    ])('knows whether %s can match a line break: %s', (pattern, expected) => {
      expect(translateRegex(pattern, multiline).mayMatchNewline).toBe(expected);
    });
  });

  it('notes a literal line break', () => {
    expect(translateRegex('a\\nb', lineMode).hasLiteralNewline).toBe(true);
    expect(translateRegex('a\nb', lineMode).hasLiteralNewline).toBe(true);
    expect(translateRegex('a\\sb', lineMode).hasLiteralNewline).toBe(false);
  });

  it.each([
    ['a(?i)b', /inline flags/],
    ['(?U)a', /\(\?U\)/],
    ['(?q)a', /unrecognized flag q/],
    ['[a[b]]', /nested character classes/],
    ['[[:^alpha:]]', /nested character classes/],
    ['[a-z&&[^aeiou]]', /set operations \(&&\)/],
    ['[a--b]', /set operations \(--\)/],
    ['[abc', /unclosed character class/],
    ['abc\\', /incomplete escape/],
    ['\\xZZ', /invalid hexadecimal/],
    ['\\p{NoSuchClass}', /unrecognized Unicode class/],
  ])('refuses %s', (pattern, message) => {
    expect(() => translateRegex(pattern, lineMode)).toThrow(RegexTranslationError);
    expect(() => translateRegex(pattern, lineMode)).toThrow(message);
  });
});
