/**
 * Replies and errors in GitHub's shapes, and the pieces of a request the handlers read.
 */
import type { GitHubStore } from './store.js';
import type { AccessOf } from './token-access.js';

export const DOCUMENTATION_URL = 'https://docs.github.com/rest';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HandlerContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  store: GitHubStore;
  /** The login the token belongs to: the author of what the request creates. */
  actor: string;
  urls: { api: string; web: string };
  /** The request's own URL, for pagination links. */
  requestUrl: URL;
  commentBodyLimit: number;
}

export type Handler = (context: HandlerContext) => Promise<Reply>;

export interface Route {
  method: string;
  template: string;
  handle: Handler;
  /** What the token needs (token-access.ts); unset: metadata, which every token has. */
  access?: AccessOf;
}

export interface FieldError {
  resource: string;
  field?: string;
  code: string;
  message?: string;
}

/**
 * An answer that is not a success. `violation` marks a request GitHub rejects because the caller
 * broke the API contract (not because of the state), so it lands in the request's violations.
 */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
    readonly violation?: string,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      ...(this.errors.length > 0 ? { errors: this.errors } : {}),
      documentation_url: DOCUMENTATION_URL,
      status: String(this.status),
    };
  }
}

export function notFound(message = 'Not Found'): GitHubError {
  return new GitHubError(404, message);
}

export function validationFailed(errors: FieldError[], violation?: string): GitHubError {
  return new GitHubError(422, 'Validation Failed', errors, violation);
}

export function json(status: number, body: unknown): Reply {
  return { status, body };
}

/** An integer path parameter; the route guarantees it is present. */
export function intParam(context: HandlerContext, name: string): number {
  const value = Number(context.params[name]);
  if (!Number.isSafeInteger(value)) throw notFound();
  return value;
}

export function bodyRecord(context: HandlerContext): Record<string, unknown> {
  if (isRecord(context.body)) return context.body;
  throw new GitHubError(400, 'Problems parsing JSON', [], 'the request body is not a JSON object');
}

/** A string field of the body; a wrong type is a contract violation, as the schema would say. */
export function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw new GitHubError(
    422,
    `Invalid request.\n\nFor '${name}', ${JSON.stringify(value)} is not a string.`,
    [],
    `body/${name} must be string`,
  );
}

export function requiredString(
  body: Record<string, unknown>,
  name: string,
  resource: string,
): string {
  const value = optionalString(body, name);
  if (value !== undefined) return value;
  throw validationFailed(
    [{ resource, field: name, code: 'missing_field' }],
    `body/${name} is required`,
  );
}

export function optionalBoolean(body: Record<string, unknown>, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  throw new GitHubError(
    422,
    `Invalid request.\n\nFor '${name}', ${JSON.stringify(value)} is not a boolean.`,
    [],
    `body/${name} must be boolean`,
  );
}

/** GitHub counts characters, not UTF-16 units. */
export function assertBodyFits(
  context: HandlerContext,
  body: string | undefined,
  resource: string,
): void {
  if (body === undefined) return;
  const limit = context.commentBodyLimit;
  if ([...body].length <= limit) return;
  throw validationFailed([
    {
      resource,
      code: 'unprocessable',
      field: 'data',
      message: `Body is too long (maximum is ${limit} characters)`,
    },
  ]);
}

/** One page of `items` and the `link` header Octokit's paginate follows. */
export function paginate<T>(
  context: HandlerContext,
  items: T[],
): { page: T[]; headers: Record<string, string> } {
  const perPage = clamp(Number(context.query.get('per_page') ?? 30), 1, 100);
  const page = Math.max(1, Number(context.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (target: number, rel: string): string => {
    const url = new URL(context.requestUrl);
    url.searchParams.set('per_page', String(perPage));
    url.searchParams.set('page', String(target));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  return {
    page: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(', ') } : {},
  };
}

function clamp(value: number, low: number, high: number): number {
  if (!Number.isFinite(value)) return 30;
  return Math.min(high, Math.max(low, Math.trunc(value)));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the fakes' recorded requests broke, each line led by the request's method and path. */
export function violationsOf(
  requests: readonly { method: string; path: string; violations: readonly string[] }[],
): string[] {
  return requests.flatMap((request) =>
    request.violations.map((violation) => `${request.method} ${request.path}: ${violation}`),
  );
}
