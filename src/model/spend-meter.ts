/**
 * The run's spend, counted and bounded where requests leave: one `SpendMeter` per run, and every
 * model request of the run — the loop's turns, each subagent's, compaction summaries, tools' side
 * queries, and each retried attempt of any of them — goes through a client it made
 * (`meter.client(inner, part)`), beneath the retrying client, so that every attempt is seen.
 *
 * Per attempt:
 * 1. Reserve its worst case before it is sent: its input at the highest input price (a cache
 *    write, in the long-prompt band when the estimate reaches it), every search its server tools
 *    may make, and `max_tokens` of output. When what is left of the budget (less what requests
 *    in flight have reserved) does not cover that, `max_tokens` is lowered to fit; when even
 *    `MIN_OUTPUT_TOKENS` (or the request's own smaller max) does not fit, the request is not sent:
 *    a `BudgetExceededError`, which ends the run as `error_max_budget_usd`. A request that would
 *    fit once the requests in flight have settled waits for them instead, with a
 *    `waiting-for-budget` event every `WAIT_NOTICE_MS` (a stall watchdog above must not take
 *    the wait for a stalled stream).
 * 2. Count what the API reported: the final usage of a complete message; for an attempt that
 *    failed or was given up, the usage its `message_start` reported, with the output it had
 *    streamed estimated at the same tokens per byte as input (step 3). An attempt that failed
 *    before any usage arrived counts nothing when the API answered with an error status or no
 *    connection was made, and its estimated input otherwise (a connection lost, a stall, an
 *    abort): the API may have started on it, and what it bills is not known.
 * 3. Input tokens are not known before the response: they are estimated from the request's
 *    UTF-8 bytes (images counted as `IMAGE_TOKENS` each, their data left out) plus
 *    `REQUEST_OVERHEAD_TOKENS`, at 2 bytes a token (Claude's tokenizer averages 3.5 to 4), or at
 *    1.25× the densest request the run has seen, if that is denser; never more than one token a
 *    byte, which no byte-level tokenizer exceeds.
 *
 * So output and searches are bounded exactly; input is bounded as long as a request is no
 * denser in tokens than that estimate says. A request that was denser can pass the budget by the
 * difference, once: every later one is refused.
 *
 * Each attempt is filed under its part (the main agent, a subagent by type and id, compaction,
 * side queries); an attempt that failed is filed under "failed attempts" instead, whatever its
 * part, so that the rows add up to the run's total.
 */
import { costUSD, pricingFor, UsageTracker, WEB_SEARCH_USD } from './pricing.js';
import type { UsageSummary } from './pricing.js';
import { isModelError, isUnreachable } from './model-client.js';
import type {
  CompletedMessage,
  ModelClient,
  ModelRequest,
  ModelStreamEvent,
} from './model-client.js';
import { emptyUsage } from './types.js';
import type { Usage } from './types.js';

/** The fewest output tokens a request is sent with (or its own max, when smaller). */
export const MIN_OUTPUT_TOKENS = 1_024;
/** Tokens the API adds to every request beyond its JSON (the tool-use system prompt, framing). */
export const REQUEST_OVERHEAD_TOKENS = 1_000;
/** What one image may cost in input tokens (the API scales images to about 1,600). */
export const IMAGE_TOKENS = 5_000;
const DEFAULT_TOKENS_PER_BYTE = 0.5;
const MAX_TOKENS_PER_BYTE = 1;
const CALIBRATION_MARGIN = 1.25;
const MILLION = 1_000_000;
/** How often a request held for the budget says it is still waiting. */
export const WAIT_NOTICE_MS = 10_000;

/** Who sent a request: the main agent (no `agent`) or a subagent, and for what. */
export interface SpendPart {
  role: 'turn' | 'compaction' | 'side-query';
  agent?: { type: string; id: string };
}

/** One row of the run's cost by part; the rows add up to the run's total. */
export interface SpendRow {
  kind: 'main' | 'subagent' | 'compaction' | 'side-query' | 'failed';
  /** The subagent whose turns (or compaction) these are. */
  agentType?: string;
  agentId?: string;
  /** Attempts sent. */
  requests: number;
  usage: Usage;
  costUsd: number;
}

