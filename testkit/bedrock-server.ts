/**
 * A loopback Amazon Bedrock runtime replaying a script, as @anthropic-ai/bedrock-sdk calls it:
 * `new AnthropicBedrock({ baseURL: server.url, awsRegion, awsAccessKey, awsSecretKey })`.
 *
 * Per request:
 * 1. Record it (without `authorization` and `x-amz-security-token`), with the model id of the
 *    path, decoded (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`, or an ARN the SDK sent with
 *    its `/` as `%2F`).
 * 2. Authenticate: a SigV4 signature that verifies with the known secret (sigv4-check.ts), or
 *    the Bedrock API key as `Authorization: Bearer` when one is set; 403 otherwise.
 * 3. Route: POST /model/{modelId}/invoke-with-response-stream or /invoke; else 404.
 * 4. Validate the body as Bedrock does for Anthropic models: a JSON object with
 *    `anthropic_version`, `max_tokens` and `messages`, no `model`, no `stream`; else 400
 *    ValidationException "Malformed input request: …". A model outside `models` → 400.
 * 5. The scripted fault for this request, else the next turn: one JSON message (/invoke) or the
 *    stream's events as event-stream `chunk` messages (aws-event-stream.ts).
 *
 * Errors are Bedrock's: the status, `x-amzn-ErrorType: <Name>:<namespace>` and `{"message"}`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { chunkMessage, EVENT_STREAM_CONTENT_TYPE, exceptionMessage } from './aws-event-stream.js';
import type { BedrockStreamExceptionType } from './aws-event-stream.js';
import { buildMessage, buildStreamEvents } from './replay-events.js';
import {
  bearerToken,
  decodePathSegment,
  isRecord,
  parseJson,
  sameSecret,
  sendReply,
  startLoopbackHandler,
} from './replay-http.js';
import { readBody } from './loopback-server.js';
import type { HttpReply } from './replay-http.js';
import { ReplaySession } from './replay-session.js';
import type {
  ReplayFault,
  ReplayScriptOptions,
  ProviderServer,
  StreamFault,
  StreamFraming,
} from './replay-session.js';
import { checkSigV4 } from './sigv4-check.js';

export type { BedrockStreamExceptionType } from './aws-event-stream.js';

/**
 * `bedrock-2023-05-31` is the version Bedrock documents for Anthropic models. The Bedrock SDK
 * 1.x sends neither by default but copies the Messages API version of its `anthropic-version`
 * header (`2026-10-21`) into the body; both are accepted, anything else is refused.
 */
export const BEDROCK_ANTHROPIC_VERSIONS: readonly string[] = ['bedrock-2023-05-31', '2026-10-21'];

export type BedrockFault =
  /** The Messages API faults, in Bedrock's terms: `http-error` by status (see below). */
  | ReplayFault
  /** A Bedrock error answer with the exception name given. */
  | { kind: 'bedrock-error'; status: number; errorType: string; message?: string }
  /** An `exception` message inside the 200 stream after `afterEvents` chunks. */
  | {
      kind: 'stream-exception';
      afterEvents: number;
      exceptionType: BedrockStreamExceptionType;
      message?: string;
      /** modelStreamErrorException's fields: what the model itself answered. */
      originalStatusCode?: number;
      originalMessage?: string;
    };

