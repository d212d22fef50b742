/**
 * Repositories, collaborator permissions, branches and git refs.
 */
import type { HandlerContext, Reply, Route } from '../http.js';
import { GitHubError, bodyRecord, json, notFound, requiredString } from '../http.js';
import { renderRepo, renderUser } from '../render.js';
import type { Permission } from '../state.js';
import { sameName } from '../state.js';
import { repoOf } from './repo-context.js';
import { needs } from '../token-access.js';

/** GitHub folds the five roles into the older permission names: maintain → write, triage → read. */
const LEGACY_PERMISSION: Record<Permission, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};
const RANK: Permission[] = ['none', 'read', 'triage', 'write', 'maintain', 'admin'];

async function getRepo(context: HandlerContext): Promise<Reply> {
  return json(200, renderRepo(repoOf(context).repo, context.store, context.urls));
}

async function getPermission(context: HandlerContext): Promise<Reply> {
  const { repo } = repoOf(context);
  const login = context.params['username'] ?? '';
  // The owner of a personal repository is its admin without being listed.
  const role: Permission = sameName(login, repo.owner)
    ? 'admin'
    : context.store.permission(repo, login);
  const at = (level: Permission): boolean => RANK.indexOf(role) >= RANK.indexOf(level);
  return json(200, {
    permission: LEGACY_PERMISSION[role],
    role_name: role,
    user: {
      ...renderUser(login, context.urls),
      permissions: {
        admin: at('admin'),
        maintain: at('maintain'),
        push: at('write'),
        triage: at('triage'),
        pull: at('read'),
      },
      role_name: role,
    },
  });
}

function refJson(
  context: HandlerContext,
  repoName: string,
  ref: string,
  sha: string,
): Record<string, unknown> {
  const api = `${context.urls.api}/repos/${repoName}`;
  return {
    ref,
    node_id: Buffer.from(`04:Ref${repoName}:${ref}`).toString('base64'),
    url: `${api}/git/${ref}`,
    object: { sha, type: 'commit', url: `${api}/git/commits/${sha}` },
  };
}

async function getRef(context: HandlerContext): Promise<Reply> {
  const { repo, name } = repoOf(context);
  const ref = `refs/${(context.params['ref'] ?? '').replace(/^refs\//, '')}`;
  const sha = (await context.store.branches(repo).refs()).get(ref);
  if (sha === undefined) throw notFound();
  return json(200, refJson(context, name, ref, sha));
}

async function createRef(context: HandlerContext): Promise<Reply> {
  const { repo, name } = repoOf(context);
  const body = bodyRecord(context);
  const ref = requiredString(body, 'ref', 'Reference');
  const sha = requiredString(body, 'sha', 'Reference');
  if (!/^refs\/[^/]+\/.+/.test(ref)) {
    throw new GitHubError(
      422,
      `Reference name '${ref}' must start with 'refs/' and have at least two slashes.`,
    );
  }
  const result = await context.store.branches(repo).createRef(ref, sha);
  if (result === 'exists') throw new GitHubError(422, 'Reference already exists');
  if (result === 'missing-object') throw new GitHubError(422, 'Object does not exist');
  return json(201, refJson(context, name, ref, sha));
}

async function getBranch(context: HandlerContext): Promise<Reply> {
  const { repo, name } = repoOf(context);
  const branch = context.params['branch'] ?? '';
  const sha = (await context.store.branches(repo).refs()).get(`refs/heads/${branch}`);
  if (sha === undefined) throw notFound('Branch not found');
  return json(200, {
    name: branch,
    commit: { sha, url: `${context.urls.api}/repos/${name}/commits/${sha}` },
    protected: false,
  });
}

export const repoRoutes: Route[] = [
  { method: 'GET', template: '/repos/{owner}/{repo}', handle: getRepo },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/collaborators/{username}/permission',
    handle: getPermission,
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/git/ref/{ref}',
    handle: getRef,
    access: needs('contents', 'read'),
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/git/refs',
    handle: createRef,
    access: needs('contents', 'write'),
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/branches/{branch}',
    handle: getBranch,
    access: needs('contents', 'read'),
  },
];
