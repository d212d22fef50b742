/**
 * The authenticated user. An installation token (GITHUB_TOKEN, a GitHub App's) cannot ask who it
 * is: GitHub answers 403 "Resource not accessible by integration"; a user's token gets its user.
 */
import type { HandlerContext, Reply, Route } from '../http.js';
import { GitHubError, json } from '../http.js';
import { renderUser } from '../render.js';

async function getAuthenticatedUser(context: HandlerContext): Promise<Reply> {
  if (context.actor.endsWith('[bot]')) {
    throw new GitHubError(403, 'Resource not accessible by integration');
  }
  return json(200, renderUser(context.actor, context.urls));
}

export const userRoutes: Route[] = [
  { method: 'GET', template: '/user', handle: getAuthenticatedUser },
];