export interface BedrockServerOptions extends ReplayScriptOptions {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** When set, requests must carry it as `x-amz-security-token` (temporary credentials). */
  sessionToken?: string;
  /** A Bedrock API key (AWS_BEARER_TOKEN_BEDROCK), accepted as `Authorization: Bearer`. */
  apiKey?: string;
  /** The model ids this account may invoke; default: any. */
  models?: readonly string[];
  /** Default: BEDROCK_ANTHROPIC_VERSIONS. */
  anthropicVersions?: readonly string[];
  /** Keyed by the 0-based index among model requests that pass steps 2–4. */
  faults?: Readonly<Record<number, BedrockFault>>;
  /** The clock the signature's date is checked against; default `Date.now`. */
  now?: () => number;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-amz-security-token']);
const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;
const BEDROCK_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';
const CORAL_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.coral.service/';

/** The exception Bedrock names for each status (its InvokeModel errors). */
const EXCEPTION_BY_STATUS: Readonly<Record<number, [string, string]>> = {
  400: ['ValidationException', 'The request is not valid.'],
  403: ['AccessDeniedException', "You don't have access to the model with the specified model ID."],
  404: ['ResourceNotFoundException', 'The requested resource could not be found.'],
  408: ['ModelTimeoutException', 'Model has timed out in processing the request.'],
  424: ['ModelErrorException', 'The model failed to process the request.'],
  429: ['ThrottlingException', 'Too many requests, please wait before trying again.'],
  500: ['InternalServerException', 'The server encountered an internal error.'],
  503: ['ServiceUnavailableException', 'Bedrock is unable to process your request.'],
};

const EVENT_STREAM_FRAMING: StreamFraming = {
  contentType: EVENT_STREAM_CONTENT_TYPE,
  headers: { 'x-amzn-bedrock-content-type': 'application/json' },
  encode: (event) => chunkMessage(event.data),
};

export async function startBedrockServer(options: BedrockServerOptions): Promise<ProviderServer> {
  const session = new ReplaySession<BedrockFault>(options);
  const versions = options.anthropicVersions ?? BEDROCK_ANTHROPIC_VERSIONS;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const text = rawBody.toString('utf8');
    const recorded = session.record(request, parseJson(text), CREDENTIAL_HEADERS);
    response.setHeader('x-amzn-RequestId', randomUUID());
    const route = ROUTE.exec(recorded.path);
    const modelId = decodePathSegment(route?.[1] ?? '');
    if (route !== null) recorded.modelId = modelId;

    const refusal =
      (await authenticate(request, rawBody)) ??
      (recorded.method !== 'POST' || route === null
        ? bedrockError(404, 'UnknownOperationException', 'Unknown operation', CORAL_NAMESPACE)
        : validate(recorded.body, modelId));
    if (refusal !== undefined) return sendReply(response, recorded, refusal);

    const fault = session.nextFault();
    if (fault?.kind === 'http-error' || fault?.kind === 'bedrock-error') {
      return sendReply(response, recorded, faultReply(fault));
    }
    const turn = await session.takeTurn(recorded, fault !== undefined);
    const build = session.buildOptions(recorded, text.length, modelId);
    if (route?.[2] === 'invoke') {
      return sendReply(response, recorded, { status: 200, body: buildMessage(turn, build) });
    }
    const events = buildStreamEvents(turn, build);
    await session.stream(
      response,
      recorded,
      turn,
      events,
      EVENT_STREAM_FRAMING,
      streamFault(fault),
    );
  }

