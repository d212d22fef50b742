/**
 * The run's limits besides max turns: the budget in USD and the wall-clock time limit. Each one
 * ends the run with its own result subtype and a message that names the limit.
 *
 * The budget between turns: a turn is not started when what was spent plus the estimate of that
 * turn would pass the limit. The estimate prices the last request's prompt again (its input, cache
 * reads and cache writes, at the same prices), the last answer as new input (the next prompt
 * carries it), and an answer as long as the longest one so far. Before the first turn nothing is
 * known and the turn starts. It is an early stop, not the bound: the bound is the spend meter's
 * (model/spend-meter.ts), which no request passes whatever sent it.
 */
import { costUSD } from '../model/pricing.js';
import type { Usage } from '../model/types.js';

export class BudgetGuard {
  private last: { model: string; usage: Usage } | undefined;
  private longestOutput = 0;

  constructor(private readonly limitUsd: number | undefined) {}

  /** Record one response's usage (a complete or a kept partial one). */
  record(model: string, usage: Usage): void {
    this.last = { model, usage };
    this.longestOutput = Math.max(this.longestOutput, usage.output_tokens);
  }

  /** What the next turn is expected to cost, in USD; 0 before the first response. */
  nextTurnEstimate(): number {
    if (this.last === undefined) return 0;
    const { model, usage } = this.last;
    return costUSD(model, {
      input_tokens: usage.input_tokens + usage.output_tokens,
      output_tokens: this.longestOutput,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
    });
  }

  /** Why the next turn must not start, or undefined when it may. */
  refusal(spentUsd: number): string | undefined {
    const limit = this.limitUsd;
    if (limit === undefined) return undefined;
    const spent = `$${spentUsd.toFixed(4)} spent, the limit is $${limit}`;
    if (spentUsd >= limit) return `Reached the budget: ${spent}`;
    const next = this.nextTurnEstimate();
    if (spentUsd + next <= limit) return undefined;
    return `Reached the budget: ${spent}, and the next turn would cost about $${next.toFixed(4)}`;
  }
}

/** The abort reason of a run stopped by its time limit. */
export class TimeLimitError extends Error {
  override readonly name = 'TimeLimitError';

  constructor(readonly timeoutMs: number) {
    super(`Reached the time limit of ${describeDuration(timeoutMs)}`);
  }
}

export interface TimeLimit {
  /** Aborts with a TimeLimitError when the time is up. */
  readonly signal: AbortSignal;
  /** Stop the timer (the run has ended). */
  clear(): void;
}

/** A timer for the whole run; without a limit, a signal that never aborts. */
export function startTimeLimit(timeoutMs: number | undefined): TimeLimit {
  const controller = new AbortController();
  if (timeoutMs === undefined) return { signal: controller.signal, clear: () => undefined };
  const timer = setTimeout(() => controller.abort(new TimeLimitError(timeoutMs)), timeoutMs);
  // The limit alone must not keep a finished process alive.
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

function describeDuration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) {
    const minutes = milliseconds / 60_000;
    return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
  }
  return `${milliseconds / 1000} s`;
}
