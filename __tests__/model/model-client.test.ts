import { describe, expect, it } from 'vitest';
import { isModelError, ModelError, parseRetryAfter } from '../../src/model/model-client.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string, Record<string, string>, number | undefined]>([
    ['seconds', { 'retry-after': '7' }, 7_000],
    ['fractional seconds', { 'retry-after': '1.5' }, 1_500],
    [
      'retry-after-ms, preferred over retry-after',
      { 'retry-after-ms': '250', 'retry-after': '9' },
      250,
    ],
    ['an HTTP date in the future', { 'retry-after': 'Sun, 29 Nov 2026 12:00:30 GMT' }, 30_000],
    ['an HTTP date in the past', { 'retry-after': 'Sun, 29 Nov 2026 11:59:00 GMT' }, undefined],
    ['zero', { 'retry-after': '0' }, undefined],
    ['a negative number', { 'retry-after': '-3' }, undefined],
    ['garbage', { 'retry-after': 'soon' }, undefined],
    ['an empty value', { 'retry-after': '' }, undefined],
    ['no header', {}, undefined],
  ])('reads %s', (_case, headers, expected) => {
    expect(parseRetryAfter(new Headers(headers), NOW)).toBe(expected);
  });

  it('returns undefined without headers', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('ModelError', () => {
  it('carries the classification the loop needs', () => {
    const cause = new Error('socket hang up');
    const error = new ModelError('overloaded', {
      kind: 'overloaded',
      retryable: true,
      status: 529,
      errorType: 'overloaded_error',
      retryAfterMs: 2_000,
      requestId: 'req_1',
      cause,
    });

    expect(error).toBeInstanceOf(Error);
    expect(isModelError(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'ModelError',
      message: 'overloaded',
      kind: 'overloaded',
      retryable: true,
      status: 529,
      errorType: 'overloaded_error',
      retryAfterMs: 2_000,
      requestId: 'req_1',
    });
    expect(error.cause).toBe(cause);
  });

  it('leaves optional fields absent rather than undefined-valued', () => {
    const error = new ModelError('bad request', { kind: 'invalid-request', retryable: false });

    expect(Object.keys(error)).not.toContain('retryAfterMs');
    expect(Object.keys(error)).not.toContain('status');
  });
});

describe('isModelError', () => {
  it('is false for other errors', () => {
    expect(isModelError(new Error('plain'))).toBe(false);
    expect(isModelError('text')).toBe(false);
  });
});
