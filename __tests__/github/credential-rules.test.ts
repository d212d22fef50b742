/** What secretlint finds is tested through the push scan (push-scan.test.ts); this, the filter. */
import { describe, expect, it } from 'vitest';
import { isPlaceholder } from '../../src/github/credential-rules.js';

const GITHUB_PAT = ['ghp_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'].join('');
const AWS_SECRET = ['5ZaYQLMU3J0WLymvR8Ld', 'cGuzfQm2pNVrs3bMh4IO'].join('');

describe('isPlaceholder', () => {
  it.each([
    [`ghp_${'x'.repeat(36)}`, true],
    ['AKIA0000000000000000', true],
    [GITHUB_PAT, false],
    [AWS_SECRET, false],
  ])('%s: %s', (text, expected) => {
    expect(isPlaceholder(text)).toBe(expected);
  });
});
