/**
 * The GitHub REST client: Octokit's core with pagination, on Node's own fetch. Calls name their
 * route (`octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', …)`, typed by
 * @octokit/types) instead of going through the REST endpoint methods plugin, whose table of every
 * endpoint is parsed and built on each start for the eight this action uses. @actions/github would
 * also bundle a second copy of undici for proxy support; Node 24 reads HTTPS_PROXY itself when
 * NODE_USE_ENV_PROXY=1 is set, the same switch that covers the model API's requests.
 *
 * Every request's parameters (the comment, the pull request's title and body, …) are masked on
 * the way out, in one hook rather than at each call: a call added later cannot forget it.
 */
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { CI_AGENT_VERSION } from '../cli/render.js';
import { createSecretMasker } from '../log/secret-masker.js';
import type { SecretMasker } from '../log/secret-masker.js';

const GitHubOctokit = Octokit.plugin(paginateRest);

export type GitHubClient = InstanceType<typeof GitHubOctokit>;

/**
 * A client for `baseUrl` (GITHUB_API_URL: api.github.com or a GHES `/api/v3`) whose requests carry
 * neither `token` nor any of `secrets` in their parameters.
 */
export function createGitHubClient(
  token: string,
  baseUrl: string,
  secrets: readonly string[] = [],
): GitHubClient {
  const octokit = new GitHubOctokit({
    auth: token,
    baseUrl,
    userAgent: `ci-agent/${CI_AGENT_VERSION}`,
  });
  const masker = createSecretMasker([token, ...secrets]);
  octokit.hook.before('request', (options) => maskParameters(options, masker));
  return octokit;
}

/** Octokit's own members of a request's options; everything else becomes the URL or the body. */
const TRANSPORT = new Set(['method', 'baseUrl', 'url', 'headers', 'request', 'mediaType']);

function maskParameters(options: Record<string, unknown>, masker: SecretMasker): void {
  for (const [name, value] of Object.entries(options)) {
    if (TRANSPORT.has(name)) continue;
    if (typeof value === 'string') options[name] = masker.mask(value);
    else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value))
      options[name] = masker.maskJson(value);
  }
}
