/**
 * Test support for the fake GitHub: a server with the OpenAPI index (loaded once per test file)
 * and the real Octokit pointed at it — @octokit/rest, the client for code outside the runner, with
 * every endpoint by name (`octokit.rest.issues.…`) and without the action's retries and throttling
 * (src/github/github-client.ts), so a test sees each answer as the server gave it.
 */
import { Octokit as RestOctokit } from '@octokit/rest';
import { expect } from 'vitest';
import { startGitHubServer } from '../../../testkit/github-server/index.js';
import type { GitHubServer, GitHubServerOptions } from '../../../testkit/github-server/index.js';
import { loadOperationIndex } from '../../../testkit/github-server/openapi/load-operation-index.js';

export const TOKEN = 'ghs_fixture_token';
export const REPO = { owner: 'octo', repo: 'app' } as const;
export const FIXED_NOW = new Date('2024-05-01T12:00:00.000Z');

export type Octokit = RestOctokit;

/** A client with every REST endpoint as a method, authenticated with `token`. */
export function createRestClient(token: string, baseUrl: string): Octokit {
  // @octokit/rest logs every failed request on stderr; the tests check the failures they expect.
  const quiet = () => undefined;
  return new RestOctokit({
    auth: token,
    baseUrl,
    log: { debug: quiet, info: quiet, warn: console.warn, error: quiet },
  });
}

export interface Fake {
  server: GitHubServer;
  octokit: Octokit;
}

export async function startFake(options: GitHubServerOptions = {}): Promise<Fake> {
  const server = await startGitHubServer({
    openapi: await loadOperationIndex(),
    token: TOKEN,
    now: () => FIXED_NOW,
    ...options,
  });
  return { server, octokit: createRestClient(TOKEN, server.url) };
}

export function expectNoViolations(server: GitHubServer): void {
  expect(server.violations()).toEqual([]);
}

/** The status and body of the request error a call rejected with. */
export async function failure(call: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await call;
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'status' in error) {
      const response = 'response' in error ? error.response : undefined;
      const data =
        typeof response === 'object' && response !== null && 'data' in response
          ? response.data
          : undefined;
      return { status: Number(error.status), data };
    }
    throw error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
