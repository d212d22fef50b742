import { afterEach, describe, expect, it } from 'vitest';
import { FIXED_NOW, REPO, expectNoViolations, failure, startFake } from '../fixture.js';
import type { Fake } from '../fixture.js';

const seed = {
  repos: [{ owner: 'octo', name: 'app', permissions: { alice: 'write' as const } }],
  issues: [
    {
      repo: 'octo/app',
      number: 4,
      title: 'Crash on start',
      body: 'It crashes.',
      user: 'alice',
      labels: ['bug'],
    },
  ],
  pulls: [{ repo: 'octo/app', number: 5, title: 'Fix crash', head: 'fix' }],
  comments: [{ repo: 'octo/app', issueNumber: 4, body: 'Seen it too', user: 'bob' }],
  labels: [{ repo: 'octo/app', name: 'ci-agent', color: '0e8a16', description: 'Run the agent' }],
};

let fake: Fake;

afterEach(async () => {
  await fake.server.close();
});

describe('issues routes', () => {
  describe('GET an issue', () => {
    it('returns the issue with its labels, author and counts', async () => {
      fake = await startFake({ seed });
      const { data } = await fake.octokit.rest.issues.get({ ...REPO, issue_number: 4 });
      expect(data).toMatchObject({
        number: 4,
        title: 'Crash on start',
        body: 'It crashes.',
        state: 'open',
        html_url: 'https://github.com/octo/app/issues/4',
        user: { login: 'alice', type: 'User' },
        labels: [{ name: 'bug' }],
        comments: 1,
        author_association: 'COLLABORATOR',
        created_at: '2024-05-01T12:00:00Z',
      });
      expect(data.pull_request).toBeUndefined();
      expect(typeof data.node_id).toBe('string');
      expectNoViolations(fake.server);
    });

    it('returns a pull request as an issue with a pull_request link, as GitHub does', async () => {
      fake = await startFake({ seed });
      const { data } = await fake.octokit.rest.issues.get({ ...REPO, issue_number: 5 });
      expect(data.pull_request?.html_url).toBe('https://github.com/octo/app/pull/5');
    });

    it('answers 404 for an issue or a repository that does not exist', async () => {
      fake = await startFake({ seed });
      expect(
        await failure(fake.octokit.rest.issues.get({ ...REPO, issue_number: 99 })),
      ).toMatchObject({ status: 404 });
      expect(
        await failure(
          fake.octokit.rest.issues.get({ owner: 'octo', repo: 'other', issue_number: 4 }),
        ),
      ).toMatchObject({ status: 404 });
      expectNoViolations(fake.server);
    });
  });

  describe('issue comments', () => {
    it('creates a comment authored by the token and keeps it in the state', async () => {
      fake = await startFake({ seed });
      const { status, data } = await fake.octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 4,
        body: '<!-- ci-agent -->\nworking',
      });
      expect(status).toBe(201);
      expect(data).toMatchObject({
        body: '<!-- ci-agent -->\nworking',
        user: { login: 'github-actions[bot]', type: 'Bot' },
        html_url: `https://github.com/octo/app/issues/4#issuecomment-${data.id}`,
        created_at: '2024-05-01T12:00:00Z',
      });
      expect(fake.server.state.comments.at(-1)).toMatchObject({
        id: data.id,
        issueNumber: 4,
        user: 'github-actions[bot]',
      });
      expectNoViolations(fake.server);
    });

    it('links a comment on a pull request to the pull request page', async () => {
      fake = await startFake({ seed });
      const { data } = await fake.octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 5,
        body: 'report',
      });
      expect(data.html_url).toBe(`https://github.com/octo/app/pull/5#issuecomment-${data.id}`);
    });

    it('lists comments in order, page by page, so paginate finds them all', async () => {
      fake = await startFake({ seed });
      for (const body of ['two', 'three']) {
        await fake.octokit.rest.issues.createComment({ ...REPO, issue_number: 4, body });
      }
      const first = await fake.octokit.rest.issues.listComments({
        ...REPO,
        issue_number: 4,
        per_page: 2,
      });
      expect(first.data.map((comment) => comment.body)).toEqual(['Seen it too', 'two']);
      expect(first.headers.link).toContain('rel="next"');
      const all = await fake.octokit.paginate(fake.octokit.rest.issues.listComments, {
        ...REPO,
        issue_number: 4,
        per_page: 1,
      });
      expect(all.map((comment) => comment.body)).toEqual(['Seen it too', 'two', 'three']);
      expectNoViolations(fake.server);
    });

    it('updates a comment in place', async () => {
      fake = await startFake({ seed });
      const { data: created } = await fake.octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 4,
        body: 'working',
      });
      const { data } = await fake.octokit.rest.issues.updateComment({
        ...REPO,
        comment_id: created.id,
        body: 'done',
      });
      expect(data).toMatchObject({ id: created.id, body: 'done' });
      expect(
        (await fake.octokit.rest.issues.getComment({ ...REPO, comment_id: created.id })).data.body,
      ).toBe('done');
      expect(
        fake.server.state.comments.filter((comment) => comment.issueNumber === 4),
      ).toHaveLength(2);
      expectNoViolations(fake.server);
    });

    it('answers 404 for a comment that does not exist', async () => {
      fake = await startFake({ seed });
      expect(
        await failure(
          fake.octokit.rest.issues.updateComment({ ...REPO, comment_id: 424242, body: 'x' }),
        ),
      ).toMatchObject({ status: 404 });
    });

    it('answers 404 for a comment on an issue that does not exist', async () => {
      fake = await startFake({ seed });
      expect(
        await failure(
          fake.octokit.rest.issues.createComment({ ...REPO, issue_number: 77, body: 'x' }),
        ),
      ).toMatchObject({ status: 404 });
      expect(fake.server.state.comments).toHaveLength(1);
    });
  });

  describe('when a comment body is over the limit', () => {
    it('accepts exactly 65536 characters', async () => {
      fake = await startFake({ seed });
      const { status } = await fake.octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 4,
        body: 'x'.repeat(65_536),
      });
      expect(status).toBe(201);
    });

    it('answers 422 "Body is too long" for one more, on create and on update', async () => {
      fake = await startFake({ seed });
      const body = 'x'.repeat(65_537);
      const created = await failure(
        fake.octokit.rest.issues.createComment({ ...REPO, issue_number: 4, body }),
      );
      expect(created).toMatchObject({
        status: 422,
        data: {
          message: 'Validation Failed',
          errors: [
            { resource: 'IssueComment', message: 'Body is too long (maximum is 65536 characters)' },
          ],
        },
      });
      const comment = fake.server.state.comments[0];
      const updated = await failure(
        fake.octokit.rest.issues.updateComment({ ...REPO, comment_id: comment?.id ?? 0, body }),
      );
      expect(updated.status).toBe(422);
      expect(comment?.body).toBe('Seen it too');
      expect(fake.server.state.comments).toHaveLength(1);
    });

    it('counts characters, not UTF-16 units', async () => {
      fake = await startFake({ seed, commentBodyLimit: 3 });
      const { status } = await fake.octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 4,
        body: '😀😀😀',
      });
      expect(status).toBe(201);
      expect(
        await failure(
          fake.octokit.rest.issues.createComment({ ...REPO, issue_number: 4, body: 'abcd' }),
        ),
      ).toMatchObject({ status: 422 });
    });
  });

  describe('labels', () => {
    it('adds labels to an issue, creating the ones the repository lacks', async () => {
      fake = await startFake({ seed });
      const { data } = await fake.octokit.rest.issues.addLabels({
        ...REPO,
        issue_number: 4,
        labels: ['ci-agent', 'needs-review'],
      });
      expect(data.map((label) => label.name)).toEqual(['bug', 'ci-agent', 'needs-review']);
      expect(fake.server.state.issues[0]?.labels).toEqual(['bug', 'ci-agent', 'needs-review']);
      expect(fake.server.state.labels.map((label) => label.name)).toContain('needs-review');
      expectNoViolations(fake.server);
    });

    it('does not add a label twice', async () => {
      fake = await startFake({ seed });
      await fake.octokit.rest.issues.addLabels({ ...REPO, issue_number: 4, labels: ['BUG'] });
      expect(fake.server.state.issues[0]?.labels).toEqual(['bug']);
    });

    it('removes a label from an issue, and answers 404 when it is not there', async () => {
      fake = await startFake({ seed });
      const { data } = await fake.octokit.rest.issues.removeLabel({
        ...REPO,
        issue_number: 4,
        name: 'bug',
      });
      expect(data).toEqual([]);
      expect(
        await failure(
          fake.octokit.rest.issues.removeLabel({ ...REPO, issue_number: 4, name: 'bug' }),
        ),
      ).toMatchObject({
        status: 404,
        data: { message: 'Label does not exist' },
      });
    });

    it('gets a label by name, and answers 404 for an unknown one', async () => {
      fake = await startFake({ seed });
      const { data } = await fake.octokit.rest.issues.getLabel({ ...REPO, name: 'ci-agent' });
      expect(data).toMatchObject({
        name: 'ci-agent',
        color: '0e8a16',
        description: 'Run the agent',
      });
      expect(
        await failure(fake.octokit.rest.issues.getLabel({ ...REPO, name: 'nope' })),
      ).toMatchObject({ status: 404 });
      expectNoViolations(fake.server);
    });

    it('creates a label, and refuses one that exists', async () => {
      fake = await startFake({ seed });
      const { status, data } = await fake.octokit.rest.issues.createLabel({
        ...REPO,
        name: 'agent-done',
        color: 'ffffff',
      });
      expect(status).toBe(201);
      expect(data).toMatchObject({ name: 'agent-done', color: 'ffffff' });
      expect(
        await failure(fake.octokit.rest.issues.createLabel({ ...REPO, name: 'agent-done' })),
      ).toMatchObject({ status: 422 });
    });
  });

  it('stamps changes with the configured clock', async () => {
    fake = await startFake({ seed, now: () => new Date(FIXED_NOW.getTime() + 60_000) });
    const { data } = await fake.octokit.rest.issues.createComment({
      ...REPO,
      issue_number: 4,
      body: 'later',
    });
    expect(data.created_at).toBe('2024-05-01T12:01:00Z');
  });
});
