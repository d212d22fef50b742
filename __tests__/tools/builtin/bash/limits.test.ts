import { describe, expect, it } from 'vitest';
import { effectiveTimeoutMs, readBashLimits } from '../../../../src/tools/builtin/bash/limits.js';

describe('readBashLimits', () => {
  it('uses the documented defaults', () => {
    expect(readBashLimits({})).toEqual({
      defaultTimeoutMs: 120_000,
      maxTimeoutMs: 600_000,
      maxOutputLength: 30_000,
    });
  });

  it('takes overrides from the environment', () => {
    const limits = readBashLimits({
      BASH_DEFAULT_TIMEOUT_MS: '5000',
      BASH_MAX_TIMEOUT_MS: '60000',
      BASH_MAX_OUTPUT_LENGTH: '1000',
    });
    expect(limits).toEqual({
      defaultTimeoutMs: 5_000,
      maxTimeoutMs: 60_000,
      maxOutputLength: 1_000,
    });
  });

  it('never lets the maximum timeout fall below the default', () => {
    const limits = readBashLimits({
      BASH_DEFAULT_TIMEOUT_MS: '300000',
      BASH_MAX_TIMEOUT_MS: '1000',
    });
    expect(limits.maxTimeoutMs).toBe(300_000);
  });

  it('caps the output length at 150000', () => {
    expect(readBashLimits({ BASH_MAX_OUTPUT_LENGTH: '999999' }).maxOutputLength).toBe(150_000);
  });

  it.each(['abc', '-5', '0', '1.5'])('rejects %j naming the variable', (value) => {
    expect(() => readBashLimits({ BASH_MAX_OUTPUT_LENGTH: value })).toThrow(
      `BASH_MAX_OUTPUT_LENGTH must be a positive whole number of characters, got "${value}"`,
    );
  });
});

describe('effectiveTimeoutMs', () => {
  const limits = readBashLimits({});

  it('uses the default when none is requested', () => {
    expect(effectiveTimeoutMs(undefined, limits)).toBe(120_000);
  });

  it('clamps a request above the maximum', () => {
    expect(effectiveTimeoutMs(3_600_000, limits)).toBe(600_000);
  });

  it('keeps a request within the maximum', () => {
    expect(effectiveTimeoutMs(1_500, limits)).toBe(1_500);
  });
});
