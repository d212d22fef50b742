/**
 * No secret leaves in a request to GitHub (issue 12, item 4): the real client against the fake
 * GitHub, whose recorded requests are what GitHub would have received.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../src/github/github-client.js';
import { REPO, TOKEN, startFake } from '../testkit/github-server/fixture.js';
import type { Fake } from '../testkit/github-server/fixture.js';

const SECRET = 'sk-ant-unit-secret-0123456789';
const repo = `${REPO.owner}/${REPO.repo}`;

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.server.close();
  fake = undefined;
});

async function start() {
  fake = await startFake({
    seed: {
      repos: [{ owner: REPO.owner, name: REPO.repo }],
      issues: [{ repo, number: 1, title: 'Fix it' }],
    },
  });
  return fake.server;
}

describe('createGitHubClient', () => {
  it('masks the token and the given secrets, in every encoding, in what it sends', async () => {
    const server = await start();
    const client = createGitHubClient(TOKEN, server.url, [SECRET]);
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
    const client = createGitHubClient(TOKEN, server.url, [SECRET]);
    const { data } = await client.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      ...REPO,
      issue_number: 1,
    });
    expect(data.title).toBe('Fix it');
    expect(server.violations()).toEqual([]);
  });

  it('masks strings nested in a body', async () => {
    const server = await start();
    const client = createGitHubClient(TOKEN, server.url, [SECRET]);
    await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
      ...REPO,
      issue_number: 1,
      labels: ['bug', `label-${SECRET}`],
    });
    expect(server.requests.at(-1)?.body).toEqual({ labels: ['bug', 'label-***'] });
    expect(server.violations()).toEqual([]);
  });
});
