/**
 * The two methods of `github.actions.results.api.v1.ArtifactService` an upload uses, in Twirp's
 * JSON form (protobuf field names, int64 as strings): CreateArtifact hands out a signed blob URL,
 * FinalizeArtifact checks the committed blob against the reported size and hash and reads the
 * archive. Errors are Twirp errors: `{code, msg, meta}` with the HTTP status Twirp gives the code.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ArtifactState, PendingArtifact, StoredArtifact } from './artifact-state.js';
import { readZip } from './read-zip.js';
import type { ResultsScope } from './runtime-token.js';

export const ARTIFACT_SERVICE = 'github.actions.results.api.v1.ArtifactService';

const TWIRP_STATUS = {
  invalid_argument: 400,
  malformed: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  bad_route: 404,
  already_exists: 409,
  failed_precondition: 412,
  resource_exhausted: 429,
  internal: 500,
  unavailable: 503,
} as const;
export type TwirpCode = keyof typeof TWIRP_STATUS;

export class TwirpError extends Error {
  constructor(
    readonly code: TwirpCode,
    message: string,
    /** Set when the caller broke the contract, rather than meeting a state the service refuses. */
    readonly violation?: string,
    readonly meta?: Record<string, string>,
  ) {
    super(message);
  }

  get status(): number {
    return TWIRP_STATUS[this.code];
  }

  body(): Record<string, unknown> {
    return { code: this.code, msg: this.message, ...(this.meta ? { meta: this.meta } : {}) };
  }
}

/** The Twirp code of an HTTP status, for scripted faults. */
export function twirpCodeOf(status: number): TwirpCode {
  const found = Object.entries(TWIRP_STATUS).find(([, value]) => value === status);
  return found ? (found[0] as TwirpCode) : 'internal';
}

export interface TwirpCall {
  body: Record<string, unknown>;
  scope: ResultsScope;
  state: ArtifactState;
  /** The service's origin, for the signed upload URL. */
  baseUrl: string;
  /** Contract breaches that still get an answer. */
  violations: string[];
}

const CREATE_FIELDS = [
  'workflow_run_backend_id',
  'workflow_job_run_backend_id',
  'name',
  'expires_at',
  'version',
  'mime_type',
];
const FINALIZE_FIELDS = [
  'workflow_run_backend_id',
  'workflow_job_run_backend_id',
  'name',
  'size',
  'hash',
];

export function createArtifact(call: TwirpCall): Record<string, unknown> {
  const { body, state } = call;
  checkFields(body, CREATE_FIELDS);
  const scope = checkScope(call);
  const name = requiredString(body, 'name');
  const version = body.version;
  if (version !== undefined && !Number.isInteger(version)) {
    throw invalid('version', `must be an integer, got ${JSON.stringify(version)}`);
  }
  const expiresAt = optionalString(body, 'expires_at');
  if (expiresAt !== undefined && Number.isNaN(Date.parse(expiresAt))) {
    throw invalid('expires_at', `must be an RFC 3339 timestamp, got ${JSON.stringify(expiresAt)}`);
  }
  // The error text is the one the real service gives (upload-artifact's users quote it verbatim).
  if (state.find(scope.workflowRunBackendId, name)) {
    throw new TwirpError(
      'already_exists',
      'an artifact with this name already exists on the workflow run',
    );
  }
  const id = state.takeId();
  const artifact: PendingArtifact = {
    id,
    name,
    ...scope,
    blobPath: `/devstoreaccount1/actions-results/${scope.workflowRunBackendId}/${scope.workflowJobRunBackendId}/artifacts/${id}.zip`,
    signature: randomBytes(16).toString('base64url'),
    blocks: new Map(),
  };
  const mimeType = optionalString(body, 'mime_type');
  if (mimeType !== undefined) artifact.mimeType = mimeType;
  if (expiresAt !== undefined) artifact.expiresAt = expiresAt;
  state.pending.push(artifact);
  const url = new URL(artifact.blobPath, call.baseUrl);
  url.search = new URLSearchParams({
    sv: '2025-01-05',
    sr: 'b',
    sp: 'cw',
    sig: artifact.signature,
  }).toString();
  return { ok: true, signed_upload_url: url.href };
}

