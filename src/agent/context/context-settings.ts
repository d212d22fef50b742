/**
 * The knobs of context management, with the defaults a run uses when it gives none. Every field
 * is checked once here; a bad value stops the run with a message naming the field.
 */

export interface ContextSettings {
  /** The last N turns (assistant messages and their results) are always sent whole. */
  keepRecentTurns: number;
  /**
   * Older results are shortened in batches of this many turns. Moving the boundary one turn per
   * request would change the prefix of every request and defeat the prompt cache.
   */
  boundaryStep: number;
  /** An old tool result longer than this many characters is sent as a one-line summary. */
  shortenAboveChars: number;
  /** Tokens the model can take; by default the model's window from the price table. */
  contextWindow?: number;
  /**
   * Older results are reduced whenever the boundary moves once the request reaches this fraction
   * of the context window; below it, only when the cache is cold or the saving pays for the cache
   * write it causes (cache-edits.ts).
   */
  shortenAtFraction: number;
  /** Compact when the estimated request reaches this fraction of the context window. */
  compactAtFraction: number;
  /** The recent turns kept verbatim by compaction get at most this fraction of the window. */
  keptTailFraction: number;
  /** Output limit of the summarising request. */
  summaryMaxTokens: number;
}

export const DEFAULT_CONTEXT_SETTINGS: Readonly<ContextSettings> = Object.freeze({
  keepRecentTurns: 4,
  boundaryStep: 4,
  shortenAboveChars: 2_000,
  shortenAtFraction: 0.5,
  compactAtFraction: 0.8,
  keptTailFraction: 0.25,
  summaryMaxTokens: 8_192,
});

export function resolveContextSettings(
  overrides: Partial<ContextSettings> = {},
): Readonly<ContextSettings> {
  const settings = { ...DEFAULT_CONTEXT_SETTINGS, ...overrides };
  positiveInteger('keepRecentTurns', settings.keepRecentTurns);
  positiveInteger('boundaryStep', settings.boundaryStep);
  positiveInteger('shortenAboveChars', settings.shortenAboveChars);
  positiveInteger('summaryMaxTokens', settings.summaryMaxTokens);
  if (settings.contextWindow !== undefined)
    positiveInteger('contextWindow', settings.contextWindow);
  fraction('shortenAtFraction', settings.shortenAtFraction);
  fraction('compactAtFraction', settings.compactAtFraction);
  fraction('keptTailFraction', settings.keptTailFraction);
  return Object.freeze(settings);
}

function positiveInteger(field: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(
      `context management: ${field} is ${String(value)}; expected a whole number of 1 or more`,
    );
  }
}

function fraction(field: string, value: number): void {
  if (!(value > 0 && value <= 1)) {
    throw new Error(
      `context management: ${field} is ${String(value)}; expected a number above 0 and at most 1`,
    );
  }
}
