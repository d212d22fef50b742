/**
 * A loopback stand-in for what @actions/artifact talks to on a runner: the results service's
 * Twirp API (ACTIONS_RESULTS_URL) and the blob storage its signed URLs point at. Run the real
 * client with `service.env` in process.env and read what arrived in `service.artifacts`.
 *
 * An upload, as the client makes it:
 *   1. POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact → signed_upload_url
 *   2. PUT <signed_upload_url>?comp=block&blockid=… per block, then ?comp=blocklist to commit
 *   3. POST …/FinalizeArtifact with the blob's size and sha256 → artifact_id
 * Per Twirp request: the token (ACTIONS_RUNTIME_TOKEN, a JWT this service signed) and its
 * `Actions.Results:<run>:<job>` scope, the content type, the JSON body's fields; then a scripted
 * fault if one matches; then the method. Every contract breach lands in that request's
 * `violations`, so a test can assert there were none.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { blobError, handleBlob } from './artifact-blob.js';
import type { BlobReply } from './artifact-blob.js';
import { ArtifactState } from './artifact-state.js';
import type { StoredArtifact } from './artifact-state.js';
import {
  ARTIFACT_SERVICE,
  TwirpError,
  createArtifact,
  finalizeArtifact,
  twirpCodeOf,
} from './artifact-twirp.js';
import type { TwirpCall } from './artifact-twirp.js';
import {
  resultsScope,
  resultsScopeClaim,
  signRuntimeToken,
  verifyRuntimeToken,
} from './runtime-token.js';
import type { ResultsScope } from './runtime-token.js';
import { closeServer, listenOnLoopback, readBody } from '../loopback-server.js';
import { violationsOf } from './http.js';

export type ArtifactOperation = 'CreateArtifact' | 'FinalizeArtifact' | 'UploadBlob';

/** A scripted failure: the operation answers `status` instead, `times` times (always when unset). */
export interface ArtifactFault {
  operation: ArtifactOperation;
  status: number;
  message?: string;
  times?: number;
}

export interface ArtifactServiceOptions {
  /** The run and job the token is scoped to; random UUIDs when unset, as on a runner. */
  scope?: Partial<ResultsScope>;
  faults?: ArtifactFault[];
}

export interface RecordedArtifactRequest {
  index: number;
  method: string;
  path: string;
  operation?: ArtifactOperation;
  status?: number;
  violations: string[];
  fault: boolean;
}

export interface ArtifactService {
  /** ACTIONS_RESULTS_URL. */
  url: string;
  /** ACTIONS_RUNTIME_TOKEN, scoped to `scope`. */
  token: string;
  scope: ResultsScope;
  /** Both variables, to put in the environment of whatever runs the client. */
  env: { ACTIONS_RUNTIME_TOKEN: string; ACTIONS_RESULTS_URL: string };
  /** Finalized artifacts, in order. */
  artifacts: StoredArtifact[];
  requests: RecordedArtifactRequest[];
  /** The scripted faults; push to add one while the service runs. */
  faults: ArtifactFault[];
  /** A token this service accepts, with any `scp` claim (another job's, or none that fits). */
  issueToken(scp: string): string;
  /** Every violation, prefixed with its request: `POST /twirp/…/CreateArtifact: name is required`. */
  violations(): string[];
  close(): Promise<void>;
}

