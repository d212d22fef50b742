/**
 * What GitHub's refusals say about the token, in words the maintainer can act on: the entry of
 * the workflow's `permissions:` block a request needed (GitHub's 403 "Resource not accessible by
 * integration", with the `x-accepted-github-permissions` header naming what the endpoint takes),
 * a push the token may not make (git's 403 "Permission to … denied to …"), a workflow file no
 * GITHUB_TOKEN may push, and whether the token is the job's GITHUB_TOKEN at all: GitHub starts
 * no workflow for what that token pushes or opens. docs/GITHUB.md is the reader's side of it.
 */

/** Who GITHUB_TOKEN (an installation token of the GitHub Actions app) writes as. */
export const GITHUB_ACTIONS_LOGIN = 'github-actions[bot]';

/** One entry of a workflow's `permissions:` block: `pull-requests: write`. */
export interface PermissionEntry {
  name: string;
  level: string;
}

/** GitHub's answer when the token lacks a permission the endpoint needs. */
const NOT_ACCESSIBLE = /resource not accessible by integration/i;

interface RequestFailure {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, unknown>; data?: { message?: unknown } };
}

/**
 * The permission sets GitHub accepts for a request it refused with 403 "Resource not accessible
 * by integration" (any one set is enough), from its header, else `fallback`; undefined when the
 * error is anything else.
 */
export function missingPermissions(
  error: unknown,
  fallback: readonly (readonly PermissionEntry[])[],
): readonly (readonly PermissionEntry[])[] | undefined {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as RequestFailure;
  const given = failure.response?.data?.message ?? failure.message;
  if (failure.status !== 403 || typeof given !== 'string' || !NOT_ACCESSIBLE.test(given)) {
    return undefined;
  }
  const header = failure.response?.headers?.['x-accepted-github-permissions'];
  const sets = typeof header === 'string' ? parseAccepted(header) : [];
  return sets.length > 0 ? sets : fallback;
}

/**
 * `issues=write; pull_requests=write` → two sets of one entry each, named as a workflow's
 * `permissions:` block names them (`pull-requests`). Sets are separated by `;`, the entries of one
 * set by `,`; an entry that is not `name=level` is left out.
 */
export function parseAccepted(header: string): PermissionEntry[][] {
  return header
    .split(';')
    .map((set) =>
      set
        .split(',')
        .map((entry) => /^\s*([a-z_-]+)=([a-z]+)\s*$/i.exec(entry))
        .filter((match) => match !== null)
        .map((match) => ({ name: match[1]!.toLowerCase().replaceAll('_', '-'), level: match[2]! })),
    )
    .filter((set) => set.length > 0);
}

function entries(set: readonly PermissionEntry[]): string {
  return set.map(({ name, level }) => `\`${name}: ${level}\``).join(' and ');
}

/**
 * What to add, for a headline: "add `issues: write` to the workflow's `permissions:` block (or
 * `pull-requests: write`)", and what a GitHub App's token needs instead.
 */
export function permissionAdvice(sets: readonly (readonly PermissionEntry[])[]): string {
  const [first, ...others] = sets;
  if (first === undefined) return 'the token lacks a permission this needs';
  const alternatives = others.length > 0 ? ` (or ${others.map(entries).join(', or ')})` : '';
  return `the token lacks the permission: add ${entries(first)} to the job's \`permissions:\`${alternatives}; a GitHub App's token needs the app's permission of that name`;
}

/**
 * The one sentence for a request GitHub refused, or undefined when the refusal is not that.
 * `level: 'write'` raises what GitHub named to write: the request it refused may have been the
 * read before the write the caller was after (the comments listed before one is posted).
 */
export function permissionRefusal(
  error: unknown,
  fallback: readonly (readonly PermissionEntry[])[],
  options: { level?: 'write' } = {},
): string | undefined {
  const sets = missingPermissions(error, fallback);
  if (sets === undefined) return undefined;
  const raise = options.level;
  return permissionAdvice(
    raise === undefined
      ? sets
      : sets.map((set) => set.map((entry) => ({ ...entry, level: raise }))),
  );
}

/** GitHub's words when a push over HTTPS is refused for the token (git prints them as `remote:`). */
const PUSH_DENIED =
  /Permission to \S+ denied to (\S+?)\.?(?:\s|$)|The requested URL returned error: 403/;
/** GitHub's words when a pushed commit changes a workflow file the token may not change. */
const WORKFLOW_REFUSED = /refusing to allow a GitHub App to create or update workflow `([^`]+)`/;

/** Why GitHub refused a push, with what to change; undefined for any other failure. */
export function pushRefusal(message: string): string | undefined {
  const workflow = WORKFLOW_REFUSED.exec(message);
  if (workflow) {
    return `GitHub refuses workflow changes (${workflow[1]}) from a token without the \`workflows\` permission, which GITHUB_TOKEN never has: pass a GitHub App token whose app has "Workflows: Read and write" as github-token, or leave workflow files to people`;
  }
  if (PUSH_DENIED.test(message)) {
    return `GitHub refused the push (403): the token may not write to the repository; add \`contents: write\` to the job's \`permissions:\` (a GitHub App's token needs the app's "Contents: Read and write")`;
  }
  return undefined;
}

/**
 * Whether `login` (the author of what the token wrote: the report comment, the pull request)
 * is the job's GITHUB_TOKEN. A user's token and another app's have their own login.
 */
export function isWorkflowToken(login: string | undefined): boolean {
  return login?.toLowerCase() === GITHUB_ACTIONS_LOGIN;
}

/** The report's note for a push made with GITHUB_TOKEN. */
export function workflowTokenNote(pushed: string, openedPullRequest: boolean): string {
  const what = openedPullRequest
    ? `The push to \`${pushed}\` and its pull request were made with the job's GITHUB_TOKEN, so GitHub starts no workflow for them`
    : `The push to \`${pushed}\` was made with the job's GITHUB_TOKEN, so GitHub starts no workflow for it`;
  return `${what}: CI will not run on this commit until someone pushes to the branch (or closes and reopens the pull request). To have CI run on ci-agent's pushes, pass a GitHub App token (actions/create-github-app-token) as the github-token input`;
}
