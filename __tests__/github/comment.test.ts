/**
 * The report comment is ours (issue 12, item 3): the real client against the fake GitHub, which
 * checks every request against GitHub's OpenAPI description. Anyone can post the marker; only a
 * comment the token's own identity wrote is ever updated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GITHUB_ACTIONS_LOGIN, upsertReportComment } from '../../src/github/comment.js';
import { createGitHubClient } from '../../src/github/github-client.js';
import type { GitHubServerOptions } from '../../testkit/github-server/index.js';
import { REPO, TOKEN, startFake } from '../testkit/github-server/fixture.js';
import type { Fake } from '../testkit/github-server/fixture.js';

const MARKER = '<!-- ci-agent:report -->';
const repo = `${REPO.owner}/${REPO.repo}`;
const target = { ...REPO, issueNumber: 1 };

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.server.close();
  fake = undefined;
});

async function start(
  comments: Array<{ id: number; user: string; body: string }>,
  options: GitHubServerOptions = {},
) {
  fake = await startFake({
    seed: {
      repos: [{ owner: REPO.owner, name: REPO.repo }],
      issues: [{ repo, number: 1, title: 'Fix it' }],
      comments: comments.map((comment) => ({ repo, issueNumber: 1, ...comment })),
    },
    ...options,
  });
  return { server: fake.server, client: createGitHubClient(TOKEN, fake.server.url) };
}

const bodyOf = (id: number) =>
  fake?.server.state.comments.find((comment) => comment.id === id)?.body;

describe('upsertReportComment', () => {
  it("never writes into someone else's comment that carries the marker", async () => {
    const { server, client } = await start([
      { id: 101, user: 'mallory', body: `${MARKER}\nedit me later` },
    ]);
    const outcome = await upsertReportComment(client, target, `${MARKER}\nthe report`);
    expect(outcome).toMatchObject({ ok: true, created: true });
    expect(bodyOf(101)).toBe(`${MARKER}\nedit me later`);
    const created = server.state.comments.find((comment) => comment.body.endsWith('the report'));
    expect(created?.user).toBe(GITHUB_ACTIONS_LOGIN);
    expect(server.violations()).toEqual([]);
  });

  it('updates the report an earlier run of the same identity wrote', async () => {
    const { server, client } = await start([
      { id: 101, user: GITHUB_ACTIONS_LOGIN, body: `${MARKER}\nold report` },
      { id: 102, user: 'mallory', body: `${MARKER}\nnewer, but not ours` },
    ]);
    const outcome = await upsertReportComment(client, target, `${MARKER}\nnew report`);
    expect(outcome).toMatchObject({ ok: true, id: 101, created: false });
    expect(bodyOf(101)).toBe(`${MARKER}\nnew report`);
    expect(bodyOf(102)).toBe(`${MARKER}\nnewer, but not ours`);
    expect(server.violations()).toEqual([]);
  });

  it("finds a user token's own report by asking who the token is", async () => {
    const { client } = await start(
      [
        { id: 101, user: 'octocat', body: `${MARKER}\nold report` },
        { id: 102, user: GITHUB_ACTIONS_LOGIN, body: `${MARKER}\nanother bot's` },
      ],
      { actor: 'octocat' },
    );
    const outcome = await upsertReportComment(client, target, `${MARKER}\nnew report`);
    expect(outcome).toMatchObject({ ok: true, id: 101, created: false });
    expect(bodyOf(102)).toBe(`${MARKER}\nanother bot's`);
  });

  it('asks nothing more when no comment carries the marker', async () => {
    const { server, client } = await start([{ id: 101, user: 'alice', body: 'hello' }]);
    await upsertReportComment(client, target, `${MARKER}\nthe report`);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).not.toContain(
      'GET /user',
    );
  });
});
