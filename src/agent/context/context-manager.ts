/**
 * Context management for one run: the loop keeps the whole conversation and asks this manager,
 * before each request, what to send.
 *
 * Per request:
 * 1. Reduce the conversation (`prepareRequest`: stale reads replaced, old long results shortened,
 *    an earlier compaction applied). When the turn count moves the reduction boundary, move it
 *    only when `decideBoundary` says so (cache-edits.ts: the cache is cold, the request nears
 *    the limit, or the tokens saved over the turns still expected, and before the held request
 *    grows to the limit at the rate of its last few turns, outweigh the cache write); otherwise
 *    hold it where the previous request had it, so its cached prefix stays valid.
 *    When the request still reaches `shortenAtFraction` of the window, move the boundary up to
 *    the newest turn: every older long result is shortened, so a long reading session stays
 *    under the compaction threshold. The cache write this causes is small: after the first
 *    changed result come only notes and the newest turn, which is written anyway.
 * 2. Estimate the request's tokens: its characters times the tokens-per-character ratio of the
 *    last request the model answered (4 characters per token until one has been answered).
 * 3. At `compactAtFraction` of the context window, summarise the older part with the model, keep
 *    the task, the plan (`planOf`, word for word) and the recent turns, report a compact boundary,
 *    and reduce again — unless a PreCompact hook blocks it (`mayCompact`), for this request.
 */
import type { ModelClient } from '../../model/model-client.js';
import { pricingFor } from '../../model/pricing.js';
import type { BlockPosition } from '../../model/model-client.js';
import type { Message, ToolSpec, Usage } from '../../model/types.js';
import type { EventSink } from '../events.js';
import { MIN_CACHEABLE_TOKENS, decideBoundary } from './cache-edits.js';
import { chooseKeptFrom, summarizeConversation } from './compaction.js';
import { planOf } from './plan-of.js';
import { resolveContextSettings } from './context-settings.js';
import type { ContextSettings } from './context-settings.js';
import {
  lastReducibleTurn,
  prepareRequest,
  shortenBeforeTurn,
  turnsIn,
} from './prepare-request.js';
import type { CompactionState } from './prepare-request.js';

export type CompactTrigger = 'manual' | 'auto';

export interface ContextManagerOptions {
  model: string;
  modelClient: ModelClient;
  cwd: string;
  systemPrompt: string;
  tools: readonly ToolSpec[];
  events: EventSink;
  /** `false` sends the conversation as it is (the baseline the context benchmark compares with). */
  settings?: Partial<ContextSettings> | false;
  /** Asked before each compaction (PreCompact hooks); false leaves the conversation as it is. */
  mayCompact?: (trigger: CompactTrigger, signal?: AbortSignal) => Promise<boolean>;
  /** The run's turn limit, which caps the turns still expected. */
  maxTurns?: number;
  /** The clock that tells a cold cache (default Date.now). */
  now?: () => number;
}

/** What to send next. */
export interface PreparedRequest {
  messages: Message[];
  /** The first block that differs from the request prepared before; undefined when it extends it. */
  changedFrom?: BlockPosition;
}

export interface ContextManager {
  /** The messages to send next; compacts first when the request would be too large. */
  prepare(messages: readonly Message[], signal?: AbortSignal): Promise<PreparedRequest>;
  /** The usage the model reported for the last prepared request. */
  recordUsage(usage: Usage): void;
  /** Summarise the older part now; false when there is nothing older than the kept turns. */
  compact(
    messages: readonly Message[],
    trigger: CompactTrigger,
    signal?: AbortSignal,
  ): Promise<boolean>;
}

const DEFAULT_TOKENS_PER_CHAR = 1 / 4;
/** The turns whose growth estimates the next ones' (cache-edits.ts, `turnsToLimit`). */
const GROWTH_SAMPLES = 8;

const mean = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

