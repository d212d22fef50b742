/**
 * Who may start a run: people with write access to the repository (write, maintain or admin),
 * asked of the API, and bots only when allowed-bots lists them. Anything else is a denial with a
 * reason; an API failure is thrown, so a run never proceeds on an unanswered check.
 */
import type { GitHubClient } from './github-client.js';

export type Octokit = GitHubClient;

export interface AuthorizationRequest {
  owner: string;
  repo: string;
  /** The event's sender: `type` is the payload's `sender.type` (`User`, `Bot`), when known. */
  actor: { login: string; type?: string | undefined };
  /** From the allowed-bots input: logins with or without `[bot]`, or `*` for any bot. */
  allowedBots: readonly string[];
}

export type Authorization = { allowed: true; reason: string } | { allowed: false; reason: string };

/** The permission API's `permission` folds maintain into write and triage into read. */
const WRITE_PERMISSIONS = new Set(['admin', 'write']);
const WRITE_ROLES = new Set(['admin', 'maintain', 'write']);

export class AuthorizationCheckError extends Error {
  override readonly name = 'AuthorizationCheckError';
}

export function isBot(actor: AuthorizationRequest['actor']): boolean {
  return actor.type === 'Bot' || actor.login.toLowerCase().endsWith('[bot]');
}

function botName(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, '');
}

export async function authorizeActor(
  octokit: Octokit,
  request: AuthorizationRequest,
): Promise<Authorization> {
  const { owner, repo, actor, allowedBots } = request;
  if (isBot(actor)) {
    const name = botName(actor.login);
    if (allowedBots.some((entry) => entry === '*' || botName(entry) === name)) {
      return { allowed: true, reason: `bot ${actor.login} is listed in allowed-bots` };
    }
    return {
      allowed: false,
      reason: `${actor.login} is a bot and allowed-bots does not list it`,
    };
  }
  let permission: string;
  let role: string;
  try {
    const response = await octokit.request(
      'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
      {
        owner,
        repo,
        username: actor.login,
      },
    );
    permission = response.data.permission;
    role = response.data.role_name;
  } catch (error) {
    if (statusOf(error) === 404) {
      return {
        allowed: false,
        reason: `@${actor.login} is not a collaborator of ${owner}/${repo} (write permission is needed)`,
      };
    }
    throw new AuthorizationCheckError(
      `could not check @${actor.login}'s permission on ${owner}/${repo}: ${describeError(error)}`,
    );
  }
  if (WRITE_PERMISSIONS.has(permission) || WRITE_ROLES.has(role)) {
    return { allowed: true, reason: `@${actor.login} has ${role || permission} permission` };
  }
  return {
    allowed: false,
    reason: `@${actor.login} has ${role || permission} permission on ${owner}/${repo}; write is needed`,
  };
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

function describeError(error: unknown): string {
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return status === undefined ? message : `HTTP ${status}: ${message}`;
}
