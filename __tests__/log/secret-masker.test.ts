import { describe, expect, it } from 'vitest';
import {
  createSecretFinder,
  createSecretMasker,
  MASK,
  MIN_PREFIX_LENGTH,
  MIN_SECRET_LENGTH,
} from '../../src/log/secret-masker.js';

const TOKEN = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
const KEY = 'sk-ant-api03-abcdefghijklmnop';

describe('createSecretMasker', () => {
  describe('mask', () => {
    it('replaces every occurrence of every secret', () => {
      const masker = createSecretMasker([TOKEN, KEY]);
      expect(masker.mask(`a ${TOKEN} b ${KEY} c ${TOKEN}`)).toBe(`a ${MASK} b ${MASK} c ${MASK}`);
    });

    it('leaves text without secrets as it is', () => {
      expect(createSecretMasker([TOKEN]).mask('nothing to hide')).toBe('nothing to hide');
    });

    it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters, and empty ones`, () => {
      const masker = createSecretMasker(['true', '', 'x'.repeat(MIN_SECRET_LENGTH - 1)]);
      expect(masker.mask('true xxxxxxx')).toBe('true xxxxxxx');
    });

    it('masks a value given with surrounding whitespace by its trimmed form', () => {
      expect(createSecretMasker([`${TOKEN}\n`]).mask(`t=${TOKEN};`)).toBe(`t=${MASK};`);
    });

    it('masks a secret that contains another one whole', () => {
      const inner = 'abcdefgh12';
      const outer = `${inner}-and-more`;
      expect(createSecretMasker([inner, outer]).mask(`${outer} ${inner}`)).toBe(`${MASK} ${MASK}`);
    });

    it('matches regular-expression characters literally', () => {
      const masker = createSecretMasker(['a.b*c+d?(e)[f]$^']);
      expect(masker.mask('x a.b*c+d?(e)[f]$^ y')).toBe(`x ${MASK} y`);
      expect(masker.mask('aXbbbbc+d?(e)[f]$^')).toBe('aXbbbbc+d?(e)[f]$^');
    });

    it(`masks a secret cut short after ${MIN_PREFIX_LENGTH} characters, as a truncated title cuts it`, () => {
      const masker = createSecretMasker([TOKEN]);
      const cut = TOKEN.slice(0, MIN_PREFIX_LENGTH + 3);
      expect(masker.mask(`Fix #1: ${cut}`)).toBe(`Fix #1: ${MASK}`);
      expect(masker.mask(`${cut}… and more`)).toBe(`${MASK}… and more`);
      const short = TOKEN.slice(0, MIN_PREFIX_LENGTH - 1);
      expect(masker.mask(`Fix #1: ${short}`)).toBe(`Fix #1: ${short}`);
    });

    it('masks the reversed form', () => {
      const reversed = [...TOKEN].reverse().join('');
      expect(createSecretMasker([TOKEN]).mask(`echo ${reversed} | rev`)).toBe(`echo ${MASK} | rev`);
    });

    it('masks the URL-encoded form', () => {
      const secret = 'p@ss/word+with=chars';
      const url = `https://user:${encodeURIComponent(secret)}@example.com`;
      expect(createSecretMasker([secret]).mask(url)).toBe(`https://user:${MASK}@example.com`);
    });

    it.each([
      ['alone', ''],
      ['after a prefix of whole 3-byte groups', 'x-access-token:'],
      ['one byte past a group', 'x-access-token:a'],
      ['two bytes past a group', 'x-access-token:ab'],
    ])('masks the base64 form inside a longer encoded string (%s)', (_label, prefix) => {
      const header = Buffer.from(`${prefix}${TOKEN}:suffix`).toString('base64');
      const masked = createSecretMasker([TOKEN]).mask(`AUTHORIZATION: basic ${header}`);
      expect(masked).toContain(MASK);
      // The mask starts right where the token's bytes start and covers all but its edges.
      const [before = '', after = ''] = masked.slice('AUTHORIZATION: basic '.length).split(MASK);
      expect(before.length).toBe(Math.ceil((prefix.length * 8) / 6));
      const maskedChars = header.length - before.length - after.length;
      expect(maskedChars).toBeGreaterThanOrEqual(Math.floor((TOKEN.length * 8) / 6) - 1);
    });
  });

  describe('createSecretFinder', () => {
    it('says where each form is, which encoding, and whether it is whole', () => {
      const find = createSecretFinder([TOKEN]);
      const reversed = [...TOKEN].reverse().join('');
      const text = `a ${TOKEN} b ${reversed} c ${TOKEN.slice(0, 20)}`;
      expect(find(text)).toEqual([
        { index: 2, length: TOKEN.length, encoding: 'raw', whole: true },
        { index: 5 + TOKEN.length, length: TOKEN.length, encoding: 'reversed', whole: true },
        { index: 8 + 2 * TOKEN.length, length: 20, encoding: 'raw', whole: false },
      ]);
    });
  });

  describe('maskJson', () => {
    it('masks strings at any depth, in arrays and in keys, and leaves other values alone', () => {
      const masker = createSecretMasker([KEY]);
      const value = {
        text: `key=${KEY}`,
        nested: { list: [1, null, true, `${KEY}`, { [KEY]: 'x' }] },
      };
      expect(masker.maskJson(value)).toEqual({
        text: `key=${MASK}`,
        nested: { list: [1, null, true, MASK, { [MASK]: 'x' }] },
      });
    });

    it('keeps the JSON valid when a secret contains quotes and backslashes', () => {
      const secret = 'ab"cd\\ef"gh';
      const masked = createSecretMasker([secret]).maskJson({ out: `-${secret}-` });
      const text = JSON.stringify(masked);
      expect(JSON.parse(text)).toEqual({ out: `-${MASK}-` });
      expect(text).not.toContain('cd');
    });

    it('returns the value itself when there is nothing to mask', () => {
      const value = { a: 'b' };
      expect(createSecretMasker([]).maskJson(value)).toBe(value);
    });
  });
});
