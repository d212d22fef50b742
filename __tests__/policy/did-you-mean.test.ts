import { describe, expect, it } from 'vitest';
import { closestMatch, didYouMean } from '../../src/policy/did-you-mean.js';

const KEYS = ['permissions', 'hooks', 'settings', 'limits', 'env'];

describe('closestMatch', () => {
  it.each([
    ['permission', 'permissions'],
    ['Hooks', 'hooks'],
    ['setings', 'settings'],
    ['limit', 'limits'],
    ['ENV', 'env'],
  ])('takes %j for %j', (word, expected) => {
    expect(closestMatch(word, KEYS)).toBe(expected);
  });

  it.each(['model', 'x', 'permissionsAndMore'])('suggests nothing for the unrelated %j', (word) => {
    expect(closestMatch(word, KEYS)).toBeUndefined();
  });
});

describe('didYouMean', () => {
  it('phrases a suggestion, or says nothing', () => {
    expect(didYouMean('timout', ['timeout', 'type'])).toBe('; did you mean "timeout"?');
    expect(didYouMean('model', KEYS)).toBe('');
  });
});
