/**
 * Cache-aware history edits: whether to move the reduction boundary now (shorten the results that
 * came of age, replace the reads that went stale) or keep the request as the cached prefix has it.
 *
 * Moving the boundary changes an old part of the request, so the API bills everything after the
 * first changed message as a cache write (1.25× the input price) instead of a read (0.1×). It
 * saves on every later request, which reads a shorter prefix. Per request:
 * 1. The cache is cold (no request within the cache TTL of 5 minutes, or none yet): nothing is
 *    read either way, so move.
 * 2. The held request reaches `shortenAtFraction` of the context window: move, whatever it costs,
 *    before compaction has to.
 * 3. Otherwise move when it pays over the turns still expected:
 *      now   = 0.1 × (tokens read from the cache) + 1.25 × (tokens written)
 *      later = remaining turns × 0.1 × (request tokens)
 *    and moving wins when its now + later is below holding's.
 * The remaining turns are estimated as the turns run so far (a run that has gone t turns is about
 * as likely to go another t as to stop sooner: the median of a duration known only to exceed t),
 * capped by what max-turns leaves, at least one. They are capped, too, by the turns the held
 * request takes to grow to the limit at the rate it has grown: there the boundary moves up to the
 * newest turn anyway (context-manager.ts), which shortens what this move would, so a move saves
 * only until then. Without that cap, a session of large reads moved its boundary every few turns,
 * each move writing the turns still kept whole to the cache again, and wrote its content twice.
 */

export const CACHE_TTL_MS = 5 * 60_000;
/** The shortest prefix the API caches (the smallest of the models' minimums). */
export const MIN_CACHEABLE_TOKENS = 1024;
const READ_PRICE = 0.1;
const WRITE_PRICE = 1.25;

export interface RequestShape {
  /** Tokens of the whole request. */
  tokens: number;
  /** Tokens at its start that are byte-identical to the previous request (read from the cache). */
  cachedTokens: number;
}

export interface BoundaryChoice {
  held: RequestShape;
  moved: RequestShape;
  turns: number;
  maxTurns?: number;
  /** Milliseconds since the previous request; undefined when there was none. */
  sincePreviousMs?: number;
  /** `shortenAtFraction` × the context window, in tokens. */
  limitTokens: number;
  /** Tokens the held request has grown by per turn, lately; undefined before it is known. */
  growthPerTurn?: number;
}

export type BoundaryDecision = 'cold' | 'near-limit' | 'pays' | 'hold';

export function decideBoundary(choice: BoundaryChoice): BoundaryDecision {
  if (choice.sincePreviousMs === undefined || choice.sincePreviousMs >= CACHE_TTL_MS) return 'cold';
  if (choice.held.tokens >= choice.limitTokens) return 'near-limit';
  const remaining = Math.min(
    remainingTurns(choice.turns, choice.maxTurns),
    turnsToLimit(choice.held.tokens, choice.limitTokens, choice.growthPerTurn),
  );
  const cost = (shape: RequestShape): number =>
    READ_PRICE * shape.cachedTokens +
    WRITE_PRICE * (shape.tokens - shape.cachedTokens) +
    remaining * READ_PRICE * shape.tokens;
  return cost(choice.moved) < cost(choice.held) ? 'pays' : 'hold';
}

export function remainingTurns(turns: number, maxTurns?: number): number {
  const left = maxTurns === undefined ? turns : Math.min(turns, maxTurns - turns);
  return Math.max(1, left);
}

/** Turns until a request of `tokens` growing by `growthPerTurn` reaches `limitTokens`, at least one. */
export function turnsToLimit(tokens: number, limitTokens: number, growthPerTurn?: number): number {
  if (growthPerTurn === undefined || growthPerTurn <= 0) return Infinity;
  return Math.max(1, Math.ceil((limitTokens - tokens) / growthPerTurn));
}
