/**
 * State records as GitHub's JSON: the fields Octokit users read (ids, numbers, urls, user.login,
 * node_id, timestamps), not every field of the full schemas.
 */
import { createHash } from 'node:crypto';
import { placeholderSha } from './branches.js';
import type { GitHubStore } from './store.js';
import type { FakeComment, FakeIssue, FakeLabel, FakePull, FakeRepo } from './state.js';
import { fullName } from './state.js';

export interface Urls {
  api: string;
  web: string;
}

type Json = Record<string, unknown>;

export function numericId(text: string): number {
  return createHash('sha1').update(text).digest().readUInt32BE(0) % 100_000_000;
}

function nodeId(kind: string, id: number): string {
  return Buffer.from(`04:${kind}${id}`).toString('base64');
}

export function renderUser(login: string, urls: Urls): Json {
  const bot = login.endsWith('[bot]');
  const id = numericId(`user:${login.toLowerCase()}`);
  return {
    login,
    id,
    node_id: nodeId(bot ? 'Bot' : 'User', id),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    url: `${urls.api}/users/${encodeURIComponent(login)}`,
    html_url: bot ? `${urls.web}/apps/${login.slice(0, -5)}` : `${urls.web}/${login}`,
    type: bot ? 'Bot' : 'User',
    site_admin: false,
  };
}

export function renderRepo(
  repo: FakeRepo,
  store: GitHubStore,
  urls: Urls,
  withParent = true,
): Json {
  const name = fullName(repo);
  const parent = repo.parent === undefined ? undefined : store.repo(repo.parent);
  const parentJson =
    repo.parent === undefined || !withParent
      ? {}
      : parent === undefined
        ? { parent: unknownRepo(repo.parent, urls), source: unknownRepo(repo.parent, urls) }
        : {
            parent: renderRepo(parent, store, urls, false),
            source: renderRepo(parent, store, urls, false),
          };
  return {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name: repo.name,
    full_name: name,
    owner: renderUser(repo.owner, urls),
    private: repo.private,
    visibility: repo.private ? 'private' : 'public',
    html_url: `${urls.web}/${name}`,
    description: null,
    fork: repo.fork,
    url: `${urls.api}/repos/${name}`,
    clone_url: `${urls.web}/${name}.git`,
    default_branch: repo.defaultBranch,
    archived: false,
    disabled: false,
    ...parentJson,
  };
}

/** A repository the state does not hold (a fork's head repo that was not seeded). */
function unknownRepo(name: string, urls: Urls): Json {
  const [owner = name, repoName = name] = name.split('/');
  const id = numericId(`repo:${name.toLowerCase()}`);
  return {
    id,
    node_id: nodeId('Repository', id),
    name: repoName,
    full_name: name,
    owner: renderUser(owner, urls),
    private: false,
    html_url: `${urls.web}/${name}`,
    fork: true,
    url: `${urls.api}/repos/${name}`,
  };
}

export function renderLabel(label: FakeLabel, urls: Urls): Json {
  return {
    id: label.id,
    node_id: nodeId('Label', label.id),
    url: `${urls.api}/repos/${label.repo}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: false,
    description: label.description,
  };
}

export function authorAssociation(store: GitHubStore, repoName: string, login: string): string {
  const repo = store.repo(repoName);
  if (repo === undefined) return 'NONE';
  if (repo.owner.toLowerCase() === login.toLowerCase()) return 'OWNER';
  return ['admin', 'maintain', 'write'].includes(store.permission(repo, login))
    ? 'COLLABORATOR'
    : 'NONE';
}

function isPull(item: FakeIssue | FakePull): item is FakePull {
  return 'head' in item;
}

function itemHtmlUrl(item: { repo: string; number: number }, pull: boolean, urls: Urls): string {
  return `${urls.web}/${item.repo}/${pull ? 'pull' : 'issues'}/${item.number}`;
}

export function renderIssue(item: FakeIssue | FakePull, store: GitHubStore, urls: Urls): Json {
  const pull = isPull(item);
  const api = `${urls.api}/repos/${item.repo}`;
  return {
    id: item.id,
    node_id: nodeId(pull ? 'PullRequest' : 'Issue', item.id),
    url: `${api}/issues/${item.number}`,
    repository_url: api,
    labels_url: `${api}/issues/${item.number}/labels{/name}`,
    comments_url: `${api}/issues/${item.number}/comments`,
    events_url: `${api}/issues/${item.number}/events`,
    html_url: itemHtmlUrl(item, pull, urls),
    number: item.number,
    state: item.state,
    state_reason: null,
    title: item.title,
    body: item.body,
    user: renderUser(item.user, urls),
    labels: item.labels.map((name) => renderLabel(store.ensureLabel(item.repo, name), urls)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: store.commentsOn(item.repo, item.number).length,
    ...(pull
      ? {
          pull_request: {
            url: `${api}/pulls/${item.number}`,
            html_url: itemHtmlUrl(item, true, urls),
            diff_url: `${itemHtmlUrl(item, true, urls)}.diff`,
            patch_url: `${itemHtmlUrl(item, true, urls)}.patch`,
            merged_at: null,
          },
        }
      : {}),
    closed_at: item.closedAt,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    author_association: authorAssociation(store, item.repo, item.user),
  };
}

export function renderComment(comment: FakeComment, store: GitHubStore, urls: Urls): Json {
  const item = store.item(comment.repo, comment.issueNumber);
  const pull = item !== undefined && isPull(item);
  return {
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url: `${urls.api}/repos/${comment.repo}/issues/comments/${comment.id}`,
    html_url: `${itemHtmlUrl({ repo: comment.repo, number: comment.issueNumber }, pull, urls)}#issuecomment-${comment.id}`,
    issue_url: `${urls.api}/repos/${comment.repo}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: renderUser(comment.user, urls),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: authorAssociation(store, comment.repo, comment.user),
  };
}

/** The sha a branch points at now: the live ref, else the seeded sha, else a placeholder. */
export async function branchSha(
  store: GitHubStore,
  repoName: string,
  ref: string,
  seeded?: string,
): Promise<string> {
  const repo = store.repo(repoName);
  const live =
    repo === undefined ? undefined : (await store.branches(repo).refs()).get(`refs/heads/${ref}`);
  return live ?? seeded ?? placeholderSha(repoName, ref);
}

export async function renderPull(pull: FakePull, store: GitHubStore, urls: Urls): Promise<Json> {
  const issue = renderIssue(pull, store, urls);
  const side = async (repoName: string, ref: string, seeded?: string): Promise<Json> => {
    const repo = store.repo(repoName);
    const owner = repoName.split('/')[0] ?? repoName;
    return {
      label: `${owner}:${ref}`,
      ref,
      sha: await branchSha(store, repoName, ref, seeded),
      user: renderUser(owner, urls),
      repo: repo === undefined ? unknownRepo(repoName, urls) : renderRepo(repo, store, urls),
    };
  };
  const html = itemHtmlUrl(pull, true, urls);
  return {
    url: `${urls.api}/repos/${pull.repo}/pulls/${pull.number}`,
    id: pull.id,
    node_id: issue['node_id'],
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue['url'],
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: issue['user'],
    body: pull.body,
    labels: issue['labels'],
    milestone: null,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: await side(pull.head.repo, pull.head.ref, pull.head.sha),
    base: await side(pull.repo, pull.base.ref),
    author_association: issue['author_association'],
    auto_merge: null,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: null,
    maintainer_can_modify: pull.maintainerCanModify,
    comments: issue['comments'],
  };
}
