/**
 * What a run cost, in the shapes of Claude Code's result message (`usage`, `modelUsage`,
 * `total_cost_usd`). Prices are USD per million tokens from Anthropic's published price list
 * (platform.claude.com/docs/en/about-claude/pricing, checked 2026-11). A 5-minute cache write costs
 * 1.25× the input price; a cache read 0.1× unless the table says otherwise. The usage block does
 * not split 5-minute from 1-hour cache writes, so every write is priced as a 5-minute one.
 *
 * A model this table does not know is priced like Opus 4.1 ($15 / $75), more than any current
 * model, and reported as unknown so the caller can warn that the figure is an upper estimate.
 */

import { emptyUsage } from './types.js';
import type { Usage } from './types.js';

/**
 * Current ids as of 2026-11, the ones Claude Code's floating aliases resolve to first-party.
 * claude-sonnet-4-5 reaches end of life on 2026-11-30 and claude-opus-4-5 is deprecated.
 */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

const ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-1',
};

/** `sonnet` / `opus` / `haiku` / `fable` (any case) → the current full id; anything else as given. */
export function resolveModelAlias(model: string): string {
  return ALIASES[model.trim().toLowerCase()] ?? model;
}

export interface ModelPricing {
  /** A readable name for the price row, such as `Sonnet 4.6`, or `unknown`. */
  family: string;
  inputPerMTok: number;
  outputPerMTok: number;
  cacheWritePerMTok: number;
  cacheReadPerMTok: number;
  contextWindow: number;
  known: boolean;
  /** A price band for requests whose prompt (input + cache reads + cache writes) is longer. */
  longPrompt?: { aboveTokens: number; inputPerMTok: number; outputPerMTok: number };
}

type Family = 'fable' | 'mythos' | 'opus' | 'sonnet' | 'haiku';

interface PriceEntry {
  families: Family[];
  /** `major` or `major.minor`, as in the model id (`claude-opus-4-1` → `4.1`). */
  versions: string[];
  name: string;
  input: number;
  output: number;
  cacheReadRatio?: number;
  contextWindow?: number;
  longPrompt?: ModelPricing['longPrompt'];
}

const MILLION = 1_000_000;
const ONE_M = { contextWindow: MILLION };

function price(
  families: Family[],
  versions: string[],
  name: string,
  input: number,
  output: number,
  extra: Partial<PriceEntry> = {},
): PriceEntry {
  return { families, versions, name, input, output, ...extra };
}

const PRICE_TABLE: readonly PriceEntry[] = [
  price(['fable', 'mythos'], ['5.1'], 'Fable/Mythos 5.1', 10, 50, {
    ...ONE_M,
    cacheReadRatio: 0.025,
  }),
  price(['fable', 'mythos'], ['5'], 'Fable/Mythos 5', 10, 50, ONE_M),
  price(['opus'], ['5.5'], 'Opus 5.5', 4, 20, { ...ONE_M, cacheReadRatio: 0.05 }),
  price(['opus'], ['5', '4.8', '4.7', '4.6'], 'Opus 4.6–5', 5, 25, ONE_M),
  price(['opus'], ['4.5'], 'Opus 4.5', 5, 25),
  price(['opus'], ['4.1', '4', '3'], 'Opus 3–4.1', 15, 75),
  // Sonnet 5.5 cache reads were cut from 0.1× to 0.05× on 2026-10-07.
  price(['sonnet'], ['5.5'], 'Sonnet 5.5', 2, 10, { ...ONE_M, cacheReadRatio: 0.05 }),
  price(['sonnet'], ['5'], 'Sonnet 5', 2, 10, ONE_M),
  price(['sonnet'], ['4.6'], 'Sonnet 4.6', 3, 15, ONE_M),
  // Prompts over 200k tokens (the 1M-context beta) cost more on Sonnet 4 and 4.5.
  price(['sonnet'], ['4.5', '4'], 'Sonnet 4/4.5', 3, 15, {
    longPrompt: { aboveTokens: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 },
  }),
  price(['sonnet'], ['3.7', '3.5'], 'Sonnet 3.x', 3, 15),
  price(['haiku'], ['5.5'], 'Haiku 5.5', 0.1, 0.5, {
    ...ONE_M,
    longPrompt: { aboveTokens: 100_000, inputPerMTok: 0.5, outputPerMTok: 2.5 },
  }),
  price(['haiku'], ['4.5'], 'Haiku 4.5', 1, 5),
  price(['haiku'], ['3.5'], 'Haiku 3.5', 0.8, 4),
  price(['haiku'], ['3'], 'Haiku 3', 0.25, 1.25),
];

function toPricing(entry: Omit<PriceEntry, 'families' | 'versions'>, known: boolean): ModelPricing {
  return {
    family: entry.name,
    inputPerMTok: entry.input,
    outputPerMTok: entry.output,
    cacheWritePerMTok: entry.input * 1.25,
    cacheReadPerMTok: entry.input * (entry.cacheReadRatio ?? 0.1),
    contextWindow: entry.contextWindow ?? 200_000,
    known,
    ...(entry.longPrompt === undefined ? {} : { longPrompt: entry.longPrompt }),
  };
}

