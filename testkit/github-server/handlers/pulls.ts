/**
 * Pull requests. Creating one checks what GitHub checks: both branches exist (in the bare origin
 * when the repository has one, so a branch pushed with git counts), the head has commits the base
 * lacks, and no open pull request joins the same branches already.
 */
import type { HandlerContext, Reply, Route } from '../http.js';
import {
  GitHubError,
  assertBodyFits,
  bodyRecord,
  intParam,
  json,
  notFound,
  optionalBoolean,
  optionalString,
  paginate,
  requiredString,
  validationFailed,
} from '../http.js';
import { renderPull } from '../render.js';
import type { FakePull, FakeRepo } from '../state.js';
import { fullName, sameName } from '../state.js';
import { repoOf } from './repo-context.js';
import { needs } from '../token-access.js';

const PULL = '/repos/{owner}/{repo}/pulls/{pull_number}';

/** The login of the workflow's GITHUB_TOKEN, which the repository setting below governs. */
const ACTIONS_BOT = 'github-actions[bot]';

/**
 * GitHub's answer, word for word, to the workflow's token when the repository's "Allow GitHub
 * Actions to create and approve pull requests" setting is off.
 */
export const ACTIONS_MAY_NOT_CREATE_PULL_REQUESTS = {
  message: 'GitHub Actions is not permitted to create or approve pull requests.',
  documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
  status: '403',
};

function pullOf(context: HandlerContext): FakePull {
  const { name } = repoOf(context);
  const pull = context.store.pull(name, intParam(context, 'pull_number'));
  if (pull === undefined) throw notFound();
  return pull;
}

async function branchExists(
  context: HandlerContext,
  repo: FakeRepo,
  branch: string,
): Promise<boolean> {
  return (await context.store.branches(repo).refs()).has(`refs/heads/${branch}`);
}

/** `branch` in this repository, or `owner:branch` in a fork of it (same network). */
function headRepoOf(
  context: HandlerContext,
  repo: FakeRepo,
  head: string,
): { repo?: FakeRepo; ref: string } {
  const colon = head.indexOf(':');
  if (colon === -1) return { repo, ref: head };
  const owner = head.slice(0, colon);
  const ref = head.slice(colon + 1);
  if (sameName(owner, repo.owner)) return { repo, ref };
  const fork = context.store.state.repos.find(
    (candidate) =>
      sameName(candidate.owner, owner) &&
      candidate.parent !== undefined &&
      sameName(candidate.parent, fullName(repo)),
  );
  return fork === undefined ? { ref } : { repo: fork, ref };
}

async function getPull(context: HandlerContext): Promise<Reply> {
  return json(200, await renderPull(pullOf(context), context.store, context.urls));
}

async function listPulls(context: HandlerContext): Promise<Reply> {
  const { name } = repoOf(context);
  const state = context.query.get('state') ?? 'open';
  const head = context.query.get('head');
  const base = context.query.get('base');
  if (head !== null && !head.includes(':')) {
    // GitHub does not reject this; it just filters nothing, which hides the caller's bug.
    throw new GitHubError(
      422,
      "Invalid request.\n\n'head' must be 'owner:branch'.",
      [],
      `query parameter 'head' must be 'owner:branch', got '${head}'`,
    );
  }
  const pulls = context.store.state.pulls.filter((pull) => {
    if (!sameName(pull.repo, name)) return false;
    if (state !== 'all' && pull.state !== state) return false;
    if (base !== null && pull.base.ref !== base) return false;
    if (head === null) return true;
    const [owner = '', ...rest] = head.split(':');
    return sameName(pull.head.repo.split('/')[0] ?? '', owner) && pull.head.ref === rest.join(':');
  });
  const { page, headers } = paginate(context, pulls);
  const body = await Promise.all(page.map((pull) => renderPull(pull, context.store, context.urls)));
  return { status: 200, body, headers };
}

