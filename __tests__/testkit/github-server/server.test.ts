import { afterEach, describe, expect, it } from 'vitest';
import { startGitHubServer } from '../../../testkit/github-server/index.js';
import type { GitHubServer } from '../../../testkit/github-server/index.js';
import {
  REPO,
  TOKEN,
  createRestClient,
  expectNoViolations,
  failure,
  startFake,
} from './fixture.js';
import type { Fake } from './fixture.js';

const seed = {
  repos: [{ owner: 'octo', name: 'app' }],
  issues: [{ repo: 'octo/app', title: 'Flaky test' }],
};

let fake: Fake | undefined;
let bare: GitHubServer | undefined;

afterEach(async () => {
  await fake?.server.close();
  await bare?.close();
  fake = undefined;
  bare = undefined;
});

async function raw(server: GitHubServer, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, init);
}

describe('startGitHubServer', () => {
  it('listens on 127.0.0.1 and answers the real Octokit', async () => {
    fake = await startFake({ seed });
    expect(fake.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { data } = await fake.octokit.rest.issues.get({ ...REPO, issue_number: 1 });
    expect(data.title).toBe('Flaky test');
    expectNoViolations(fake.server);
  });

  it('records each request with its operation, status and body, but not its token', async () => {
    fake = await startFake({ seed });
    await fake.octokit.rest.issues.createComment({ ...REPO, issue_number: 1, body: 'hello' });
    const [request] = fake.server.requests;
    expect(request).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/repos/octo/app/issues/1/comments',
      operationId: 'issues/create-comment',
      template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
      body: { body: 'hello' },
      status: 201,
      violations: [],
      fault: false,
    });
    expect(request?.headers['authorization']).toBeUndefined();
    expect(JSON.stringify(fake.server.requests)).not.toContain(TOKEN);
  });

  describe('when the request carries no valid token', () => {
    it('answers 401 and records a violation when the authorization header is missing', async () => {
      fake = await startFake({ seed });
      const response = await raw(fake.server, '/repos/octo/app');
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ message: 'Requires authentication' });
      expect(fake.server.violations()).toEqual([
        'GET /repos/octo/app: no token in the authorization header',
      ]);
    });

    it('answers 401 for a token other than the configured one', async () => {
      fake = await startFake({ seed });
      const other = createRestClient('ghs_someone_else', fake.server.url);
      expect(await failure(other.rest.repos.get(REPO))).toMatchObject({
        status: 401,
        data: { message: 'Bad credentials' },
      });
      expect(fake.server.requests[0]?.violations).toEqual(['the token is not the configured one']);
    });

    it('accepts a Bearer token as well as the token scheme', async () => {
      fake = await startFake({ seed });
      const response = await raw(fake.server, '/repos/octo/app', {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      expectNoViolations(fake.server);
    });

    it('accepts any token when none is configured', async () => {
      fake = await startFake({ seed, token: undefined });
      const other = createRestClient('anything', fake.server.url);
      expect((await other.rest.repos.get(REPO)).status).toBe(200);
    });
  });

  describe('when the route is not one the fake serves', () => {
    it('answers 404 for a route GitHub does not have, as GitHub does', async () => {
      fake = await startFake({ seed });
      expect(
        await failure(fake.octokit.request('GET /repos/{owner}/{repo}/nonsense', REPO)),
      ).toMatchObject({
        status: 404,
        data: { message: 'Not Found' },
      });
      expect(fake.server.violations()).toEqual([
        'GET /repos/octo/app/nonsense: GitHub has no route GET /repos/octo/app/nonsense',
      ]);
    });

    it('answers 501 naming the operation for a valid route the fake does not implement', async () => {
      fake = await startFake({ seed });
      const result = await failure(fake.octokit.rest.issues.lock({ ...REPO, issue_number: 1 }));
      expect(result.status).toBe(501);
      expect(result.data).toMatchObject({
        message:
          'The fake GitHub server does not implement issues/lock (PUT /repos/{owner}/{repo}/issues/{issue_number}/lock).',
      });
      expect(fake.server.requests[0]?.violations).toEqual([
        'not implemented by the fake: issues/lock (PUT /repos/{owner}/{repo}/issues/{issue_number}/lock)',
      ]);
    });
  });

  describe('when the request breaks the description', () => {
    it('answers 422 with the reasons and records them', async () => {
      fake = await startFake({ seed });
      const labels = 'x' as unknown as string[];
      const result = await failure(
        fake.octokit.rest.issues.addLabels({ ...REPO, issue_number: 1, labels }),
      );
      expect(result.status).toBe(422);
      expect(result.data).toMatchObject({
        message: expect.stringContaining('body/labels must be array') as unknown,
      });
      expect(fake.server.requests[0]?.violations).toContain('body/labels must be array');
      expect(fake.server.state.issues[0]?.labels).toEqual([]);
    });

    it('answers 400 for a body that is not JSON', async () => {
      fake = await startFake({ seed });
      const response = await raw(fake.server, '/repos/octo/app/issues/1/comments', {
        method: 'POST',
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        body: '{"body": ',
      });
      expect(response.status).toBe(400);
      expect(fake.server.violations()).toEqual([
        'POST /repos/octo/app/issues/1/comments: the request body is not valid JSON',
      ]);
    });
  });

  describe('when a fault is scripted', () => {
    it('answers with the fault the given number of times, then normally', async () => {
      fake = await startFake({
        seed,
        faults: [{ method: 'POST', path: /\/comments$/, status: 502, times: 1 }],
      });
      const comment = { ...REPO, issue_number: 1, body: 'report' };
      expect(await failure(fake.octokit.rest.issues.createComment(comment))).toMatchObject({
        status: 502,
      });
      expect((await fake.octokit.rest.issues.createComment(comment)).status).toBe(201);
      expect(fake.server.requests.map((request) => request.fault)).toEqual([true, false]);
      expect(fake.server.state.comments).toHaveLength(1);
      expectNoViolations(fake.server);
    });

    it('leaves other methods alone', async () => {
      fake = await startFake({
        seed,
        faults: [{ method: 'POST', path: /\/comments$/, status: 500 }],
      });
      expect(
        (await fake.octokit.rest.issues.listComments({ ...REPO, issue_number: 1 })).status,
      ).toBe(200);
    });

    it('takes faults pushed while the server runs, with their body', async () => {
      fake = await startFake({ seed });
      fake.server.faults.push({
        path: '/repos/octo/app',
        status: 503,
        body: { message: 'maintenance' },
      });
      expect(await failure(fake.octokit.rest.repos.get(REPO))).toEqual({
        status: 503,
        data: { message: 'maintenance' },
      });
    });

    it('still rejects an invalid request instead of faulting it', async () => {
      fake = await startFake({ seed, faults: [{ path: /labels$/, status: 500 }] });
      const labels = 'x' as unknown as string[];
      expect(
        await failure(fake.octokit.rest.issues.addLabels({ ...REPO, issue_number: 1, labels })),
      ).toMatchObject({ status: 422 });
      expect(fake.server.requests[0]?.fault).toBe(false);
    });
  });

  describe('when no OpenAPI index is given', () => {
    it('serves the implemented routes without validating bodies against the description', async () => {
      bare = await startGitHubServer({ seed });
      const octokit = createRestClient(TOKEN, bare.url);
      const { data } = await octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 1,
        body: 'hi',
      });
      expect(data.body).toBe('hi');
      expect(bare.requests[0]?.operationId).toBeUndefined();
      expect(bare.violations()).toEqual([]);
    });

    it('answers 404 for anything else and says it cannot tell whether GitHub has it', async () => {
      bare = await startGitHubServer({ seed });
      const octokit = createRestClient(TOKEN, bare.url);
      expect(await failure(octokit.rest.issues.lock({ ...REPO, issue_number: 1 }))).toMatchObject({
        status: 404,
      });
      expect(bare.violations()).toEqual([
        'PUT /repos/octo/app/issues/1/lock: PUT /repos/octo/app/issues/1/lock is not implemented by the fake (no OpenAPI index loaded to tell whether GitHub has it)',
      ]);
    });

    it('still rejects a body of the wrong shape where a handler reads it', async () => {
      bare = await startGitHubServer({ seed });
      const octokit = createRestClient(TOKEN, bare.url);
      const labels = 'x' as unknown as string[];
      expect(
        await failure(octokit.rest.issues.addLabels({ ...REPO, issue_number: 1, labels })),
      ).toMatchObject({ status: 422 });
      expect(bare.violations()).toEqual([
        'POST /repos/octo/app/issues/1/labels: body/labels must be array',
      ]);
    });
  });

  describe("with openapi: 'load'", () => {
    it('reads the description from node_modules and validates', async () => {
      bare = await startGitHubServer({ seed, openapi: 'load' });
      const octokit = createRestClient(TOKEN, bare.url);
      expect(await failure(octokit.request('GET /nope'))).toMatchObject({ status: 404 });
      expect(bare.violations()).toEqual(['GET /nope: GitHub has no route GET /nope']);
    });
  });

  it('answers 500 and records a violation when the fake itself fails', async () => {
    fake = await startFake({
      seed: { repos: [{ owner: 'octo', name: 'app', origin: '/nonexistent/origin.git' }] },
    });
    const result = await failure(fake.octokit.rest.git.getRef({ ...REPO, ref: 'heads/main' }));
    expect(result.status).toBe(500);
    expect(fake.server.requests[0]?.violations[0]).toMatch(
      /^the fake crashed: Command failed: git/,
    );
  });

  it('stops listening on close', async () => {
    const server = await startGitHubServer({ seed });
    await server.close();
    await expect(fetch(`${server.url}/repos/octo/app`)).rejects.toThrow();
  });
});
