/**
 * The GitHub REST client of the action: @actions/github's getOctokit (Octokit with the REST
 * endpoint methods and pagination, GITHUB_API_URL, the runner's proxy settings) with the retry and
 * throttling plugins, as GitHub recommends for Actions: a 5xx is retried with back-off, and a
 * primary or secondary rate limit (403/429 with GitHub's rate-limit headers) waits as long as
 * GitHub says and retries a few times, each wait a warning on the step. Writes are spaced out as
 * the throttling plugin does (GitHub's guidance against secondary rate limits).
 *
 * Every request's parameters (the comment, the pull request's title and body, …) are masked on
 * the way out, in one hook rather than at each call: a call added later cannot forget it.
 */
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { CI_AGENT_VERSION } from '../cli/render.js';
import { createSecretMasker } from '../log/secret-masker.js';
import type { SecretMasker } from '../log/secret-masker.js';

export type GitHubClient = ReturnType<typeof getOctokit>;

/** How often a rate-limited request is retried before its error is the caller's. */
export const RATE_LIMIT_RETRIES = 2;

export interface GitHubClientOptions {
  /**
   * Masks every request's parameters: the run's masker (main.ts), which knows the token, since
   * the token is an input and the masker has every input that carries a secret; by default a
   * masker of the token alone.
   */
  masker?: SecretMasker;
  /** Told of each rate-limit wait, masked; a warning on the step (core.warning) by default. */
  warn?: (message: string) => void;
  /**
   * The unit of every wait, in milliseconds: GitHub's answers count in seconds (1000, the
   * plugins' own); tests shorten it so that a back-off costs milliseconds.
   */
  retryAfterBaseValue?: number;
}

/**
 * A client for `baseUrl` (GITHUB_API_URL: api.github.com or a GHES `/api/v3`) whose requests carry
 * no secret of `options.masker` (by default: not `token`) in their parameters.
 */
export function createGitHubClient(
  token: string,
  baseUrl: string,
  options: GitHubClientOptions = {},
): GitHubClient {
  const masker = options.masker ?? createSecretMasker([token]);
  const warn = options.warn ?? ((message: string) => core.warning(message));
  const base = options.retryAfterBaseValue ?? 1000;
  // The plugin retries when the handler answers true (its types say void).
  const onLimit =
    (kind: string) =>
    (
      retryAfter: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ): boolean => {
      const again = retryCount < RATE_LIMIT_RETRIES;
      const route = `${request.method} ${request.url}`;
      warn(
        masker.mask(
          again
            ? `GitHub's ${kind} for ${route}: retrying in ${retryAfter} s (retry ${retryCount + 1} of ${RATE_LIMIT_RETRIES})`
            : `GitHub's ${kind} for ${route}: giving up after ${RATE_LIMIT_RETRIES} retries`,
        ),
      );
      return again;
    };
  const octokit = getOctokit(
    token,
    {
      baseUrl,
      userAgent: `ci-agent/${CI_AGENT_VERSION}`,
      // 429 is the throttling plugin's, which waits as long as GitHub says; the retry plugin's
      // own back-off is for 5xx. The other codes are its defaults: retrying them cannot help.
      retry: { retryAfterBaseValue: base, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
      throttle: {
        retryAfterBaseValue: base,
        onRateLimit: onLimit('rate limit'),
        onSecondaryRateLimit: onLimit('secondary rate limit'),
      },
    },
    retry,
    throttling,
  );
  octokit.hook.before('request', (request) => maskParameters(request, masker));
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
