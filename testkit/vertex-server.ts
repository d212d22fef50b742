/**
 * A loopback Vertex AI endpoint for Anthropic models replaying a script, as
 * @anthropic-ai/vertex-sdk calls it: `new AnthropicVertex({ baseURL: server.baseURL, region,
 * projectId, … })`. The SDK replaces the `/v1/messages` it would call by
 * `/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict`
 * (or `:rawPredict`) after the base URL's own path, so the base URL must end in `/v1`, as the
 * real `https://{region}-aiplatform.googleapis.com/v1` does: `server.baseURL` is `url + '/v1'`.
 *
 * Per request:
 * 1. Record it (without `authorization`), with the model of the path (`claude-…@20250929`).
 * 2. `Authorization: Bearer <accessToken>` is required; else 401 UNAUTHENTICATED in Google's
 *    error JSON, with its `www-authenticate`.
 * 3. Route: POST …/models/{model}:streamRawPredict or :rawPredict; else 404. Another project →
 *    403 PERMISSION_DENIED; another region, or a model outside `models` → 404 NOT_FOUND.
 * 4. The body goes to the model as it is, so the model checks it, answering in the Messages
 *    API's error JSON: a JSON object, no `model`, `anthropic_version` one of the accepted.
 *    `stream: true` in the body (which the SDK keeps) asks for SSE, as on the Messages API.
 * 5. The scripted fault, else the next turn, as SSE (the Messages API's events) or one message.
 *
 * Faults: `http-error` 429 is Vertex's own quota refusal (RESOURCE_EXHAUSTED, Google's JSON);
 * any other `http-error` comes from the model and keeps the Messages API's error JSON;
 * `google-error` is any Google-format answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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
import { anthropicError, anthropicFaultReply, replayMessages } from './replay-server.js';
import { ReplaySession } from './replay-session.js';
import type { ProviderServer, ReplayFault, ReplayScriptOptions } from './replay-session.js';

/**
 * `vertex-2023-10-16` is the version Vertex documents for Anthropic models; the Vertex SDK 1.x
 * copies the Messages API version of its `anthropic-version` header (`2026-10-21`) instead.
 */
export const VERTEX_ANTHROPIC_VERSIONS: readonly string[] = ['vertex-2023-10-16', '2026-10-21'];

export type VertexFault = ReplayFault | { kind: 'google-error'; status: number; message?: string };

export interface VertexServerOptions extends ReplayScriptOptions {
  projectId: string;
  region: string;
  /** The OAuth 2 access token requests must carry as `Authorization: Bearer`. */
  accessToken: string;
  /** The model ids (`claude-sonnet-4-5@20250929`) the project may call; default: any. */
  models?: readonly string[];
  /** Default: VERTEX_ANTHROPIC_VERSIONS. */
  anthropicVersions?: readonly string[];
  /** Keyed by the 0-based index among model requests that pass steps 2–4. */
  faults?: Readonly<Record<number, VertexFault>>;
}

const CREDENTIAL_HEADERS = new Set(['authorization']);
const ROUTE =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/]+):(streamRawPredict|rawPredict)$/;

/** The canonical status name Google's APIs pair with each HTTP status. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const UNAUTHENTICATED =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

export async function startVertexServer(options: VertexServerOptions): Promise<ProviderServer> {
  const session = new ReplaySession<VertexFault>(options);
  const versions = options.anthropicVersions ?? VERTEX_ANTHROPIC_VERSIONS;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = (await readBody(request)).toString('utf8');
    const recorded = session.record(request, parseJson(rawBody), CREDENTIAL_HEADERS);
    const route = ROUTE.exec(recorded.path);
    const [, project = '', region = '', model = ''] = (route ?? []).map(decodePathSegment);
    if (route !== null) recorded.modelId = model;

    if (!sameSecret(bearerToken(request), options.accessToken)) {
      const reply = googleError(401, UNAUTHENTICATED);
      reply.headers = { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' };
      return sendReply(response, recorded, reply);
    }
    const refusal =
      recorded.method !== 'POST' || route === null || model === 'count-tokens'
        ? googleError(404, `${recorded.method} ${recorded.path} is not scripted.`)
        : (routeRefusal(project, region, model) ?? modelRefusal(recorded.body));
    if (refusal !== undefined) return sendReply(response, recorded, refusal);

    await replayMessages(session, response, recorded, rawBody.length, {
      model,
      stream: isRecord(recorded.body) && recorded.body['stream'] === true,
      errorReply: vertexFaultReply,
    });
  }

  function routeRefusal(project: string, region: string, model: string): HttpReply | undefined {
    const resource = `projects/${project}/locations/${region}/publishers/anthropic/models/${model}`;
    if (project !== options.projectId) {
      return googleError(
        403,
        `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${resource}' (or it may not exist).`,
      );
    }
    if (region !== options.region || (options.models && !options.models.includes(model))) {
      return googleError(404, `Publisher Model \`${resource}\` not found.`);
    }
    return undefined;
  }

  /** What the model answers to a body it refuses, in the Messages API's error JSON. */
  function modelRefusal(body: unknown): HttpReply | undefined {
    if (!isRecord(body)) {
      return anthropicError(400, 'invalid_request_error', 'The request body is not a JSON object.');
    }
    if ('model' in body) {
      return anthropicError(400, 'invalid_request_error', 'model: Extra inputs are not permitted');
    }
    const version = body['anthropic_version'];
    if (typeof version !== 'string' || !versions.includes(version)) {
      const expected = versions.map((accepted) => `'${accepted}'`).join(' or ');
      return anthropicError(
        400,
        'invalid_request_error',
        `anthropic_version: Input should be ${expected}`,
      );
    }
    return undefined;
  }

  const server = await startLoopbackHandler('Vertex server', handle, (message) =>
    googleError(500, message),
  );
  return {
    url: server.url,
    baseURL: `${server.url}/v1`,
    requests: session.requests,
    close: server.close,
  };
}

function vertexFaultReply(fault: VertexFault): HttpReply | undefined {
  if (fault.kind === 'google-error') return googleError(fault.status, fault.message);
  if (fault.kind === 'http-error' && fault.status === 429) {
    const reply = googleError(
      429,
      fault.message ??
        'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude. Please submit a quota increase request.',
    );
    if (fault.retryAfter !== undefined) reply.headers = { 'retry-after': fault.retryAfter };
    return reply;
  }
  return anthropicFaultReply(fault);
}

/** Google's error JSON: `{error: {code, message, status}}`. */
export function googleError(code: number, message?: string): HttpReply {
  const status = GOOGLE_STATUS[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { status: code, body: { error: { code, message: message ?? status, status } } };
}

export type { ProviderServer, RecordedRequest } from './replay-session.js';
