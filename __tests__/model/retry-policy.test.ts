import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/model/model-client.js';
import type { ModelErrorKind } from '../../src/model/model-client.js';
import {
  DEFAULT_RETRY_POLICY,
  fatalErrorMessage,
  refusalToRetry,
  retryDelayMs,
  retryErrorCategory,
  stalledStreamError,
} from '../../src/model/retry-policy.js';

const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 500, maxDelayMs: 4_000, maxRetries: 3 };

function error(kind: ModelErrorKind, extra: { retryAfterMs?: number; status?: number } = {}) {
  const retryable = !['authentication', 'permission', 'invalid-request', 'aborted'].includes(kind);
  return new ModelError(`failed (${kind})`, { kind, retryable, ...extra });
}

describe('retryDelayMs', () => {
  it('doubles the wait per retry up to the cap, shortened by at most a quarter', () => {
    const noJitter = () => 0;
    expect(
      [1, 2, 3, 4, 5].map((n) => retryDelayMs(error('overloaded'), n, policy, noJitter)),
    ).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
    expect(retryDelayMs(error('overloaded'), 2, policy, () => 0.999)).toBe(750);
  });

  it('waits exactly what retry-after asked for, without jitter', () => {
    const limited = error('rate-limit', { retryAfterMs: 7_000 });
    expect(retryDelayMs(limited, 1, policy, () => 0.9)).toBe(7_000);
  });
});

describe('refusalToRetry', () => {
  it('allows a retryable error while retries remain', () => {
    expect(refusalToRetry(error('server', { status: 500 }), 2, policy)).toBeUndefined();
  });

  it.each<ModelErrorKind>(['authentication', 'permission', 'invalid-request', 'aborted'])(
    'refuses a %s error as it is',
    (kind) => {
      const failure = error(kind);
      expect(refusalToRetry(failure, 0, policy)).toBe(failure);
    },
  );

  describe('when the retries are used up', () => {
    it('says how many retries were made, keeping the kind and status', () => {
      const refusal = refusalToRetry(error('overloaded', { status: 529 }), 3, policy);
      expect(refusal).toMatchObject({ kind: 'overloaded', status: 529, retryable: false });
      expect(refusal?.message).toBe('failed (overloaded) Gave up after 3 retries.');
    });
  });

  describe('when retry-after is longer than the run waits', () => {
    it('refuses and names both waits', () => {
      const refusal = refusalToRetry(
        error('rate-limit', { retryAfterMs: 600_000, status: 429 }),
        0,
        policy,
      );
      expect(refusal?.message).toBe(
        'failed (rate-limit) The API asked to wait 600 s before retrying, longer than the 300 s this run waits.',
      );
    });
  });
});

describe('stalledStreamError', () => {
  it('is a retryable dropped stream that names the silence', () => {
    expect(stalledStreamError(60_000)).toMatchObject({
      kind: 'stream-dropped',
      retryable: true,
      message: 'The model response stream stalled: no event for 60 s.',
    });
  });
});

describe('retryErrorCategory', () => {
  it.each<[ModelErrorKind, string]>([
    ['rate-limit', 'rate_limit'],
    ['overloaded', 'server_error'],
    ['server', 'server_error'],
    ['connection', 'connection_error'],
    ['stream-dropped', 'connection_error'],
    ['authentication', 'authentication_failed'],
    ['invalid-request', 'invalid_request'],
    ['unknown', 'unknown'],
  ])('files %s under %s', (kind, category) => {
    expect(retryErrorCategory(error(kind))).toBe(category);
  });
});

describe('fatalErrorMessage', () => {
  it('names the model id and where to change it on a 404', () => {
    const message = fatalErrorMessage(
      error('invalid-request', { status: 404 }),
      'claude-nonexistent-9',
    );
    expect(message).toContain('"claude-nonexistent-9"');
    expect(message).toContain('--model, ANTHROPIC_MODEL');
  });

  it('leaves other errors to their own message', () => {
    expect(fatalErrorMessage(error('invalid-request', { status: 400 }), 'm')).toBeUndefined();
    expect(fatalErrorMessage(new Error('x'), 'm')).toBeUndefined();
  });
});
