/**
 * When and how long to wait before asking the model again. Pure functions: the retrying client
 * (retrying-client.ts) applies them, the tests read them as a table.
 *
 * - Retried: what `ModelError.retryable` marks — 429, 529/overloaded, 408/409/5xx, connection
 *   failures, streams cut before `message_stop`, stalled streams.
 * - The wait: the server's `retry-after` when it sent one, else exponential backoff from
 *   `baseDelayMs`, doubling per retry up to `maxDelayMs`, shortened by up to a quarter at random.
 * - How often: up to `maxRetries` (10, as Claude Code) for what passes — 429, 5xx, overloaded, a
 *   reset connection or a cut stream. A connection that cannot be made at all (ECONNREFUSED,
 *   ENOTFOUND, EHOSTUNREACH, ENETUNREACH) gets `maxUnreachableRetries` (3), ~3 s of backoff:
 *   nothing listening at the URL is nearly always a wrong ANTHROPIC_BASE_URL or a proxy that is
 *   not up, which ten retries (~140 s of silence) do not fix; three still ride out a restart.
 * - Never retried: authentication, permission, invalid requests (400, 404 model), aborts.
 */
import { isUnreachable, ModelError } from './model-client.js';

export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** Retries when no connection could be made at all (never more than `maxRetries`). */
  maxUnreachableRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the run stops with the error instead. */
  maxRetryAfterMs: number;
  /** No stream event for this long ends the attempt as stalled (it is then retried). */
  stallTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 10,
  maxUnreachableRetries: 3,
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
  if (retriesDone >= retryLimit(error, policy)) {
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

/** How many retries this kind of failure gets in all. */
export function retryLimit(error: ModelError, policy: Readonly<RetryPolicy>): number {
  return isUnreachable(error.networkCode)
    ? Math.min(policy.maxRetries, policy.maxUnreachableRetries)
    : policy.maxRetries;
}

/**
 * The one line a retry shows as it happens (the action's step log, the CLI's stderr):
 * `model API request failed (connect ECONNREFUSED 127.0.0.1:8080) at
 * http://127.0.0.1:8080/v1/messages; retry 2 of 3 in 1 s`.
 */
export function retryLine(retry: {
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** Without one, the error's whole message stands in. */
  cause?: string;
  message: string;
  url?: string;
}): string {
  const where = retry.url === undefined ? '' : ` at ${retry.url}`;
  return `model API request failed (${retry.cause ?? retry.message})${where}; retry ${retry.attempt} of ${retry.maxRetries} in ${shortSeconds(retry.delayMs)}`;
}

/** A stream that sent nothing for too long: aborted and retried like a dropped one. */
export function stalledStreamError(stallTimeoutMs: number): ModelError {
  return new ModelError(
    `The model response stream stalled: no event for ${seconds(stallTimeoutMs)}.`,
    { kind: 'stream-dropped', retryable: true, detail: `no event for ${seconds(stallTimeoutMs)}` },
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
    ...(error.url === undefined ? {} : { url: error.url }),
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    ...(error.networkCode === undefined ? {} : { networkCode: error.networkCode }),
    cause: error,
  });
}

function seconds(milliseconds: number): string {
  return `${milliseconds / 1000} s`;
}

/** A wait to a tenth of a second: `0.4 s`, `4 s`, `27.3 s`. */
function shortSeconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(1))} s`;
}
