/**
 * A loopback Microsoft Foundry resource serving Claude, replaying a script, as
 * @anthropic-ai/foundry-sdk calls it: `new AnthropicFoundry({ baseURL: server.baseURL, apiKey })`
 * (or `azureADTokenProvider`). The real base URL is `https://{resource}.services.ai.azure.com/anthropic/`
 * and the SDK appends the Messages API's own `v1/messages`: `server.baseURL` is
 * `url + '/anthropic/'`. The body is the Messages API's, `model` naming the deployment.
 *
 * Per request:
 * 1. Record it (without `x-api-key`, `api-key`, `authorization`), with the body's `model`.
 * 2. Authenticate: the resource key as `x-api-key` (what the SDK sends) or `api-key` (Azure's
 *    own header), or the Entra ID token as `Authorization: Bearer`; else 401 in Azure's error
 *    JSON (`{error: {code, message}}`).
 * 3. Route: POST /anthropic/v1/messages; else 404.
 * 4. The body: a JSON object naming a deployment (one of `deployments`, when set: else 404
 *    DeploymentNotFound), with the `anthropic-version` header the Messages API requires.
 * 5. The scripted fault (the Messages API's error JSON: Foundry runs Anthropic's API), else the
 *    next turn, as SSE or as one message.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  bearerToken,
  isRecord,
  parseJson,
  sameSecret,
  sendReply,
  startLoopbackHandler,
  stringField,
} from './replay-http.js';
import { readBody } from './loopback-server.js';
import type { HttpReply } from './replay-http.js';
import { anthropicError, replayMessages } from './replay-server.js';
import { ReplaySession } from './replay-session.js';
import type { ProviderServer, ReplayFault, ReplayScriptOptions } from './replay-session.js';

export interface FoundryServerOptions extends ReplayScriptOptions {
  /** The resource's key, accepted as `x-api-key` or `api-key`. */
  apiKey?: string;
  /** A Microsoft Entra ID access token, accepted as `Authorization: Bearer`. */
  entraToken?: string;
  /** The deployment names requests may use as `model`; default: any. */
  deployments?: readonly string[];
  /** Keyed by the 0-based index among model requests that pass steps 2–4. */
  faults?: Readonly<Record<number, ReplayFault>>;
}

const CREDENTIAL_HEADERS = new Set(['x-api-key', 'api-key', 'authorization']);
const MESSAGES_PATH = '/anthropic/v1/messages';

export async function startFoundryServer(options: FoundryServerOptions): Promise<ProviderServer> {
  if (options.apiKey === undefined && options.entraToken === undefined) {
    throw new Error(
      'startFoundryServer: set `apiKey`, `entraToken` or both; a resource takes one.',
    );
  }
  const session = new ReplaySession<ReplayFault>(options);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = (await readBody(request)).toString('utf8');
    const recorded = session.record(request, parseJson(rawBody), CREDENTIAL_HEADERS);
    response.setHeader('request-id', `req_foundry_${recorded.index}`);
    response.setHeader('apim-request-id', randomUUID());
    const model = isRecord(recorded.body) ? stringField(recorded.body, 'model') : undefined;
    if (model !== undefined) recorded.modelId = model;

    const refusal = authenticate(request) ?? route(recorded.method, recorded.path, request);
    if (refusal !== undefined) return sendReply(response, recorded, refusal);
    const invalid = deploymentRefusal(recorded.body, model);
    if (invalid !== undefined) return sendReply(response, recorded, invalid);
    await replayMessages(session, response, recorded, rawBody.length, {
      model,
      stream: isRecord(recorded.body) && recorded.body['stream'] === true,
    });
  }

  function authenticate(request: IncomingMessage): HttpReply | undefined {
    const token = bearerToken(request);
    if (token !== undefined && options.entraToken !== undefined) {
      return sameSecret(token, options.entraToken)
        ? undefined
        : azureError(
            401,
            '401',
            'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
          );
    }
    const key = single(request.headers['x-api-key']) ?? single(request.headers['api-key']);
    if (options.apiKey !== undefined && sameSecret(key, options.apiKey)) return undefined;
    return azureError(
      401,
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
  }

  function route(method: string, path: string, request: IncomingMessage): HttpReply | undefined {
    if (method !== 'POST' || path !== MESSAGES_PATH) {
      return anthropicError(404, 'not_found_error', `${method} ${path} is not scripted`);
    }
    if (request.headers['anthropic-version'] === undefined) {
      return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
    }
    return undefined;
  }

  function deploymentRefusal(body: unknown, model: string | undefined): HttpReply | undefined {
    if (!isRecord(body)) {
      return anthropicError(400, 'invalid_request_error', 'The request body is not a JSON object.');
    }
    if (model === undefined) {
      return anthropicError(400, 'invalid_request_error', 'model: Field required');
    }
    if (options.deployments !== undefined && !options.deployments.includes(model)) {
      return azureError(
        404,
        'DeploymentNotFound',
        'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
      );
    }
    return undefined;
  }

  const server = await startLoopbackHandler('Foundry server', handle, (message) =>
    anthropicError(500, 'api_error', message),
  );
  return {
    url: server.url,
    baseURL: `${server.url}/anthropic/`,
    requests: session.requests,
    close: server.close,
  };
}

/** Azure AI services' error JSON: `{error: {code, message}}`, `code` a string. */
function azureError(status: number, code: string, message: string): HttpReply {
  return { status, body: { error: { code, message } } };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export type { ProviderServer, RecordedRequest } from './replay-session.js';