/** A request the budget cannot cover: it was not sent. */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';

  constructor(
    message: string,
    readonly limitUsd: number,
    readonly spentUsd: number,
  ) {
    super(message);
  }
}

export function isBudgetExceeded(error: unknown): error is BudgetExceededError {
  return error instanceof BudgetExceededError;
}

interface SpendRecord {
  part: SpendPart;
  failed: boolean;
  model: string;
  usage: Usage;
  costUsd: number;
}

interface Grant {
  reservedUsd: number;
  maxTokens: number;
  settled: boolean;
}

export interface SpendMeterOptions {
  /** The run's budget in USD; none: everything is counted, nothing refused. */
  limitUsd?: number;
  /** How often a request held for the budget says so; default `WAIT_NOTICE_MS`. */
  waitNoticeMs?: number;
}

export class SpendMeter {
  readonly limitUsd: number | undefined;
  private readonly waitNoticeMs: number;
  private readonly records: SpendRecord[] = [];
  private spent = 0;
  private reserved = 0;
  private densest = 0;
  private readonly capped = new Set<string>();
  private waiters: Array<() => void> = [];

  constructor(options: SpendMeterOptions = {}) {
    this.limitUsd = options.limitUsd;
    this.waitNoticeMs = options.waitNoticeMs ?? WAIT_NOTICE_MS;
  }

  /** What the run has spent, in USD: every attempt's reported usage, priced. */
  get spentUsd(): number {
    return this.spent;
  }

  /** The client for one part of the run: every request through it is bounded and counted. */
  client(inner: ModelClient, part: SpendPart): ModelClient {
    return { stream: (request) => this.meteredStream(inner, part, request) };
  }

  /** Count usage the meter did not see sent (tests; a caller's own request). */
  add(part: SpendPart, model: string, usage: Usage, failed = false): void {
    const costUsd = costUSD(model, usage);
    this.records.push({ part, failed, model, usage: { ...usage }, costUsd });
    this.spent += costUsd;
  }

  /** Whether the budget lowered `max_tokens` for the request this message answered. */
  wasCapped(messageId: string): boolean {
    return this.capped.has(messageId);
  }

  /** Usage, modelUsage and cost of the whole run, or of one subagent (its turns and compactions). */
  summary(agentId?: string): UsageSummary {
    const tracker = new UsageTracker();
    for (const record of this.records) {
      if (agentId !== undefined && record.part.agent?.id !== agentId) continue;
      tracker.add(record.model, record.usage);
    }
    return tracker.summary();
  }

  /** The run's cost by part, in the order each part first spent. */
  rows(): SpendRow[] {
    const rows = new Map<string, SpendRow>();
    for (const record of this.records) {
      const row = rowOf(record);
      const key = `${row.kind} ${row.agentId ?? ''}`;
      const found = rows.get(key) ?? row;
      rows.set(key, found);
      found.requests++;
      found.costUsd += record.costUsd;
      addUsage(found.usage, record.usage);
    }
    return [...rows.values()];
  }

