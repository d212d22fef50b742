/**
 * What the token may do, as a workflow's `permissions:` block grants it to GITHUB_TOKEN: each
 * scope `read`, `write` or `none`. With a block, every scope it leaves out is `none` (metadata,
 * which no block can take away, stays readable); without one (`tokenPermissions` unset), the
 * token may do everything, as the permissive repository default allows.
 *
 * An endpoint names what it needs as sets, any one of which is enough (a comment on a pull
 * request takes `issues: write` or `pull-requests: write`). A token with none of them gets
 * GitHub's 403 "Resource not accessible by integration", and every answer carries the
 * `x-accepted-github-permissions` header GitHub sends to fine-grained tokens: the sets, `;`
 * between them, in the GitHub App permission names (`pull_requests=write`).
 */
import type { HandlerContext, Reply } from './http.js';
import { DOCUMENTATION_URL } from './http.js';

/** The keys of a workflow's `permissions:` block that the fake's endpoints need. */
export type TokenScope = 'actions' | 'contents' | 'issues' | 'pull-requests' | 'metadata';
export type AccessLevel = 'read' | 'write';
export type TokenPermissions = Partial<Record<TokenScope, AccessLevel | 'none'>>;

/** One permission an endpoint accepts. */
export interface ScopeNeed {
  scope: TokenScope;
  level: AccessLevel;
}

/** The sets an endpoint accepts: any one whole set is enough. */
export type AccessRule = readonly (readonly ScopeNeed[])[];

export type AccessOf = AccessRule | ((context: HandlerContext) => AccessRule);

/** GitHub's words, for every endpoint the token may not reach. */
export const NOT_ACCESSIBLE = 'Resource not accessible by integration';

/** `scope: level` needed alone. */
export function needs(scope: TokenScope, level: AccessLevel): AccessRule {
  return [[{ scope, level }]];
}

/** Any one of the scopes at `level`. */
export function needsAnyOf(scopes: readonly TokenScope[], level: AccessLevel): AccessRule {
  return scopes.map((scope) => [{ scope, level }]);
}

function levelOf(permissions: TokenPermissions | undefined, scope: TokenScope): string {
  if (permissions === undefined) return 'write';
  if (scope === 'metadata') return 'read';
  return permissions[scope] ?? 'none';
}

function grants(permissions: TokenPermissions | undefined, need: ScopeNeed): boolean {
  const level = levelOf(permissions, need.scope);
  return level === 'write' || (level === 'read' && need.level === 'read');
}

export function allows(permissions: TokenPermissions | undefined, rule: AccessRule): boolean {
  return rule.some((set) => set.every((need) => grants(permissions, need)));
}

/** The header's value: `issues=write; pull_requests=write`. */
export function acceptedPermissions(rule: AccessRule): string {
  return rule
    .map((set) => set.map(({ scope, level }) => `${scope.replaceAll('-', '_')}=${level}`).join(','))
    .join('; ');
}

export function notAccessible(rule: AccessRule): Reply {
  return {
    status: 403,
    body: { message: NOT_ACCESSIBLE, documentation_url: DOCUMENTATION_URL, status: '403' },
    headers: { 'x-accepted-github-permissions': acceptedPermissions(rule) },
  };
}