async function createPull(context: HandlerContext): Promise<Reply> {
  const { repo, name } = repoOf(context);
  const body = bodyRecord(context);
  const head = requiredString(body, 'head', 'PullRequest');
  const base = requiredString(body, 'base', 'PullRequest');
  if (body['issue'] !== undefined) {
    throw new GitHubError(
      501,
      'The fake GitHub server does not turn issues into pull requests.',
      [],
      'not implemented: pulls.create with issue',
    );
  }
  const title = optionalString(body, 'title');
  if (title === undefined) {
    throw validationFailed(
      [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }],
      "body/title is required unless 'issue' is given",
    );
  }
  const text = optionalString(body, 'body');
  assertBodyFits(context, text, 'PullRequest');
  if (!repo.actionsCanCreatePullRequests && context.actor === ACTIONS_BOT) {
    return json(403, ACTIONS_MAY_NOT_CREATE_PULL_REQUESTS);
  }

  const headSide = headRepoOf(context, repo, head);
  const headExists =
    headSide.repo !== undefined && (await branchExists(context, headSide.repo, headSide.ref));
  const errors = [
    ...(headExists ? [] : [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]),
    ...((await branchExists(context, repo, base))
      ? []
      : [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]),
  ];
  if (errors.length > 0 || headSide.repo === undefined) throw validationFailed(errors);
  const headRepo = fullName(headSide.repo);
  const label = `${headSide.repo.owner}:${headSide.ref}`;
  const duplicate = context.store.state.pulls.some(
    (pull) =>
      sameName(pull.repo, name) &&
      pull.state === 'open' &&
      sameName(pull.head.repo, headRepo) &&
      pull.head.ref === headSide.ref &&
      pull.base.ref === base,
  );
  if (duplicate) {
    throw validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${label}.`,
      },
    ]);
  }
  if (
    headSide.repo === repo &&
    (await context.store.branches(repo).commitsAhead(base, headSide.ref)) === 0
  ) {
    throw validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `No commits between ${base} and ${headSide.ref}`,
      },
    ]);
  }

  const now = context.store.now();
  const pull: FakePull = {
    id: context.store.sequences.nextId(),
    repo: name,
    number: context.store.sequences.nextNumber(name),
    title,
    body: text ?? null,
    state: 'open',
    user: context.actor,
    labels: [],
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    head: { repo: headRepo, ref: headSide.ref },
    base: { ref: base },
    draft: optionalBoolean(body, 'draft') ?? false,
    merged: false,
    maintainerCanModify: optionalBoolean(body, 'maintainer_can_modify') ?? false,
  };
  context.store.state.pulls.push(pull);
  return json(201, await renderPull(pull, context.store, context.urls));
}

async function updatePull(context: HandlerContext): Promise<Reply> {
  const { repo } = repoOf(context);
  const pull = pullOf(context);
  const body = bodyRecord(context);
  const text = optionalString(body, 'body');
  assertBodyFits(context, text, 'PullRequest');
  const base = optionalString(body, 'base');
  if (base !== undefined && !(await branchExists(context, repo, base))) {
    throw validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
  }
  const state = optionalString(body, 'state');
  const now = context.store.now();
  if (state === 'open' || state === 'closed') {
    pull.closedAt = state === 'closed' ? (pull.state === 'closed' ? pull.closedAt : now) : null;
    pull.state = state;
  }
  pull.title = optionalString(body, 'title') ?? pull.title;
  if (text !== undefined) pull.body = text;
  if (base !== undefined) pull.base = { ref: base };
  pull.maintainerCanModify =
    optionalBoolean(body, 'maintainer_can_modify') ?? pull.maintainerCanModify;
  pull.updatedAt = now;
  return json(200, await renderPull(pull, context.store, context.urls));
}

export const pullRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/pulls',
    handle: listPulls,
    access: needs('pull-requests', 'read'),
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/pulls',
    handle: createPull,
    access: needs('pull-requests', 'write'),
  },
  { method: 'GET', template: PULL, handle: getPull, access: needs('pull-requests', 'read') },
  { method: 'PATCH', template: PULL, handle: updatePull, access: needs('pull-requests', 'write') },
];
