/**
 * The action's GitHub client against the fake GitHub, whose recorded requests are what GitHub
 * would have received: no secret leaves in a request (issue 12, item 4), and GitHub's rate limits
 * and server errors are waited out and retried as the retry and throttling plugins do (issue 13).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubClient, RATE_LIMIT_RETRIES } from '../../src/github/github-client.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';
import type { GitHubFault } from '../../testkit/github-server/index.js';
import { REPO, TOKEN, failure, startFake } from '../testkit/github-server/fixture.js';
import type { Fake } from '../testkit/github-server/fixture.js';

const SECRET = 'sk-ant-unit-secret-0123456789';
/** The run's masker (main.ts): the token is one of its secrets. */
const masker = createSecretMasker([TOKEN, SECRET]);
const repo = `${REPO.owner}/${REPO.repo}`;

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.server.close();
  fake = undefined;
});

async function start(faults: GitHubFault[] = []) {
  fake = await startFake({
    faults,
    seed: {
      repos: [{ owner: REPO.owner, name: REPO.repo }],
      issues: [{ repo, number: 1, title: 'Fix it' }],
    },
  });
  return fake.server;
}

describe('createGitHubClient', () => {
  it("masks the run's secrets, the token among them, in every encoding, in what it sends", async () => {
    const server = await start();
    const client = createGitHubClient(TOKEN, server.url, { masker });
    const base64 = Buffer.from(`x:${SECRET}`).toString('base64');
    await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...REPO,
      issue_number: 1,
      body: `key ${SECRET}, token ${TOKEN}, encoded ${base64}, reversed ${[...SECRET].reverse().join('')}`,
    });
    const sent = JSON.stringify(server.requests.map((request) => request.body));
    expect(sent).toContain('key ***, token ***');
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain(TOKEN);
    expect(sent).not.toContain(base64.slice(4, 20));
    expect(sent).not.toContain([...SECRET].reverse().join(''));
    expect(server.state.comments[0]?.body).not.toContain(SECRET);
  });

  it('still authenticates with the token it masks', async () => {
    const server = await start();
    const client = createGitHubClient(TOKEN, server.url, { masker });
    const { data } = await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      ...REPO,
      issue_number: 1,
    });
    expect(data.title).toBe('Fix it');
    expect(server.violations()).toEqual([]);
  });

  it('masks the token when given no masker', async () => {
    const server = await start();
    const client = createGitHubClient(TOKEN, server.url);
    await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...REPO,
      issue_number: 1,
      body: `token ${TOKEN}`,
    });
    expect(server.requests.at(-1)?.body).toEqual({ body: 'token ***' });
  });

  it('masks strings nested in a body', async () => {
    const server = await start();
    const client = createGitHubClient(TOKEN, server.url, { masker });
    await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
      ...REPO,
      issue_number: 1,
      labels: ['bug', `label-${SECRET}`],
    });
    expect(server.requests.at(-1)?.body).toEqual({ labels: ['bug', 'label-***'] });
    expect(server.violations()).toEqual([]);
  });
});

describe('when GitHub limits the rate', () => {
  const ISSUE_PATH = `/repos/${repo}/issues/1`;
  const getIssue = (client: ReturnType<typeof createGitHubClient>) =>
    client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { ...REPO, issue_number: 1 });
  /** A client whose waits last milliseconds instead of seconds, and the warnings it gave. */
  function fastClient(url: string) {
    const warnings: string[] = [];
    const client = createGitHubClient(TOKEN, url, {
      warn: (message) => warnings.push(message),
      retryAfterBaseValue: 5,
    });
    return { client, warnings };
  }
  /** A primary rate limit as GitHub answers it: no requests left until `x-ratelimit-reset`. */
  const primary = (times?: number): GitHubFault => ({
    method: 'GET',
    path: ISSUE_PATH,
    status: 403,
    body: { message: 'API rate limit exceeded for installation ID 1.' },
    headers: {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)),
    },
    ...(times === undefined ? {} : { times }),
  });

  it('waits until the reset and retries, with a warning', async () => {
    const server = await start([primary(1)]);
    const { client, warnings } = fastClient(server.url);
    const { data } = await getIssue(client);
    expect(data.title).toBe('Fix it');
    expect(server.requests.filter((request) => request.path === ISSUE_PATH)).toHaveLength(2);
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^GitHub's rate limit for GET /repos/\\{owner\\}/\\{repo\\}/issues/\\{issue_number\\}: retrying in \\d+ s \\(retry 1 of ${RATE_LIMIT_RETRIES}\\)$`,
        ),
      ),
    ]);
  });

  it('waits as long as a secondary rate limit says (retry-after) and retries', async () => {
    const server = await start([
      {
        method: 'POST',
        path: `/repos/${repo}/issues/1/comments`,
        status: 429,
        body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
        headers: { 'retry-after': '2' },
        times: 1,
      },
    ]);
    const { client, warnings } = fastClient(server.url);
    await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...REPO,
      issue_number: 1,
      body: 'report',
    });
    expect(server.state.comments.map((comment) => comment.body)).toEqual(['report']);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^GitHub's secondary rate limit for POST \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/comments: retrying in 2 s \(retry 1 of 2\)$/,
      ),
    ]);
    expect(server.violations()).toEqual([]);
  });

  it(`gives up after ${RATE_LIMIT_RETRIES} retries and rejects with GitHub's answer`, async () => {
    const server = await start([primary()]);
    const { client, warnings } = fastClient(server.url);
    expect((await failure(getIssue(client))).status).toBe(403);
    expect(server.requests.filter((request) => request.path === ISSUE_PATH)).toHaveLength(
      RATE_LIMIT_RETRIES + 1,
    );
    expect(warnings.at(-1)).toMatch(/: giving up after 2 retries$/);
  });

  it('retries a server error with back-off', async () => {
    const server = await start([{ method: 'GET', path: ISSUE_PATH, status: 502, times: 2 }]);
    const { client, warnings } = fastClient(server.url);
    expect((await getIssue(client)).data.title).toBe('Fix it');
    expect(server.requests.filter((request) => request.path === ISSUE_PATH)).toHaveLength(3);
    expect(warnings).toEqual([]);
  });
});
