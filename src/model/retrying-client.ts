/**
 * A `ModelClient` that retries failed requests, wrapped around any other (the Anthropic adapter
 * keeps the SDK's own retries off, so this is the only retry layer).
 *
 * Per request:
 * 1. Stream an attempt, passing each event on as it arrives, under a watchdog: no event for
 *    `stallTimeoutMs` aborts the attempt as stalled.
 * 2. On a failure, stop with the error when the run was aborted, when a `tool_use` block of this
 *    attempt was already passed on, or when `refusalToRetry` says so. A passed-on tool_use may
 *    have started its tool: asking again would run it twice, so the consumer keeps the partial
 *    response instead (agent/turn-stream.ts).
 * 3. Otherwise report the retry (`onRetry`), wait (retry-policy.ts), and go to 1.
 *
 * A retried attempt starts over with a new `message-start`: consumers drop what they gathered of
 * the failed attempt when they see one.
 */
import { abortedError } from './anthropic-errors.js';
import { isModelError } from './model-client.js';
import type { ModelClient, ModelError, ModelRequest, ModelStreamEvent } from './model-client.js';
import {
  DEFAULT_RETRY_POLICY,
  refusalToRetry,
  retryDelayMs,
  retryLimit,
  stalledStreamError,
} from './retry-policy.js';
import type { RetryPolicy } from './retry-policy.js';

export interface RetryNotice {
  /** 1-based number of the retry about to be made. */
  attempt: number;
  /** The retries this failure gets in all (fewer for a connection that cannot be made). */
  maxRetries: number;
  delayMs: number;
  error: ModelError;
}

/** Time as the retrying client sees it; tests pass one they drive by hand. */
export interface RetryClock {
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
  /** Calls `callback` after `ms` unless the returned function is called first. */
  startTimer(ms: number, callback: () => void): () => void;
  random(): number;
}

export interface RetryingClientOptions extends Partial<RetryPolicy> {
  onRetry?: (notice: RetryNotice) => void;
  clock?: RetryClock;
}

export function withRetries(inner: ModelClient, options: RetryingClientOptions = {}): ModelClient {
  const { onRetry, clock = systemClock, ...overrides } = options;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(overrides) };
  return { stream: (request) => streamWithRetries(inner, request, policy, clock, onRetry) };
}

async function* streamWithRetries(
  inner: ModelClient,
  request: ModelRequest,
  policy: RetryPolicy,
  clock: RetryClock,
  onRetry: RetryingClientOptions['onRetry'],
): AsyncGenerator<ModelStreamEvent> {
  for (let retries = 0; ; retries++) {
    const attempt = new Attempt(inner, request, policy.stallTimeoutMs, clock);
    try {
      yield* attempt.events();
      return;
    } catch (error) {
      if (request.signal?.aborted === true) throw abortedError(request.signal.reason);
      if (!isModelError(error) || attempt.passedToolUse) throw error;
      const refusal = refusalToRetry(error, retries, policy);
      if (refusal !== undefined) throw refusal;
      const delayMs = retryDelayMs(error, retries + 1, policy, () => clock.random());
      onRetry?.({ attempt: retries + 1, maxRetries: retryLimit(error, policy), delayMs, error });
      try {
        await clock.sleep(delayMs, request.signal);
      } catch {
        throw abortedError(request.signal?.reason);
      }
    }
  }
}

/** One request to the inner client, its own abort controller, and the stall watchdog. */
class Attempt {
  passedToolUse = false;
  private readonly controller = new AbortController();
  private interrupt: (error: unknown) => void = () => undefined;
  private readonly interrupted: Promise<never>;

  constructor(
    private readonly inner: ModelClient,
    private readonly request: ModelRequest,
    private readonly stallTimeoutMs: number,
    private readonly clock: RetryClock,
  ) {
    this.interrupted = new Promise<never>((_, reject) => (this.interrupt = reject));
    // Whoever wins the race below, this promise must never count as unhandled.
    this.interrupted.catch(() => undefined);
  }

  async *events(): AsyncGenerator<ModelStreamEvent> {
    const outer = this.request.signal;
    const signal = outer
      ? AbortSignal.any([outer, this.controller.signal])
      : this.controller.signal;
    const onOuterAbort = () => this.interrupt(abortedError(outer?.reason));
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    const iterator = this.inner.stream({ ...this.request, signal })[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        // A client that ignores its signal must not hold the run: the race ends the wait anyway.
        const stopWatch = this.clock.startTimer(this.stallTimeoutMs, () => this.stall());
        let step: IteratorResult<ModelStreamEvent>;
        try {
          step = await Promise.race([iterator.next(), this.interrupted]);
        } finally {
          stopWatch();
        }
        if (step.done === true) {
          finished = true;
          return;
        }
        const event = step.value;
        if (event.type === 'block-complete' && event.block.type === 'tool_use')
          this.passedToolUse = true;
        yield event;
      }
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
      if (!finished) {
        this.controller.abort(new Error('the model request was given up'));
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
      }
    }
  }

  private stall(): void {
    const error = stalledStreamError(this.stallTimeoutMs);
    this.controller.abort(error);
    this.interrupt(error);
  }
}

const systemClock: RetryClock = {
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) return reject(signal.reason as Error);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  startTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    // The watchdog alone must not keep a finished process alive.
    timer.unref();
    return () => clearTimeout(timer);
  },
  random: () => Math.random(),
};

function definedOnly(values: Partial<RetryPolicy>): Partial<RetryPolicy> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