export async function startArtifactService(
  options: ArtifactServiceOptions = {},
): Promise<ArtifactService> {
  const key = randomBytes(32);
  const scope: ResultsScope = {
    workflowRunBackendId: options.scope?.workflowRunBackendId ?? randomUUID(),
    workflowJobRunBackendId: options.scope?.workflowJobRunBackendId ?? randomUUID(),
  };
  const issueToken = (scp: string) => signRuntimeToken({ scp, iss: 'ci-agent-fake' }, key);
  const token = issueToken(resultsScopeClaim(scope));
  const state = new ArtifactState();
  const faults = [...(options.faults ?? [])];
  const faultUses = new Map<ArtifactFault, number>();
  const requests: RecordedArtifactRequest[] = [];
  let baseUrl = '';

  function takeFault(operation: ArtifactOperation): ArtifactFault | undefined {
    const fault = faults.find(
      (candidate) =>
        candidate.operation === operation &&
        (candidate.times === undefined || (faultUses.get(candidate) ?? 0) < candidate.times),
    );
    if (fault !== undefined) faultUses.set(fault, (faultUses.get(fault) ?? 0) + 1);
    return fault;
  }

  function twirp(request: IncomingMessage, recorded: RecordedArtifactRequest, raw: Buffer): Reply {
    const method = /^\/twirp\/([^/]+)\/([^/]+)$/.exec(recorded.path);
    if (
      recorded.method !== 'POST' ||
      method?.[1] !== ARTIFACT_SERVICE ||
      (method[2] !== 'CreateArtifact' && method[2] !== 'FinalizeArtifact')
    ) {
      throw breach('bad_route', `no handler for ${recorded.method} ${recorded.path}`);
    }
    const operation = method[2];
    recorded.operation = operation;
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) {
      throw breach(
        'bad_route',
        `unexpected Content-Type: ${JSON.stringify(request.headers['content-type'] ?? '')}; the JSON client sends application/json`,
      );
    }
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const claims = bearer === undefined ? undefined : verifyRuntimeToken(bearer, key);
    if (claims === undefined) {
      throw breach(
        'unauthenticated',
        bearer === undefined
          ? 'no bearer token in the authorization header'
          : 'the bearer token is not one this service issued',
      );
    }
    const tokenScope = resultsScope(claims);
    if (tokenScope === undefined) {
      throw breach('permission_denied', 'the token has no Actions.Results:<run>:<job> scope');
    }
    const body = parseObject(raw);
    if (body === undefined) throw breach('malformed', 'the request body is not a JSON object');
    const fault = takeFault(operation);
    if (fault !== undefined) {
      recorded.fault = true;
      throw new TwirpError(
        twirpCodeOf(fault.status),
        fault.message ?? `injected fault: ${fault.status}`,
      );
    }
    const call: TwirpCall = {
      body,
      scope: tokenScope,
      state,
      baseUrl,
      violations: recorded.violations,
    };
    return json(
      200,
      operation === 'CreateArtifact' ? createArtifact(call) : finalizeArtifact(call),
    );
  }

  function blob(
    request: IncomingMessage,
    recorded: RecordedArtifactRequest,
    url: URL,
    raw: Buffer,
  ): BlobReply {
    recorded.operation = 'UploadBlob';
    const fault = takeFault('UploadBlob');
    if (fault !== undefined) {
      recorded.fault = true;
      return blobError(
        fault.status,
        fault.status >= 500 ? 'InternalError' : 'AuthorizationFailure',
        fault.message ?? `injected fault: ${fault.status}`,
      );
    }
    return handleBlob(
      {
        method: recorded.method,
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: raw,
      },
      state,
      recorded.violations,
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(request);
    const url = new URL(request.url ?? '/', baseUrl);
    const recorded: RecordedArtifactRequest = {
      index: requests.length,
      method: (request.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      violations: [],
      fault: false,
    };
    requests.push(recorded);
    let reply: Reply;
    try {
      if (url.pathname.startsWith('/twirp/')) reply = twirp(request, recorded, raw);
      else if (url.pathname.startsWith('/devstoreaccount1/'))
        reply = blob(request, recorded, url, raw);
      else throw breach('bad_route', `no route ${recorded.method} ${url.pathname}`);
    } catch (thrown) {
      const error = thrown instanceof TwirpError ? thrown : crashed(thrown);
      if (error.violation !== undefined) recorded.violations.push(error.violation);
      reply = json(error.status, error.body());
    }
    recorded.status = reply.status;
    response.writeHead(reply.status, reply.headers);
    response.end(reply.body);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  baseUrl = await listenOnLoopback(server, 'fake artifact service');

  return {
    url: `${baseUrl}/`,
    token,
    scope,
    env: { ACTIONS_RUNTIME_TOKEN: token, ACTIONS_RESULTS_URL: `${baseUrl}/` },
    artifacts: state.artifacts,
    requests,
    faults,
    issueToken,
    violations: () => violationsOf(requests),
    close: () => closeServer(server),
  };
}

type Reply = BlobReply;

function json(status: number, body: Record<string, unknown>): Reply {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** A refusal the caller caused by breaking the protocol: answered, and recorded as a violation. */
function breach(code: ConstructorParameters<typeof TwirpError>[0], message: string): TwirpError {
  return new TwirpError(code, message, message);
}

function crashed(error: unknown): TwirpError {
  const message = `the fake crashed: ${error instanceof Error ? error.message : String(error)}`;
  return new TwirpError('internal', message, message);
}

function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
