import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTEXT_SETTINGS,
  resolveContextSettings,
} from '../../../src/agent/context/context-settings.js';

describe('resolveContextSettings', () => {
  it('fills in the defaults and freezes the result', () => {
    const settings = resolveContextSettings({ keepRecentTurns: 7 });
    expect(settings).toEqual({ ...DEFAULT_CONTEXT_SETTINGS, keepRecentTurns: 7 });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it.each([
    [{ keepRecentTurns: 0 }, 'keepRecentTurns is 0; expected a whole number of 1 or more'],
    [{ boundaryStep: 1.5 }, 'boundaryStep is 1.5; expected a whole number of 1 or more'],
    [{ contextWindow: -1 }, 'contextWindow is -1; expected a whole number of 1 or more'],
    [{ shortenAboveChars: Number.NaN }, 'shortenAboveChars is NaN; expected a whole number'],
    [{ summaryMaxTokens: 0 }, 'summaryMaxTokens is 0'],
    [
      { compactAtFraction: 1.2 },
      'compactAtFraction is 1.2; expected a number above 0 and at most 1',
    ],
    [{ keptTailFraction: 0 }, 'keptTailFraction is 0; expected a number above 0 and at most 1'],
  ])('refuses %o, naming the field, the value and the expected form', (overrides, message) => {
    expect(() => resolveContextSettings(overrides)).toThrow(`context management: ${message}`);
  });
});