export function createContextManager(options: ContextManagerOptions): ContextManager {
  if (options.settings === false) {
    return {
      prepare: async (messages) => ({ messages: [...messages] }),
      recordUsage: () => undefined,
      compact: async () => false,
    };
  }
  const settings = resolveContextSettings(options.settings);
  const prepareSettings = { ...settings, cwd: options.cwd };
  const window = settings.contextWindow ?? pricingFor(options.model).contextWindow;
  const limitTokens = window * settings.shortenAtFraction;
  const fixedChars = options.systemPrompt.length + JSON.stringify(options.tools).length;
  let compaction: CompactionState | undefined;
  let tokensPerChar = DEFAULT_TOKENS_PER_CHAR;
  let lastChars: number | undefined;
  /** The request last sent, and when: what the prompt cache holds. */
  let lastSent: readonly Message[] | undefined;
  let lastSentAt: number | undefined;
  /** Where the reduction boundary was when it last moved. */
  let reduceBefore = 0;
  /** How much the request grew, turn by turn, with the boundary held (the latest few turns). */
  const growth: number[] = [];
  const now = options.now ?? Date.now;

  const charsOf = (prepared: readonly Message[]): number =>
    fixedChars + JSON.stringify(prepared).length;
  const estimate = (prepared: readonly Message[]): number =>
    Math.ceil(charsOf(prepared) * tokensPerChar);
  const prepareAt = (messages: readonly Message[], boundary: number): Message[] =>
    prepareRequest(messages, prepareSettings, compaction, boundary);

  /**
   * The request, and the part of it the cache would serve: all of the previous request when it
   * begins with it; else the part before the first change (a breakpoint marks it, prompt-cache.ts),
   * or at least the tools and system prompt (their own breakpoint), when long enough to be cached.
   */
  const shapeOf = (prepared: readonly Message[]) => {
    const tokens = estimate(prepared);
    if (lastSent === undefined) return { tokens, cachedTokens: 0 };
    const change = firstChange(lastSent, prepared);
    if (change === undefined)
      return { tokens, cachedTokens: Math.floor((lastChars ?? 0) * tokensPerChar) };
    const unchangedChars = fixedChars + JSON.stringify(prepared.slice(0, change.message)).length;
    const cachedTokens = Math.floor(unchangedChars * tokensPerChar);
    return { tokens, cachedTokens: cachedTokens >= MIN_CACHEABLE_TOKENS ? cachedTokens : 0 };
  };

  /**
   * When the request with the boundary held reaches the shortening limit, moves the boundary up
   * to the newest turn at once (a step at a time would rewrite the turns still kept whole on each
   * step); otherwise moves it to where the turn count puts it, or holds it (cache-edits.ts).
   */
  const reduce = (messages: readonly Message[]): Message[] => {
    const held = prepareAt(messages, reduceBefore);
    const heldTokens = estimate(held);
    if (lastChars !== undefined) {
      growth.push(Math.max(0, heldTokens - Math.ceil(lastChars * tokensPerChar)));
      if (growth.length > GROWTH_SAMPLES) growth.shift();
    }
    const furthest = lastReducibleTurn(turnsIn(messages));
    if (heldTokens >= limitTokens && furthest > reduceBefore) {
      reduceBefore = furthest;
      return prepareAt(messages, furthest);
    }
    const natural = shortenBeforeTurn(turnsIn(messages), settings);
    if (natural <= reduceBefore) return held;
    const moved = prepareAt(messages, natural);
    const decision = decideBoundary({
      held: shapeOf(held),
      moved: shapeOf(moved),
      turns: turnsIn(messages),
      ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
      ...(lastSentAt === undefined ? {} : { sincePreviousMs: now() - lastSentAt }),
      limitTokens,
      ...(growth.length > 0 && { growthPerTurn: mean(growth) }),
    });
    if (decision === 'hold') return held;
    reduceBefore = natural;
    return moved;
  };

  const compact = async (
    messages: readonly Message[],
    trigger: CompactTrigger,
    signal?: AbortSignal,
  ): Promise<boolean> => {
    const preTokens = estimate(prepareAt(messages, reduceBefore));
    const keptFrom = chooseKeptFrom(messages, {
      keepTurns: settings.keepRecentTurns,
      budgetChars: (window * settings.keptTailFraction) / tokensPerChar,
      after: compaction?.keptFrom ?? 1,
    });
    if (keptFrom === undefined) return false;
    if (options.mayCompact && !(await options.mayCompact(trigger, signal))) return false;
    const older = prepareRequest(messages.slice(0, keptFrom), prepareSettings, compaction);
    const summary = await summarizeConversation({
      client: options.modelClient,
      model: options.model,
      messages: older,
      maxTokens: settings.summaryMaxTokens,
      ...(signal === undefined ? {} : { signal }),
    });
    const plan = planOf(messages.slice(0, keptFrom));
    compaction = { keptFrom, summary: plan === undefined ? summary : `${summary}\n\n${plan}` };
    // The task message changed: nothing after it is read from the cache, so reduce all there is.
    reduceBefore = shortenBeforeTurn(turnsIn(messages), settings);
    options.events({ type: 'compact-boundary', trigger, preTokens, summary });
    return true;
  };

  return {
    async prepare(messages, signal) {
      let prepared = reduce(messages);
      if (estimate(prepared) >= window * settings.compactAtFraction) {
        if (await compact(messages, 'auto', signal)) prepared = prepareAt(messages, reduceBefore);
      }
      const changedFrom = lastSent === undefined ? undefined : firstChange(lastSent, prepared);
      lastChars = charsOf(prepared);
      lastSent = prepared;
      lastSentAt = now();
      return { messages: prepared, ...(changedFrom && { changedFrom }) };
    },
    recordUsage(usage) {
      const tokens =
        usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
      if (lastChars !== undefined && lastChars > 0 && tokens > 0)
        tokensPerChar = tokens / lastChars;
    },
    compact,
  };
}

/** The first block of `next` that is not in `previous` as it was; undefined when next extends it. */
export function firstChange(
  previous: readonly Message[],
  next: readonly Message[],
): BlockPosition | undefined {
  for (let message = 0; message < previous.length; message++) {
    const before = previous[message]!;
    const after = next[message];
    if (after === undefined) return { message, block: 0 };
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    if (typeof before.content === 'string' || typeof after.content === 'string')
      return { message, block: 0 };
    const blocks = after.content as readonly unknown[];
    const block = (before.content as readonly unknown[]).findIndex(
      (old, index) => JSON.stringify(old) !== JSON.stringify(blocks[index]),
    );
    // Only a block added at the end differs: the previous message's blocks are all there.
    return { message, block: block < 0 ? before.content.length : block };
  }
  return undefined;
}
