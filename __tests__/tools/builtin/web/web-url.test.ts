import { describe, expect, it } from 'vitest';
import {
  checkFetchUrl,
  domainRuleContent,
  hostOf,
  isSameOrigin,
  MAX_URL_LENGTH,
  upgradeToHttps,
} from '../../../../src/tools/builtin/web/web-url.js';

function accepted(text: string): URL {
  const check = checkFetchUrl(text);
  if (!check.ok) throw new Error(check.message);
  return check.url;
}

describe('checkFetchUrl', () => {
  it('accepts an https URL as it is', () => {
    expect(accepted('https://docs.example.com/a?b=1#c').href).toBe(
      'https://docs.example.com/a?b=1#c',
    );
  });

  it('upgrades an http URL to https, loopback included', () => {
    expect(accepted('http://example.com/page').href).toBe('https://example.com/page');
    expect(accepted('http://127.0.0.1:8443/x').href).toBe('https://127.0.0.1:8443/x');
  });

  describe('when the URL cannot be fetched', () => {
    it.each([
      ['not a url', 'The URL provided could not be parsed.'],
      ['example.com/page', 'The URL provided could not be parsed.'],
      ['ftp://example.com/file', 'WebFetch fetches http and https URLs only, not ftp:'],
      ['file:///etc/passwd', 'WebFetch fetches http and https URLs only, not file:'],
      ['https://user:pw@example.com/', 'The URL must not contain a username or password.'],
      ['https://token@example.com/', 'The URL must not contain a username or password.'],
    ])('refuses %s', (text, why) => {
      expect(checkFetchUrl(text)).toEqual({
        ok: false,
        message: `Error: Invalid URL "${text}". ${why}`,
      });
    });

    it(`refuses a URL longer than ${MAX_URL_LENGTH} characters`, () => {
      const text = `https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`;
      const check = checkFetchUrl(text);
      expect(check.ok).toBe(false);
      expect(!check.ok && check.message).toContain(`longer than ${MAX_URL_LENGTH} characters`);
    });
  });
});

describe('upgradeToHttps', () => {
  it("drops http's default port and keeps any other", () => {
    expect(upgradeToHttps(new URL('http://example.com:80/')).href).toBe('https://example.com/');
    expect(upgradeToHttps(new URL('http://example.com:8080/')).href).toBe(
      'https://example.com:8080/',
    );
  });

  it('returns a copy, never the URL it was given', () => {
    const url = new URL('https://example.com/');
    expect(upgradeToHttps(url)).not.toBe(url);
  });
});

describe('hostOf', () => {
  it('gives the host in lower case, in punycode, and IPv6 without brackets', () => {
    expect(hostOf(new URL('https://Docs.Example.COM/'))).toBe('docs.example.com');
    expect(hostOf(new URL('https://bücher.example/'))).toBe('xn--bcher-kva.example');
    expect(hostOf(new URL('https://[::1]:8443/'))).toBe('::1');
  });
});

describe('domainRuleContent', () => {
  it('is domain:<host> of the upgraded URL', () => {
    expect(domainRuleContent('http://API.example.com:8080/v1')).toBe('domain:api.example.com');
  });

  it('is domain: with no host when the URL does not parse, which no allow rule matches', () => {
    expect(domainRuleContent('nonsense')).toBe('domain:');
  });
});

describe('isSameOrigin', () => {
  it.each([
    ['https://a.example/x', 'https://a.example/y', true],
    ['https://a.example/x', 'https://www.a.example/x', false],
    ['https://a.example/x', 'https://a.example:8443/x', false],
    ['https://a.example/x', 'http://a.example/x', false],
  ])('%s → %s: %s', (from, to, expected) => {
    expect(isSameOrigin(new URL(from), new URL(to))).toBe(expected);
  });
});
