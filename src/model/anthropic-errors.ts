/**
 * Sorts whatever the Anthropic SDK (or a provider's SDK built on it) or the network threw into one
 * `ModelError`. The loop retries what is retryable and stops the run with the message otherwise,
 * so each message names what the operator has to change: the `ErrorContext` says which service
 * it was and which variables set it up (provider-errors.ts makes one per provider).
 */

import type { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { APIConnectionError, APIError, APIUserAbortError } from './anthropic-sdk.js';
import { isUnreachable, ModelError, parseRetryAfter } from './model-client.js';
import type { ModelErrorKind } from './model-client.js';

const RETRYABLE_ERROR_TYPES = new Set([
  'overloaded_error',
  'rate_limit_error',
  'api_error',
  'timeout_error',
]);

/** What the messages say about the service and its configuration. */
export interface ErrorContext {
  /** `the Anthropic API`, `Amazon Bedrock`. */
  service: string;
  /** The 401 message, around the response's own words. */
  rejected(detail: string): string;
  /** The 403 message. */
  forbidden(detail: string): string;
  /** What sets the URL, for a host that cannot be reached: `ANTHROPIC_BASE_URL`. */
  urlVariable: string;
  /** The error's type when the body has none in Anthropic's shape (Bedrock's, Vertex AI's). */
  errorTypeOf?(error: APIError): string | undefined;
  /** Provider error types (lower case) and what they mean. */
  kinds?: Readonly<Record<string, ModelErrorKind>>;
  /**
   * The SDK reports a failure to get credentials before the request as a connection error; the
   * context says which of those no retry can fix (no credentials at all, a refused token).
   */
  credentialFailure?(error: APIConnectionError, url: string | undefined): ModelError | undefined;
  /**
   * The error classes of an SDK bundled apart from this module (Bedrock's, Vertex AI's:
   * provider-sdks.ts), which has its own copy of them: the client class, whose statics name them.
   */
  sdk?: SdkErrorClasses;
}

/** An SDK client class's statics naming its error classes (`AnthropicBedrock.APIError`). */
export type SdkErrorClasses = Pick<
  typeof BaseAnthropic,
  'APIError' | 'APIConnectionError' | 'APIUserAbortError'
>;

const OWN_ERRORS: SdkErrorClasses = { APIError, APIConnectionError, APIUserAbortError };

/** `error` is an instance of the class `name` of this module's SDK or the context's. */
function isSdkError<Name extends keyof SdkErrorClasses>(
  error: unknown,
  name: Name,
  context: ErrorContext,
): error is InstanceType<SdkErrorClasses[Name]> {
  return (
    error instanceof OWN_ERRORS[name] ||
    (context.sdk !== undefined && error instanceof context.sdk[name])
  );
}

/** The Anthropic API with an API key in ANTHROPIC_API_KEY: the messages as they always were. */
export const ANTHROPIC_API_KEY_ERRORS: ErrorContext = {
  service: 'the Anthropic API',
  rejected: (detail) =>
    `The Anthropic API rejected the API key (${detail}). Check that ANTHROPIC_API_KEY holds a valid, active key.`,
  forbidden: (detail) =>
    `The API key in ANTHROPIC_API_KEY is not allowed to make this request (${detail}). Check the key's workspace and model access.`,
  urlVariable: 'ANTHROPIC_BASE_URL',
};

export function abortedError(cause?: unknown): ModelError {
  return new ModelError('The model request was aborted.', {
    kind: 'aborted',
    retryable: false,
    cause,
  });
}

export function droppedStreamError(cause?: unknown, url?: string): ModelError {
  const reason = cause instanceof Error && cause.message !== '' ? ` (${cause.message})` : '';
  const networkCode = codeInChain(cause);
  return new ModelError(
    `The model response stream ended before the message was complete${reason}.`,
    {
      kind: 'stream-dropped',
      retryable: true,
      detail:
        cause === undefined ? 'the stream ended before message_stop' : innermostMessage(cause),
      ...(url === undefined ? {} : { url }),
      ...(networkCode === undefined ? {} : { networkCode }),
      cause,
    },
  );
}

/** `url`: where the request went, named in the messages (and the retry lines built from them). */
export function toModelError(
  error: unknown,
  signal: AbortSignal | undefined,
  url?: string,
  context: ErrorContext = ANTHROPIC_API_KEY_ERRORS,
): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted === true || isSdkError(error, 'APIUserAbortError', context))
    return abortedError(signal?.reason ?? error);
  if (isSdkError(error, 'APIConnectionError', context))
    return context.credentialFailure?.(error, url) ?? connectionError(error, url, context);
  if (isSdkError(error, 'APIError', context)) return fromApiError(error, url, context);
  if (isBrokenConnection(error)) return droppedStreamError(error, url);
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model request failed: ${message}`, {
    kind: 'unknown',
    retryable: false,
    cause: error,
  });
}

/**
 * No response at all. Node's fetch nests the socket's error (`connect ECONNREFUSED …`) two causes
 * down, under "Connection error." and "fetch failed": the message names that one and the URL.
 */
function connectionError(
  error: APIConnectionError,
  url: string | undefined,
  context: ErrorContext,
): ModelError {
  const detail = innermostMessage(error);
  const networkCode = codeInChain(error);
  const where = url === undefined ? '' : ` at ${url}`;
  const common = {
    kind: 'connection' as const,
    detail,
    ...(url === undefined ? {} : { url }),
    ...(networkCode === undefined ? {} : { networkCode }),
    cause: error,
  };
  // fetch refuses some ports outright (https://fetch.spec.whatwg.org/#port-blocking): asking
  // again cannot help, and the fix is the URL.
  if (detail === 'bad port') {
    return new ModelError(
      `Could not reach ${context.service}${where}: fetch never connects to this port (a blocked "bad port", https://fetch.spec.whatwg.org/#port-blocking). Use another port in ${context.urlVariable}.`,
      { ...common, retryable: false },
    );
  }
  const hint = isUnreachable(networkCode)
    ? ` Check ${context.urlVariable} and that the runner can reach that host.`
    : '';
  return new ModelError(`Could not reach ${context.service}${where} (${detail}).${hint}`, {
    ...common,
    retryable: true,
  });
}

