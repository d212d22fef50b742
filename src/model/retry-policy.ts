/**
 * When and how long to wait before asking the model again. Pure functions: the retrying client
 * (retrying-client.ts) applies them, the tests read them as a table.
 *
 * - Retried: what `ModelError.retryable` marks — 429, 529/overloaded, 408/409/5xx, connection
 *   failures, streams cut before `message_stop`, stalled streams.
 * - The wait: the server's `retry-after` when it sent one, else exponential backoff from
 *   `baseDelayMs`, doubling per retry up to `maxDelayMs`, shortened by up to a quarter at random.
 * - Never retried: authentication, permission, invalid requests (400, 404 model), aborts.
 */
import { ModelError } from './model-client.js';

export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the run stops with the error instead. */
  maxRetryAfterMs: number;
  /** No stream event for this long ends the attempt as stalled (it is then retried). */
  stallTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 10,
  baseDelayMs: 500,
  maxDelayMs: 32_000,
  maxRetryAfterMs: 5 * 60_000,
  stallTimeoutMs: 60_000,
});

/** Jitter spreads the retries of many runners that hit the same overloaded API at once. */
const JITTER = 0.25;

/** The wait before retry number `retry` (1-based); `random` returns a number in [0, 1). */
export function retryDelayMs(
  error: ModelError,
  retry: number,
  policy: Readonly<RetryPolicy>,
  random: () => number = Math.random,
): number {
  if (error.retryAfterMs !== undefined) return Math.ceil(error.retryAfterMs);
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exponential * (1 - JITTER * random()));
}

/**
 * Why this failure is not retried, or undefined when it should be. `retriesDone` counts the
 * retries already made for this request.
 */
export function refusalToRetry(
  error: ModelError,
  retriesDone: number,
  policy: Readonly<RetryPolicy>,
): ModelError | undefined {
  if (!error.retryable) return error;
  if (retriesDone >= policy.maxRetries) {
    return rewrap(
      error,
      `${error.message} Gave up after ${retriesDone} ${retriesDone === 1 ? 'retry' : 'retries'}.`,
    );
  }
  if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) {
    return rewrap(
      error,
      `${error.message} The API asked to wait ${seconds(error.retryAfterMs)} before retrying, longer than the ${seconds(policy.maxRetryAfterMs)} this run waits.`,
    );
  }
  return undefined;
}

/** A stream that sent nothing for too long: aborted and retried like a dropped one. */
export function stalledStreamError(stallTimeoutMs: number): ModelError {
  return new ModelError(
    `The model response stream stalled: no event for ${seconds(stallTimeoutMs)}.`,
    { kind: 'stream-dropped', retryable: true },
  );
}

/**
 * The `error` field of a `system/api_retry` line, in the categories Claude Code's SDK uses for
 * API errors (`rate_limit`, `server_error`, …), so readers of its logs can read ours.
 */
export function retryErrorCategory(error: ModelError): string {
  switch (error.kind) {
    case 'rate-limit':
      return 'rate_limit';
    case 'overloaded':
    case 'server':
      return 'server_error';
    case 'connection':
    case 'stream-dropped':
      return 'connection_error';
    case 'authentication':
    case 'permission':
      return 'authentication_failed';
    case 'invalid-request':
      return 'invalid_request';
    case 'aborted':
    case 'unknown':
      return 'unknown';
  }
}

/**
 * The message that ends a run on an error retrying cannot fix. A 404 names the model, which is
 * what the operator has to change.
 */
export function fatalErrorMessage(error: unknown, model: string): string | undefined {
  if (!(error instanceof ModelError)) return undefined;
  if (error.kind === 'invalid-request' && error.status === 404) {
    return `${error.message} Check the model id ${JSON.stringify(model)}: set --model, ANTHROPIC_MODEL or the action's model input to a model this key can use.`;
  }
  return undefined;
}

function rewrap(error: ModelError, message: string): ModelError {
  return new ModelError(message, {
    kind: error.kind,
    retryable: false,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.errorType === undefined ? {} : { errorType: error.errorType }),
    ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
    cause: error,
  });
}

function seconds(milliseconds: number): string {
  return `${milliseconds / 1000} s`;
}
