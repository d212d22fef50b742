/**
 * Context management for one run: the loop keeps the whole conversation and asks this manager,
 * before each request, what to send.
 *
 * Per request:
 * 1. Reduce the conversation (`prepareRequest`: stale reads replaced, old long results shortened,
 *    an earlier compaction applied).
 * 2. Estimate the request's tokens: its characters times the tokens-per-character ratio of the
 *    last request the model answered (4 characters per token until one has been answered).
 * 3. At `compactAtFraction` of the context window, summarise the older part with the model, keep
 *    the task, the plan (`planOf`, word for word) and the recent turns, report a compact boundary,
 *    and reduce again — unless a PreCompact hook blocks it (`mayCompact`), for this request.
 */
import type { ModelClient } from '../../model/model-client.js';
import { pricingFor } from '../../model/pricing.js';
import type { Message, ToolSpec, Usage } from '../../model/types.js';
import type { EventSink } from '../events.js';
import { chooseKeptFrom, summarizeConversation } from './compaction.js';
import { planOf } from './plan-of.js';
import { resolveContextSettings } from './context-settings.js';
import type { ContextSettings } from './context-settings.js';
import { prepareRequest } from './prepare-request.js';
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
}

export interface ContextManager {
  /** The messages to send next; compacts first when the request would be too large. */
  prepare(messages: readonly Message[], signal?: AbortSignal): Promise<Message[]>;
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

export function createContextManager(options: ContextManagerOptions): ContextManager {
  if (options.settings === false) {
    return {
      prepare: async (messages) => [...messages],
      recordUsage: () => undefined,
      compact: async () => false,
    };
  }
  const settings = resolveContextSettings(options.settings);
  const prepareSettings = { ...settings, cwd: options.cwd };
  const window = settings.contextWindow ?? pricingFor(options.model).contextWindow;
  const fixedChars = options.systemPrompt.length + JSON.stringify(options.tools).length;
  let compaction: CompactionState | undefined;
  let tokensPerChar = DEFAULT_TOKENS_PER_CHAR;
  let lastChars: number | undefined;

  const estimate = (prepared: readonly Message[]): number =>
    Math.ceil((fixedChars + JSON.stringify(prepared).length) * tokensPerChar);

  const compact = async (
    messages: readonly Message[],
    trigger: CompactTrigger,
    signal?: AbortSignal,
  ): Promise<boolean> => {
    const preTokens = estimate(prepareRequest(messages, prepareSettings, compaction));
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
    options.events({ type: 'compact-boundary', trigger, preTokens });
    return true;
  };

  return {
    async prepare(messages, signal) {
      let prepared = prepareRequest(messages, prepareSettings, compaction);
      if (estimate(prepared) >= window * settings.compactAtFraction) {
        if (await compact(messages, 'auto', signal)) {
          prepared = prepareRequest(messages, prepareSettings, compaction);
        }
      }
      lastChars = fixedChars + JSON.stringify(prepared).length;
      return prepared;
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