const UNKNOWN_PRICING = toPricing({ name: 'unknown', input: 15, output: 75 }, false);

/**
 * Both naming schemes: `claude-sonnet-4-5-20250929` (family first) and
 * `claude-3-5-haiku-20241022` (version first). The minor version is one or two digits so that a
 * date suffix (`claude-opus-4-20250514`) is not read as one. Provider prefixes and suffixes such as
 * `anthropic.…-v1:0` or `…@20250929` do not matter.
 */
const FAMILY_FIRST = /claude-(fable|mythos|opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?!\d)/;
const VERSION_FIRST = /claude-(\d+)(?:-(\d{1,2}))?-(opus|sonnet|haiku)(?![a-z])/;

export function pricingFor(model: string): ModelPricing {
  const id = resolveModelAlias(model).toLowerCase();
  const familyFirst = FAMILY_FIRST.exec(id);
  const versionFirst = familyFirst === null ? VERSION_FIRST.exec(id) : null;
  let family: string | undefined;
  let version: string | undefined;
  if (familyFirst !== null) {
    family = familyFirst[1];
    version = versionOf(familyFirst[2], familyFirst[3]);
  } else if (versionFirst !== null) {
    family = versionFirst[3];
    version = versionOf(versionFirst[1], versionFirst[2]);
  }
  const entry = PRICE_TABLE.find(
    (candidate) =>
      version !== undefined &&
      candidate.families.some((name) => name === family) &&
      candidate.versions.includes(version),
  );
  if (entry === undefined) return UNKNOWN_PRICING;
  const pricing = toPricing(entry, true);
  return /\[1m\]$/i.test(model.trim()) ? { ...pricing, contextWindow: MILLION } : pricing;
}

function versionOf(major: string | undefined, minor: string | undefined): string {
  const minorNumber = Number(minor ?? 0);
  return minorNumber === 0 ? String(Number(major)) : `${Number(major)}.${minorNumber}`;
}

/** What one server-side web search costs ($10 per thousand), on top of its tokens. */
export const WEB_SEARCH_USD = 0.01;

/**
 * The cost of one API response; a long-prompt band applies to every token of that response.
 * Web searches the response made (`usage.server_tool_use`) are priced too.
 */
export function costUSD(model: string, usage: Usage): number {
  const pricing = pricingFor(model);
  const prompt =
    usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  const long =
    pricing.longPrompt !== undefined && prompt > pricing.longPrompt.aboveTokens
      ? pricing.longPrompt
      : undefined;
  const scale = long === undefined ? 1 : long.inputPerMTok / pricing.inputPerMTok;
  const output = long === undefined ? pricing.outputPerMTok : long.outputPerMTok;
  return (
    (usage.input_tokens * pricing.inputPerMTok * scale +
      usage.output_tokens * output +
      usage.cache_creation_input_tokens * pricing.cacheWritePerMTok * scale +
      usage.cache_read_input_tokens * pricing.cacheReadPerMTok * scale) /
      MILLION +
    (usage.server_tool_use?.web_search_requests ?? 0) * WEB_SEARCH_USD
  );
}

/** One entry of the result message's `modelUsage` (docs/CC-COMPAT.md §4). */
export interface ModelUsageEntry {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
}

export interface UsageSummary {
  usage: Usage;
  modelUsage: Record<string, ModelUsageEntry>;
  total_cost_usd: number;
}

export class UsageTracker {
  private readonly perModel = new Map<string, ModelUsageEntry>();

  /** Record one API response's usage (one call per response: price bands depend on it). */
  add(model: string, usage: Usage, options: { webSearchRequests?: number } = {}): void {
    const entry = this.perModel.get(model) ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
      contextWindow: pricingFor(model).contextWindow,
    };
    entry.inputTokens += usage.input_tokens;
    entry.outputTokens += usage.output_tokens;
    entry.cacheReadInputTokens += usage.cache_read_input_tokens;
    entry.cacheCreationInputTokens += usage.cache_creation_input_tokens;
    entry.webSearchRequests +=
      options.webSearchRequests ?? usage.server_tool_use?.web_search_requests ?? 0;
    entry.costUSD += costUSD(model, usage);
    this.perModel.set(model, entry);
  }

  get modelUsage(): Record<string, ModelUsageEntry> {
    return Object.fromEntries([...this.perModel].map(([model, entry]) => [model, { ...entry }]));
  }

  get usage(): Usage {
    const total = emptyUsage();
    for (const entry of this.perModel.values()) {
      total.input_tokens += entry.inputTokens;
      total.output_tokens += entry.outputTokens;
      total.cache_creation_input_tokens += entry.cacheCreationInputTokens;
      total.cache_read_input_tokens += entry.cacheReadInputTokens;
    }
    return total;
  }

  get totalCostUSD(): number {
    let total = 0;
    for (const entry of this.perModel.values()) total += entry.costUSD;
    return total;
  }

  /** Models priced with the fallback; the caller warns that their cost is an estimate. */
  get unknownModels(): string[] {
    return [...this.perModel.keys()].filter((model) => !pricingFor(model).known);
  }

  summary(): UsageSummary {
    return { usage: this.usage, modelUsage: this.modelUsage, total_cost_usd: this.totalCostUSD };
  }
}