  private async *meteredStream(
    inner: ModelClient,
    part: SpendPart,
    request: ModelRequest,
  ): AsyncGenerator<ModelStreamEvent> {
    const estimate = estimateInput(request);
    const reserving = this.reserve(request, part, estimate);
    let grant: Grant | undefined;
    try {
      while (grant === undefined) {
        grant = await raceTimer(reserving, this.waitNoticeMs);
        if (grant === undefined) yield { type: 'waiting-for-budget' };
      }
    } finally {
      // Given up while waiting: whatever the reservation becomes is released unused.
      if (grant === undefined) {
        reserving.then(
          (late) => this.release(late),
          () => undefined,
        );
      }
    }
    const sent =
      grant.maxTokens === request.maxTokens ? request : { ...request, maxTokens: grant.maxTokens };
    let model = request.model;
    let startUsage: Usage | undefined;
    let outputBytes = 0;
    let completed: CompletedMessage | undefined;
    let failure: unknown;
    try {
      for await (const event of inner.stream(sent)) {
        if (event.type === 'message-start') {
          // A new message-start means the inner client started over: what came before was lost.
          model = event.model || request.model;
          startUsage = event.usage;
          outputBytes = 0;
          if (grant.maxTokens !== request.maxTokens) this.capped.add(event.messageId);
        } else if (event.type === 'text-delta') {
          outputBytes += Buffer.byteLength(event.text);
        } else if (event.type === 'tool-input-delta') {
          outputBytes += Buffer.byteLength(event.partialJson);
        } else if (event.type === 'block-complete' && event.block.type === 'thinking') {
          outputBytes += Buffer.byteLength(event.block.thinking);
        } else if (event.type === 'message-complete') {
          completed = event.message;
          this.calibrate(event.message.usage, estimate);
          this.settle(grant, part, false, event.message.model || model, event.message.usage);
        }
        yield event;
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      if (!grant.settled) {
        const usage = { ...(startUsage ?? this.unseenUsage(estimate, failure)) };
        const streamed = Math.ceil(outputBytes * this.tokensPerByte());
        usage.output_tokens = Math.max(usage.output_tokens, streamed);
        this.settle(grant, part, completed === undefined, model, usage);
      }
    }
  }

  /** What an attempt that failed before its message_start is counted at. */
  private unseenUsage(input: InputEstimate, failure: unknown): Usage {
    const answered = isModelError(failure) && failure.status !== undefined;
    const unreachable = isModelError(failure) && isUnreachable(failure.networkCode);
    if (answered || unreachable) return emptyUsage();
    const usage = emptyUsage();
    usage.input_tokens = Math.ceil(input.bytes * this.tokensPerByte()) + input.fixedTokens;
    return usage;
  }

  /** Step 1: the request's worst case set aside, with max_tokens lowered to fit; or a refusal. */
  private async reserve(
    request: ModelRequest,
    part: SpendPart,
    input: InputEstimate,
  ): Promise<Grant> {
    const limit = this.limitUsd;
    if (limit === undefined)
      return { reservedUsd: 0, maxTokens: request.maxTokens, settled: false };
    for (;;) {
      const worst = this.worstCase(request, input);
      const left = limit - this.spent - this.reserved;
      const room = left - worst.beforeOutputUsd;
      const fits = Math.floor(room / worst.outputUsdPerToken);
      const least = Math.min(MIN_OUTPUT_TOKENS, request.maxTokens);
      if (fits >= least) {
        const maxTokens = Math.min(request.maxTokens, fits);
        const reservedUsd = worst.beforeOutputUsd + maxTokens * worst.outputUsdPerToken;
        this.reserved += reservedUsd;
        return { reservedUsd, maxTokens, settled: false };
      }
      const withoutOthers = limit - this.spent - worst.beforeOutputUsd;
      if (this.reserved > 0 && withoutOthers >= least * worst.outputUsdPerToken) {
        await this.nextSettle(request.signal);
        continue;
      }
      throw new BudgetExceededError(
        refusalMessage(limit, this.spent, part, worst, least),
        limit,
        this.spent,
      );
    }
  }

  private worstCase(request: ModelRequest, input: InputEstimate) {
    const pricing = pricingFor(request.model);
    const tokens = Math.ceil(input.bytes * this.tokensPerByte()) + input.fixedTokens;
    const long =
      pricing.longPrompt !== undefined && tokens > pricing.longPrompt.aboveTokens
        ? pricing.longPrompt
        : undefined;
    const scale = long === undefined ? 1 : long.inputPerMTok / pricing.inputPerMTok;
    const inputPerToken =
      (Math.max(pricing.cacheWritePerMTok, pricing.inputPerMTok) * scale) / MILLION;
    const searches = (request.serverTools ?? []).reduce(
      (total, tool) => total + (tool.max_uses ?? 0),
      0,
    );
    return {
      inputTokens: tokens,
      beforeOutputUsd: tokens * inputPerToken + searches * WEB_SEARCH_USD,
      outputUsdPerToken: (long?.outputPerMTok ?? pricing.outputPerMTok) / MILLION,
    };
  }

  private tokensPerByte(): number {
    return Math.min(
      MAX_TOKENS_PER_BYTE,
      Math.max(DEFAULT_TOKENS_PER_BYTE, this.densest * CALIBRATION_MARGIN),
    );
  }

  /** Step 3: the densest request so far, from the API's own count of its prompt. */
  private calibrate(usage: Usage, input: InputEstimate): void {
    if (input.bytes === 0) return;
    const prompt =
      usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    this.densest = Math.max(this.densest, Math.max(0, prompt - input.fixedTokens) / input.bytes);
  }

  /** Step 2: the reservation released, the attempt's usage counted. */
  private settle(
    grant: Grant,
    part: SpendPart,
    failed: boolean,
    model: string,
    usage: Usage,
  ): void {
    this.add(part, model, usage, failed);
    this.release(grant);
  }

  private release(grant: Grant): void {
    if (grant.settled) return;
    grant.settled = true;
    this.reserved -= grant.reservedUsd;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private nextSettle(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) return reject(signal.reason as Error);
      const onAbort = () => reject(signal?.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}

/** The promise's value, or undefined when `ms` pass first. */
async function raceTimer<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface InputEstimate {
  /** UTF-8 bytes of the request's JSON, image data left out. */
  bytes: number;
  /** Tokens counted apart from the bytes: the overhead, the images. */
  fixedTokens: number;
}

function estimateInput(request: ModelRequest): InputEstimate {
  let images = 0;
  const json = JSON.stringify(
    {
      system: request.system,
      messages: request.messages,
      tools: request.tools,
      serverTools: request.serverTools ?? [],
    },
    (_key, value: unknown) => {
      if (isImage(value)) {
        images++;
        return { type: 'image' };
      }
      return value;
    },
  );
  return {
    bytes: Buffer.byteLength(json),
    fixedTokens: REQUEST_OVERHEAD_TOKENS + images * IMAGE_TOKENS,
  };
}

function isImage(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'image' &&
    'source' in value
  );
}

function refusalMessage(
  limit: number,
  spent: number,
  part: SpendPart,
  worst: { inputTokens: number; beforeOutputUsd: number },
  least: number,
): string {
  return (
    `Reached the budget: $${spent.toFixed(4)} spent, the limit is $${limit}; the next request ` +
    `(${describePart(part)}) was not sent: its input (about ${worst.inputTokens} tokens) and ` +
    `${least} tokens of answer could cost $${worst.beforeOutputUsd.toFixed(4)} and more, ` +
    `beyond what is left`
  );
}

export function describePart(part: SpendPart): string {
  const agent =
    part.agent === undefined ? 'the main agent' : `subagent ${part.agent.type} ${part.agent.id}`;
  if (part.role === 'compaction') return `compaction of ${agent}'s conversation`;
  if (part.role === 'side-query') return 'a side query';
  return agent;
}

function rowOf(record: SpendRecord): SpendRow {
  const { part } = record;
  const agent =
    part.agent === undefined ? {} : { agentType: part.agent.type, agentId: part.agent.id };
  const base = { requests: 0, usage: emptyUsage(), costUsd: 0 };
  if (record.failed) return { kind: 'failed', ...base };
  if (part.role === 'side-query') return { kind: 'side-query', ...base };
  if (part.role === 'compaction') return { kind: 'compaction', ...agent, ...base };
  return part.agent === undefined
    ? { kind: 'main', ...base }
    : { kind: 'subagent', ...agent, ...base };
}

function addUsage(total: Usage, usage: Usage): void {
  total.input_tokens += usage.input_tokens;
  total.output_tokens += usage.output_tokens;
  total.cache_creation_input_tokens += usage.cache_creation_input_tokens;
  total.cache_read_input_tokens += usage.cache_read_input_tokens;
}