export function finalizeArtifact(call: TwirpCall): Record<string, unknown> {
  const { body, state } = call;
  checkFields(body, FINALIZE_FIELDS);
  const scope = checkScope(call);
  const name = requiredString(body, 'name');
  const size = int64(body, 'size');
  const hash = optionalString(body, 'hash');
  if (hash !== undefined && !/^sha256:[0-9a-f]{64}$/.test(hash)) {
    throw invalid(
      'hash',
      `must be "sha256:" and 64 lower-case hex digits, got ${JSON.stringify(hash)}`,
    );
  }
  const artifact = state.find(scope.workflowRunBackendId, name);
  if (artifact === undefined) {
    throw new TwirpError('not_found', `no artifact named ${name} was created on the workflow run`);
  }
  if (artifact.finalized) {
    throw new TwirpError('failed_precondition', `the artifact ${name} is already finalized`);
  }
  const blob = artifact.blob;
  if (blob === undefined) {
    throw new TwirpError(
      'failed_precondition',
      `nothing was committed to the artifact ${name}'s upload URL`,
    );
  }
  if (size !== blob.length) {
    throw invalid('size', `is ${size}, but the uploaded blob has ${blob.length} bytes`);
  }
  const actualHash = `sha256:${createHash('sha256').update(blob).digest('hex')}`;
  if (hash !== undefined && hash !== actualHash) {
    throw invalid('hash', `is ${hash}, but the uploaded blob's is ${actualHash}`);
  }
  const stored: StoredArtifact = {
    id: artifact.id,
    name,
    ...scope,
    size,
    blob,
    files: filesOf(artifact, blob, call.violations),
  };
  if (artifact.mimeType !== undefined) stored.mimeType = artifact.mimeType;
  if (artifact.expiresAt !== undefined) stored.expiresAt = artifact.expiresAt;
  if (hash !== undefined) stored.hash = hash;
  artifact.finalized = stored;
  state.artifacts.push(stored);
  return { ok: true, artifact_id: String(artifact.id) };
}

/** The service never looks inside; the fake does so tests can. A zip it cannot read is a breach. */
function filesOf(
  artifact: PendingArtifact,
  blob: Buffer,
  violations: string[],
): Record<string, string> {
  if (artifact.mimeType !== undefined && artifact.mimeType !== 'application/zip') {
    return { [artifact.name]: blob.toString('utf8') };
  }
  try {
    return Object.fromEntries(
      [...readZip(blob)].map(([path, content]) => [path, content.toString('utf8')]),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    violations.push(`the artifact ${artifact.name} is not a readable zip archive: ${reason}`);
    return {};
  }
}

function checkFields(body: Record<string, unknown>, allowed: string[]): void {
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    const message = `unknown field(s) ${unknown.join(', ')}; expected only ${allowed.join(', ')}`;
    throw new TwirpError('invalid_argument', message, message, { argument: unknown[0]! });
  }
}

/** The run and job a request names must be the token's: a job writes only its own artifacts. */
function checkScope(call: TwirpCall): ResultsScope {
  const named = {
    workflowRunBackendId: requiredString(call.body, 'workflow_run_backend_id'),
    workflowJobRunBackendId: requiredString(call.body, 'workflow_job_run_backend_id'),
  };
  if (
    named.workflowRunBackendId !== call.scope.workflowRunBackendId ||
    named.workflowJobRunBackendId !== call.scope.workflowJobRunBackendId
  ) {
    const message = `the request names run ${named.workflowRunBackendId} job ${named.workflowJobRunBackendId}, but the token is for run ${call.scope.workflowRunBackendId} job ${call.scope.workflowJobRunBackendId}`;
    throw new TwirpError('permission_denied', message, message);
  }
  return named;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = optionalString(body, field);
  if (value === undefined || value === '') throw invalid(field, 'is required');
  return value;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw invalid(field, `must be a string, got ${JSON.stringify(value)}`);
  return value;
}

/** protobuf JSON writes int64 as a decimal string; a number is accepted too. */
function int64(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (value === undefined) return 0;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
    throw invalid(field, `must be a non-negative int64, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A bad field: the client broke the contract (a size or hash that is not the blob's included). */
function invalid(field: string, problem: string): TwirpError {
  const message = `${field} ${problem}`;
  return new TwirpError('invalid_argument', message, message, { argument: field });
}
