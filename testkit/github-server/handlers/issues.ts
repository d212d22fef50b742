/**
 * Issues, issue comments (also the comments of pull requests) and labels.
 */
import type { HandlerContext, Reply, Route } from '../http.js';
import {
  GitHubError,
  assertBodyFits,
  bodyRecord,
  intParam,
  isRecord,
  json,
  notFound,
  optionalString,
  paginate,
  requiredString,
} from '../http.js';
import { renderComment, renderIssue, renderLabel } from '../render.js';
import type { FakeComment } from '../state.js';
import { sameName } from '../state.js';
import { repoOf } from './repo-context.js';
import type { AccessLevel, AccessOf } from '../token-access.js';
import { needs, needsAnyOf } from '../token-access.js';

const ISSUE = '/repos/{owner}/{repo}/issues/{issue_number}';
const COMMENT = '/repos/{owner}/{repo}/issues/comments/{comment_id}';

function itemOf(context: HandlerContext) {
  const { name } = repoOf(context);
  const item = context.store.item(name, intParam(context, 'issue_number'));
  if (item === undefined) throw notFound();
  return { name, item };
}

function commentOf(context: HandlerContext): FakeComment {
  const { name } = repoOf(context);
  const comment = context.store.comment(name, intParam(context, 'comment_id'));
  if (comment === undefined) throw notFound();
  return comment;
}

async function getIssue(context: HandlerContext): Promise<Reply> {
  const { item } = itemOf(context);
  return json(200, renderIssue(item, context.store, context.urls));
}

async function listComments(context: HandlerContext): Promise<Reply> {
  const { name, item } = itemOf(context);
  const comments = context.store.commentsOn(name, item.number).sort((a, b) => a.id - b.id);
  const { page, headers } = paginate(context, comments);
  return {
    status: 200,
    body: page.map((comment) => renderComment(comment, context.store, context.urls)),
    headers,
  };
}

async function createComment(context: HandlerContext): Promise<Reply> {
  const { name, item } = itemOf(context);
  const body = requiredString(bodyRecord(context), 'body', 'IssueComment');
  assertBodyFits(context, body, 'IssueComment');
  const now = context.store.now();
  const comment: FakeComment = {
    id: context.store.sequences.nextId(),
    repo: name,
    issueNumber: item.number,
    body,
    user: context.actor,
    createdAt: now,
    updatedAt: now,
  };
  context.store.state.comments.push(comment);
  item.updatedAt = now;
  return json(201, renderComment(comment, context.store, context.urls));
}

async function getComment(context: HandlerContext): Promise<Reply> {
  return json(200, renderComment(commentOf(context), context.store, context.urls));
}

async function updateComment(context: HandlerContext): Promise<Reply> {
  const comment = commentOf(context);
  const body = requiredString(bodyRecord(context), 'body', 'IssueComment');
  assertBodyFits(context, body, 'IssueComment');
  comment.body = body;
  comment.updatedAt = context.store.now();
  return json(200, renderComment(comment, context.store, context.urls));
}

/** Accepts `{labels: [...]}` as documented and the bare array older clients send. */
function labelNames(body: unknown): string[] {
  const list = isRecord(body) ? body['labels'] : body;
  if (!Array.isArray(list)) {
    throw new GitHubError(
      422,
      'Invalid request.\n\n"labels" must be an array.',
      [],
      'body/labels must be array',
    );
  }
  return list.map((entry) => {
    if (typeof entry === 'string') return entry;
    if (isRecord(entry) && typeof entry['name'] === 'string') return entry['name'];
    throw new GitHubError(
      422,
      'Invalid request.\n\nEach label must be a string.',
      [],
      'body/labels items must be strings',
    );
  });
}

async function addLabels(context: HandlerContext): Promise<Reply> {
  const { name, item } = itemOf(context);
  for (const label of labelNames(context.body)) {
    const known = context.store.ensureLabel(name, label);
    if (!item.labels.some((existing) => sameName(existing, known.name)))
      item.labels.push(known.name);
  }
  item.updatedAt = context.store.now();
  return json(
    200,
    item.labels.map((label) => renderLabel(context.store.ensureLabel(name, label), context.urls)),
  );
}

async function removeLabel(context: HandlerContext): Promise<Reply> {
  const { name, item } = itemOf(context);
  const target = context.params['name'] ?? '';
  const index = item.labels.findIndex((label) => sameName(label, target));
  if (index === -1) throw notFound('Label does not exist');
  item.labels.splice(index, 1);
  item.updatedAt = context.store.now();
  return json(
    200,
    item.labels.map((label) => renderLabel(context.store.ensureLabel(name, label), context.urls)),
  );
}

async function getLabel(context: HandlerContext): Promise<Reply> {
  const { name } = repoOf(context);
  const label = context.store.label(name, context.params['name'] ?? '');
  if (label === undefined) throw notFound();
  return json(200, renderLabel(label, context.urls));
}

async function createLabel(context: HandlerContext): Promise<Reply> {
  const { name } = repoOf(context);
  const body = bodyRecord(context);
  const labelName = requiredString(body, 'name', 'Label');
  if (context.store.label(name, labelName) !== undefined) {
    throw new GitHubError(422, 'Validation Failed', [
      { resource: 'Label', code: 'already_exists', field: 'name' },
    ]);
  }
  const label = context.store.ensureLabel(name, labelName);
  label.color = optionalString(body, 'color') ?? label.color;
  label.description = optionalString(body, 'description') ?? null;
  return json(201, renderLabel(label, context.urls));
}

/**
 * What GitHub asks of a token for an issue's or a comment's endpoint: the permission follows the
 * thread, so a pull request's comments take `pull-requests` as well as `issues`.
 */
function onThread(level: AccessLevel): AccessOf {
  return (context) => {
    const repo = `${context.params['owner'] ?? ''}/${context.params['repo'] ?? ''}`;
    const number = Number(context.params['issue_number']);
    const comment = context.store.comment(repo, Number(context.params['comment_id']));
    const thread = Number.isSafeInteger(number) ? number : comment?.issueNumber;
    const onPull = thread !== undefined && context.store.pull(repo, thread) !== undefined;
    return onPull ? needsAnyOf(['issues', 'pull-requests'], level) : needs('issues', level);
  };
}

export const issueRoutes: Route[] = [
  { method: 'GET', template: ISSUE, handle: getIssue, access: onThread('read') },
  {
    method: 'GET',
    template: `${ISSUE}/comments`,
    handle: listComments,
    access: onThread('read'),
  },
  {
    method: 'POST',
    template: `${ISSUE}/comments`,
    handle: createComment,
    access: onThread('write'),
  },
  { method: 'GET', template: COMMENT, handle: getComment, access: onThread('read') },
  { method: 'PATCH', template: COMMENT, handle: updateComment, access: onThread('write') },
  {
    method: 'POST',
    template: `${ISSUE}/labels`,
    handle: addLabels,
    access: onThread('write'),
  },
  {
    method: 'DELETE',
    template: `${ISSUE}/labels/{name}`,
    handle: removeLabel,
    access: onThread('write'),
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/labels/{name}',
    handle: getLabel,
    access: needsAnyOf(['issues', 'pull-requests'], 'read'),
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/labels',
    handle: createLabel,
    access: needsAnyOf(['issues', 'pull-requests'], 'write'),
  },
];