  async function authenticate(
    request: IncomingMessage,
    body: Buffer,
  ): Promise<HttpReply | undefined> {
    const token = bearerToken(request);
    if (options.apiKey !== undefined && token !== undefined) {
      return sameSecret(token, options.apiKey)
        ? undefined
        : bedrockError(
            403,
            'AccessDeniedException',
            'Authentication failed: Please make sure your API Key is valid.',
          );
    }
    const refusal = await checkSigV4(request, body, {
      credentials: {
        accessKeyId: options.accessKeyId,
        secretAccessKey: options.secretAccessKey,
        ...(options.sessionToken === undefined ? {} : { sessionToken: options.sessionToken }),
      },
      region: options.region,
      service: 'bedrock',
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    return refusal === undefined
      ? undefined
      : bedrockError(refusal.status, refusal.errorType, refusal.message, CORAL_NAMESPACE);
  }

  /** Bedrock's own check of the model id and of an Anthropic request body. */
  function validate(body: unknown, modelId: string): HttpReply | undefined {
    const invalid = (message: string) => bedrockError(400, 'ValidationException', message);
    if (options.models !== undefined && !options.models.includes(modelId)) {
      return invalid('The provided model identifier is invalid.');
    }
    if (!isRecord(body)) return invalid(malformed('#: expected type: JSONObject, found: Null'));
    for (const key of ['model', 'stream']) {
      if (key in body) return invalid(malformed(`#: extraneous key [${key}] is not permitted`));
    }
    for (const key of ['anthropic_version', 'max_tokens', 'messages']) {
      if (!(key in body)) return invalid(malformed(`#: required key [${key}] not found`));
    }
    const version = body['anthropic_version'];
    if (typeof version !== 'string' || !versions.includes(version)) {
      return invalid(
        malformed(`#/anthropic_version: ${String(version)} is not a valid enum value`),
      );
    }
    return undefined;
  }

  const server = await startLoopbackHandler('Bedrock server', handle, (message) =>
    bedrockError(500, 'InternalServerException', message),
  );
  return { url: server.url, baseURL: server.url, requests: session.requests, close: server.close };
}

function faultReply(
  fault: Extract<BedrockFault, { kind: 'http-error' } | { kind: 'bedrock-error' }>,
): HttpReply {
  const [byStatus, defaultMessage] = exceptionFor(fault.status);
  const errorType = fault.kind === 'bedrock-error' ? fault.errorType : byStatus;
  const reply = bedrockError(fault.status, errorType, fault.message ?? defaultMessage);
  if (fault.kind === 'http-error' && fault.retryAfter !== undefined) {
    reply.headers = { ...reply.headers, 'retry-after': fault.retryAfter };
  }
  return reply;
}

/**
 * A stream fault in Bedrock's terms: an exception message; the Messages API's own `error`
 * event as a chunk carrying it (the SDK turns it back into the same SSE error event); a drop.
 */
function streamFault(fault: BedrockFault | undefined): StreamFault | undefined {
  if (fault === undefined || fault.kind === 'http-error' || fault.kind === 'bedrock-error') {
    return undefined;
  }
  if (fault.kind === 'drop') return fault;
  if (fault.kind === 'error-event') {
    const error = { type: fault.errorType, message: fault.message ?? fault.errorType };
    const bytes = chunkMessage({ type: 'error', error });
    return { kind: 'frames', afterEvents: fault.afterEvents, frames: [{ name: 'error', bytes }] };
  }
  const payload: Record<string, unknown> = { message: fault.message ?? fault.exceptionType };
  if (fault.originalStatusCode !== undefined)
    payload['originalStatusCode'] = fault.originalStatusCode;
  if (fault.originalMessage !== undefined) payload['originalMessage'] = fault.originalMessage;
  const bytes = exceptionMessage(fault.exceptionType, payload);
  return {
    kind: 'frames',
    afterEvents: fault.afterEvents,
    frames: [{ name: fault.exceptionType, bytes }],
  };
}

/** Bedrock's error answer: `x-amzn-ErrorType: <Name>:<namespace>` and `{"message": …}`. */
export function bedrockError(
  status: number,
  errorType: string,
  message: string,
  namespace = BEDROCK_NAMESPACE,
): HttpReply {
  return {
    status,
    headers: { 'x-amzn-ErrorType': `${errorType}:${namespace}` },
    body: { message },
  };
}

/** The exception Bedrock names for `status`; another 5xx counts as internal, a 4xx as invalid. */
function exceptionFor(status: number): readonly [string, string] {
  return (
    EXCEPTION_BY_STATUS[status] ??
    EXCEPTION_BY_STATUS[status >= 500 ? 500 : 400] ?? ['ValidationException', 'Invalid request.']
  );
}

function malformed(detail: string): string {
  return `Malformed input request: ${detail}, please reformat your input and try again.`;
}

export type { ProviderServer, RecordedRequest } from './replay-session.js';
