/**
 * The runner's ACTIONS_RUNTIME_TOKEN as the fake artifact service issues and checks it: a JWT
 * (HS256, signed with the service's own key) whose `scp` claim is a space-separated list of scopes,
 * one of them `Actions.Results:<workflowRunBackendId>:<workflowJobRunBackendId>`. The artifact
 * client decodes that scope (without checking the signature) to name the run and job in every
 * request; the service checks the signature and that the request names the same run and job.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ResultsScope {
  workflowRunBackendId: string;
  workflowJobRunBackendId: string;
}

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export function signRuntimeToken(claims: Record<string, unknown>, key: Buffer): string {
  const unsigned = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${unsigned}.${signature(unsigned, key)}`;
}

/** The claims of a token signed with `key`; undefined for anything else. */
export function verifyRuntimeToken(
  token: string,
  key: Buffer,
): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, given] = parts as [string, string, string];
  const expected = Buffer.from(signature(`${header}.${payload}`, key));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The run and job of the token's `Actions.Results` scope, if it has exactly one well-formed. */
export function resultsScope(claims: Record<string, unknown>): ResultsScope | undefined {
  if (typeof claims.scp !== 'string') return undefined;
  for (const scope of claims.scp.split(' ')) {
    const parts = scope.split(':');
    if (parts[0] !== 'Actions.Results') continue;
    if (parts.length !== 3 || !parts[1] || !parts[2]) return undefined;
    return { workflowRunBackendId: parts[1], workflowJobRunBackendId: parts[2] };
  }
  return undefined;
}

export function resultsScopeClaim(scope: ResultsScope): string {
  return `Actions.GenericRead:${scope.workflowRunBackendId} Actions.Results:${scope.workflowRunBackendId}:${scope.workflowJobRunBackendId}`;
}

function signature(unsigned: string, key: Buffer): string {
  return createHmac('sha256', key).update(unsigned).digest('base64url');
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
