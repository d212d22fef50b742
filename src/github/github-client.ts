/**
 * The GitHub REST client: Octokit's core with pagination, on Node's own fetch. Calls name their
 * route (`octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', …)`, typed by
 * @octokit/types) instead of going through the REST endpoint methods plugin, whose table of every
 * endpoint is parsed and built on each start for the eight this action uses. @actions/github would
 * also bundle a second copy of undici for proxy support; Node 24 reads HTTPS_PROXY itself when
 * NODE_USE_ENV_PROXY=1 is set, the same switch that covers the model API's requests.
 */
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { CI_AGENT_VERSION } from '../cli/render.js';

const GitHubOctokit = Octokit.plugin(paginateRest);

export type GitHubClient = InstanceType<typeof GitHubOctokit>;

/** A client for `baseUrl` (GITHUB_API_URL: api.github.com or a GHES `/api/v3`). */
export function createGitHubClient(token: string, baseUrl: string): GitHubClient {
  return new GitHubOctokit({
    auth: token,
    baseUrl,
    userAgent: `ci-agent/${CI_AGENT_VERSION}`,
  });
}
