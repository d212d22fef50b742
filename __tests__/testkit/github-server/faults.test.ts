import { describe, expect, it } from 'vitest';
import { createFaultBook } from '../../../testkit/github-server/faults.js';

describe('createFaultBook', () => {
  it('answers a matching request with the fault in GitHub error shape', () => {
    const book = createFaultBook([{ method: 'post', path: '/repos/o/r/pulls', status: 502 }]);
    expect(book.take('POST', '/repos/o/r/pulls')).toEqual({
      status: 502,
      body: {
        message: 'Injected fault: 502',
        documentation_url: 'https://docs.github.com/rest',
        status: '502',
      },
    });
  });

  it('matches a string path exactly and a RegExp anywhere', () => {
    const book = createFaultBook([
      { path: '/exact', status: 500 },
      { path: /comments/, status: 503 },
    ]);
    expect(book.take('GET', '/exact/more')).toBeUndefined();
    expect(book.take('GET', '/exact')?.status).toBe(500);
    expect(book.take('PATCH', '/repos/o/r/issues/comments/1')?.status).toBe(503);
  });

  it('keeps matching with a global RegExp, which remembers its last position', () => {
    const book = createFaultBook([{ path: /comments/g, status: 503 }]);
    expect(book.take('GET', '/comments')?.status).toBe(503);
    expect(book.take('GET', '/comments')?.status).toBe(503);
  });

  it('stops after `times` and then lets a later fault match', () => {
    const book = createFaultBook([
      { path: '/a', status: 500, times: 2 },
      { path: '/a', status: 429, headers: { 'retry-after': '1' } },
    ]);
    expect([1, 2, 3].map(() => book.take('GET', '/a')?.status)).toEqual([500, 500, 429]);
    expect(book.take('GET', '/a')?.headers).toEqual({ 'retry-after': '1' });
  });

  it('ignores other methods', () => {
    const book = createFaultBook([{ method: 'POST', path: '/a', status: 500 }]);
    expect(book.take('GET', '/a')).toBeUndefined();
  });
});
