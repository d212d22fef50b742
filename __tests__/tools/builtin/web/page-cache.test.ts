import { describe, expect, it } from 'vitest';
import { PAGE_CACHE_TTL_MS, PageCache } from '../../../../src/tools/builtin/web/page-cache.js';
import type { CachedPage } from '../../../../src/tools/builtin/web/page-cache.js';

function cachedPage(text: string, url = 'https://example.com/'): CachedPage {
  return { url, code: 200, codeText: 'OK', bytes: text.length, text, truncated: false };
}

describe('PageCache', () => {
  it('returns a stored page until 15 minutes have passed, then forgets it', () => {
    let now = 1_000;
    const cache = new PageCache(() => now);
    cache.set('https://example.com/', cachedPage('hello'));

    now += PAGE_CACHE_TTL_MS - 1;
    expect(cache.get('https://example.com/')?.text).toBe('hello');
    now += 1;
    expect(cache.get('https://example.com/')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps pages apart by URL', () => {
    const cache = new PageCache(() => 0);
    cache.set('https://a.example/', cachedPage('a'));
    cache.set('https://b.example/', cachedPage('b'));

    expect(cache.get('https://a.example/')?.text).toBe('a');
    expect(cache.get('https://b.example/')?.text).toBe('b');
    expect(cache.get('https://c.example/')).toBeUndefined();
  });

  it('replaces a page stored again, restarting its 15 minutes', () => {
    let now = 0;
    const cache = new PageCache(() => now);
    cache.set('https://a.example/', cachedPage('old'));
    now = PAGE_CACHE_TTL_MS - 10;
    cache.set('https://a.example/', cachedPage('new'));
    now += 100;

    expect(cache.get('https://a.example/')?.text).toBe('new');
    expect(cache.size).toBe(1);
  });

  it('drops the oldest pages once it holds 64', () => {
    const cache = new PageCache(() => 0);
    for (let index = 0; index < 66; index++) {
      cache.set(`https://example.com/${index}`, cachedPage(String(index)));
    }

    expect(cache.size).toBe(64);
    expect(cache.get('https://example.com/0')).toBeUndefined();
    expect(cache.get('https://example.com/1')).toBeUndefined();
    expect(cache.get('https://example.com/2')?.text).toBe('2');
    expect(cache.get('https://example.com/65')?.text).toBe('65');
  });

  it('drops the oldest pages once their text passes 32 MiB in all', () => {
    const cache = new PageCache(() => 0);
    const tenMiB = 'x'.repeat(10 * 1024 * 1024);
    for (const name of ['a', 'b', 'c', 'd'])
      cache.set(`https://${name}.example/`, cachedPage(tenMiB));

    expect(cache.size).toBe(3);
    expect(cache.get('https://a.example/')).toBeUndefined();
    expect(cache.get('https://d.example/')).toBeDefined();
  });
});