function fromApiError(error: APIError, url: string | undefined, context: ErrorContext): ModelError {
  const status = error.status;
  const errorType = error.type ?? context.errorTypeOf?.(error) ?? undefined;
  const detail = describe(error, errorType);
  const common = {
    ...(status === undefined ? {} : { status }),
    ...(errorType === undefined ? {} : { errorType }),
    ...(error.requestID ? { requestId: error.requestID } : {}),
    detail,
    ...(url === undefined ? {} : { url }),
    cause: error,
  };

  const providerKind =
    errorType === undefined ? undefined : context.kinds?.[errorType.toLowerCase()];
  if (
    providerKind === 'authentication' ||
    (providerKind === undefined && (status === 401 || errorType === 'authentication_error'))
  ) {
    return new ModelError(context.rejected(detail), {
      ...common,
      kind: 'authentication',
      retryable: false,
    });
  }
  if (
    providerKind === 'permission' ||
    (providerKind === undefined && (status === 403 || errorType === 'permission_error'))
  ) {
    return new ModelError(context.forbidden(detail), {
      ...common,
      kind: 'permission',
      retryable: false,
    });
  }

  const kind =
    providerKind === undefined ? retryableKind(status, errorType) : retryableOnly(providerKind);
  if (kind !== undefined) {
    const retryAfterMs = parseRetryAfter(error.headers);
    return new ModelError(
      `${capitalized(context.service)} is temporarily unavailable (${detail}).`,
      {
        ...common,
        kind,
        retryable: true,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    );
  }
  return new ModelError(`${capitalized(context.service)} refused the request (${detail}).`, {
    ...common,
    kind: 'invalid-request',
    retryable: false,
  });
}

function retryableKind(
  status: number | undefined,
  errorType: string | undefined,
): ModelErrorKind | undefined {
  if (status === 429 || errorType === 'rate_limit_error') return 'rate-limit';
  if (status === 529 || errorType === 'overloaded_error') return 'overloaded';
  if (status === 408 || status === 409 || (status !== undefined && status >= 500)) return 'server';
  // An `error` event inside a 200 stream carries no status, only the type.
  if (status === undefined && errorType !== undefined && RETRYABLE_ERROR_TYPES.has(errorType))
    return 'server';
  return undefined;
}

/** The kinds a provider's error type can name that a retry may fix. */
function retryableOnly(kind: ModelErrorKind): ModelErrorKind | undefined {
  return kind === 'rate-limit' || kind === 'overloaded' || kind === 'server' ? kind : undefined;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function describe(error: APIError, errorType: string | undefined): string {
  const parts = [error.status === undefined ? 'stream error' : String(error.status)];
  if (errorType) parts.push(errorType);
  const text = parts.join(' ');
  const message = error.apiMessage ?? bodyMessage(error.error);
  return message ? `${text}: ${message}` : text;
}

/**
 * The message of an error body in another shape than Anthropic's: Bedrock's `{"message": …}`,
 * Google's `{"error": {"message": …}}`, also inside a one-element list.
 */
function bodyMessage(body: unknown): string | undefined {
  const first: unknown = Array.isArray(body) ? body[0] : body;
  if (typeof first !== 'object' || first === null) return undefined;
  const record = first as Record<string, unknown>;
  const nested = record['error'];
  const candidates = [
    record['message'],
    record['Message'],
    typeof nested === 'object' && nested !== null
      ? (nested as Record<string, unknown>)['message']
      : undefined,
  ];
  const found = candidates.find((value) => typeof value === 'string' && value !== '');
  return typeof found === 'string' ? found : undefined;
}

/**
 * Node's fetch reports a socket closed mid-body as `TypeError: terminated` with the socket error as
 * its cause; the connection-level codes cover the same failure seen from other layers.
 */
function isBrokenConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TypeError' && error.message === 'terminated') return true;
  const code = errorCode(error) ?? errorCode(error.cause);
  return code !== undefined && BROKEN_CONNECTION_CODES.has(code);
}

const BROKEN_CONNECTION_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The first network error code along the cause chain (an AggregateError: its first error's). */
export function codeInChain(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    const code = errorCode(link);
    if (code !== undefined) return code;
  }
  return undefined;
}

/** The message of the deepest error along the cause chain that has one. */
export function innermostMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  for (const link of causeChain(error)) if (link.message !== '') message = link.message;
  return message;
}

/** `error`, its cause, their cause, …, stepping into an AggregateError's first error. */
export function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  let link: unknown = error;
  while (link instanceof Error && chain.length < 8 && !chain.includes(link)) {
    chain.push(link);
    link = link instanceof AggregateError && link.errors.length > 0 ? link.errors[0] : link.cause;
  }
  return chain;
}

function errorCode(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('code' in value)) return undefined;
  return typeof value.code === 'string' ? value.code : undefined;
}
