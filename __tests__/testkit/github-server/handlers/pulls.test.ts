import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOriginRepo } from '../../../../testkit/github-server/index.js';
import type { GitHubSeed, OriginRepo } from '../../../../testkit/github-server/index.js';
import { REPO, expectNoViolations, failure, startFake } from '../fixture.js';
import type { Fake } from '../fixture.js';

let origin: OriginRepo;
let fake: Fake | undefined;

// One origin for the file: each test pushes branches of its own names.
beforeAll(async () => {
  origin = await createOriginRepo({
    files: { 'src/app.js': 'export const answer = 41;\n' },
    branches: { 'same-as-main': {} },
  });
});

afterEach(async () => {
  await fake?.server.close();
  fake = undefined;
});

afterAll(async () => {
  await origin.cleanup();
});

function seedWith(extra: Partial<GitHubSeed> = {}): GitHubSeed {
  return {
    repos: [
      { owner: 'octo', name: 'app', origin: origin.bare },
      {
        owner: 'contributor',
        name: 'app',
        parent: 'octo/app',
        branches: { 'patch-1': 'c'.repeat(40) },
      },
    ],
    issues: [{ repo: 'octo/app', number: 7, title: 'Answer is wrong' }],
    ...extra,
  };
}

function current(): Fake {
  if (fake === undefined) throw new Error('start the fake first');
  return fake;
}

/** What the action does: commit on a branch (from `start`) in the checkout and push it. */
async function pushBranch(
  branch: string,
  content = 'export const answer = 42;\n',
  start: string = origin.defaultBranch,
): Promise<string> {
  await origin.git(['checkout', '--quiet', '-B', branch, start]);
  await writeFile(join(origin.checkout, 'src/app.js'), content);
  await origin.git(['commit', '--quiet', '--all', '-m', `change on ${branch}`]);
  await origin.git(['push', '--quiet', 'origin', branch]);
  return (await origin.git(['rev-parse', 'HEAD'])).trim();
}

const create = (head: string, extra: Record<string, unknown> = {}) =>
  current().octokit.rest.pulls.create({
    ...REPO,
    title: 'Fix the answer',
    head,
    base: 'main',
    body: 'Closes #7',
    ...extra,
  });

describe('pulls routes', () => {
  describe('POST a pull request', () => {
    it('opens one from a branch pushed to origin with git', async () => {
      fake = await startFake({ seed: seedWith() });
      const sha = await pushBranch('ci-agent/issue-7');
      const { status, data } = await create('ci-agent/issue-7');
      expect(status).toBe(201);
      expect(data).toMatchObject({
        number: 8,
        state: 'open',
        title: 'Fix the answer',
        body: 'Closes #7',
        html_url: 'https://github.com/octo/app/pull/8',
        user: { login: 'github-actions[bot]' },
        head: {
          ref: 'ci-agent/issue-7',
          sha,
          label: 'octo:ci-agent/issue-7',
          repo: { full_name: 'octo/app' },
        },
        base: { ref: 'main', sha: origin.initialSha, repo: { full_name: 'octo/app' } },
        draft: false,
      });
      expect(current().server.state.pulls).toHaveLength(1);
      expectNoViolations(current().server);
    });

    it("answers the workflow's token 403 when the repository does not let Actions open pull requests", async () => {
      const seed = seedWith();
      seed.repos![0]!.actionsCanCreatePullRequests = false;
      fake = await startFake({ seed });
      await pushBranch('refused');
      expect(await failure(create('refused'))).toEqual({
        status: 403,
        data: {
          message: 'GitHub Actions is not permitted to create or approve pull requests.',
          documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
          status: '403',
        },
      });
      expect(current().server.state.pulls).toEqual([]);
      expectNoViolations(current().server);
    });

    it('lets another token open pull requests whatever that setting says', async () => {
      const seed = seedWith();
      seed.repos![0]!.actionsCanCreatePullRequests = false;
      fake = await startFake({ seed, actor: 'octocat' });
      await pushBranch('by-a-person');
      expect((await create('by-a-person')).status).toBe(201);
    });

    it('answers 422 for a head branch that was never pushed, without calling it a violation', async () => {
      fake = await startFake({ seed: seedWith() });
      expect(await failure(create('not-pushed'))).toMatchObject({
        status: 422,
        data: {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
        },
      });
      expect(current().server.state.pulls).toEqual([]);
      expectNoViolations(current().server);
    });

    it('answers 422 for a base branch that does not exist', async () => {
      fake = await startFake({ seed: seedWith() });
      await pushBranch('base-check');
      expect(await failure(create('base-check', { base: 'develop' }))).toMatchObject({
        status: 422,
        data: { errors: [{ field: 'base', code: 'invalid' }] },
      });
    });

    it('answers 422 when the head has no commits the base lacks', async () => {
      fake = await startFake({ seed: seedWith() });
      expect(await failure(create('same-as-main'))).toMatchObject({
        status: 422,
        data: { errors: [{ message: 'No commits between main and same-as-main' }] },
      });
    });

    it('answers 422 when an open pull request already joins the same branches', async () => {
      fake = await startFake({ seed: seedWith() });
      await pushBranch('duplicate');
      await create('duplicate');
      expect(await failure(create('duplicate'))).toMatchObject({
        status: 422,
        data: { errors: [{ message: 'A pull request already exists for octo:duplicate.' }] },
      });
      expect(current().server.state.pulls).toHaveLength(1);
    });

    it('rejects a pull request without a title as a violation', async () => {
      fake = await startFake({ seed: seedWith() });
      await pushBranch('untitled');
      const call = current().octokit.rest.pulls.create({ ...REPO, head: 'untitled', base: 'main' });
      expect(await failure(call)).toMatchObject({
        status: 422,
        data: { errors: [{ field: 'title', code: 'missing_field' }] },
      });
      expect(current().server.violations()).toEqual([
        "POST /repos/octo/app/pulls: body/title is required unless 'issue' is given",
      ]);
    });

    it('rejects a request without a base through the description', async () => {
      fake = await startFake({ seed: seedWith() });
      // A plain string route skips Octokit's types, which would refuse the missing base.
      const route: string = 'POST /repos/{owner}/{repo}/pulls';
      const call = current().octokit.request(route, {
        ...REPO,
        title: 't',
        head: 'feature',
      });
      expect(await failure(call)).toMatchObject({ status: 422 });
      expect(current().server.violations()).toEqual([
        'POST /repos/octo/app/pulls: body/base is required',
      ]);
    });

    it('opens one from a branch of a fork, named owner:branch', async () => {
      fake = await startFake({ seed: seedWith() });
      const { data } = await create('contributor:patch-1');
      expect(data.head).toMatchObject({
        label: 'contributor:patch-1',
        sha: 'c'.repeat(40),
        repo: { full_name: 'contributor/app', fork: true },
      });
      expectNoViolations(current().server);
    });

    it('opens one in a repository without origin once the branch ref is created', async () => {
      fake = await startFake({
        seed: { repos: [{ owner: 'octo', name: 'app', branches: { main: 'a'.repeat(40) } }] },
      });
      await current().octokit.rest.git.createRef({
        ...REPO,
        ref: 'refs/heads/feature',
        sha: 'b'.repeat(40),
      });
      const { data } = await create('feature');
      expect(data.head.sha).toBe('b'.repeat(40));
      expectNoViolations(current().server);
    });
    it('answers 422 in a repository without origin when both branches point at one commit', async () => {
      const sha = 'a'.repeat(40);
      fake = await startFake({
        seed: { repos: [{ owner: 'octo', name: 'app', branches: { main: sha, copy: sha } }] },
      });
      expect(await failure(create('copy'))).toMatchObject({
        status: 422,
        data: { errors: [{ message: 'No commits between main and copy' }] },
      });
    });
  });

  describe('GET a pull request', () => {
    it('reports the head sha the branch has now', async () => {
      fake = await startFake({ seed: seedWith() });
      await pushBranch('moving');
      const { data: created } = await create('moving');
      const later = await pushBranch('moving', 'export const answer = 43;\n', 'moving');
      const { data } = await current().octokit.rest.pulls.get({
        ...REPO,
        pull_number: created.number,
      });
      expect(data.head.sha).toBe(later);
    });

    it('describes a seeded pull request from a fork', async () => {
      fake = await startFake({
        seed: seedWith({
          pulls: [
            {
              repo: 'octo/app',
              number: 3,
              title: 'Typo',
              head: { repo: 'contributor/app', ref: 'patch-1' },
              user: 'contributor',
            },
          ],
        }),
      });
      const { data } = await current().octokit.rest.pulls.get({ ...REPO, pull_number: 3 });
      expect(data).toMatchObject({
        user: { login: 'contributor' },
        head: {
          ref: 'patch-1',
          repo: { full_name: 'contributor/app', fork: true, parent: { full_name: 'octo/app' } },
        },
        base: { ref: 'main', repo: { full_name: 'octo/app', fork: false } },
      });
    });

    it('answers 404 for a number that is an issue, not a pull request', async () => {
      fake = await startFake({ seed: seedWith() });
      expect(
        await failure(current().octokit.rest.pulls.get({ ...REPO, pull_number: 7 })),
      ).toMatchObject({ status: 404 });
    });
  });

  describe('GET the list of pull requests', () => {
    async function seeded(): Promise<void> {
      fake = await startFake({
        seed: seedWith({
          pulls: [
            { repo: 'octo/app', number: 1, title: 'open one', head: 'feature' },
            { repo: 'octo/app', number: 2, title: 'closed one', head: 'feature', state: 'closed' },
            { repo: 'octo/app', number: 3, title: 'other base', head: 'feature', base: 'release' },
            {
              repo: 'octo/app',
              number: 4,
              title: 'from fork',
              head: { repo: 'contributor/app', ref: 'feature' },
            },
          ],
        }),
      });
    }
    const titles = async (query: Record<string, string>): Promise<string[]> =>
      (await current().octokit.rest.pulls.list({ ...REPO, ...query })).data.map(
        (pull) => pull.title,
      );

    it('lists open ones by default and filters by state, base and owner:branch head', async () => {
      await seeded();
      expect(await titles({})).toEqual(['open one', 'other base', 'from fork']);
      expect(await titles({ state: 'closed' })).toEqual(['closed one']);
      expect(await titles({ state: 'all', base: 'main', head: 'octo:feature' })).toEqual([
        'open one',
        'closed one',
      ]);
      expect(await titles({ head: 'contributor:feature' })).toEqual(['from fork']);
      expectNoViolations(current().server);
    });

    it('rejects a head filter without an owner, which GitHub would silently ignore', async () => {
      await seeded();
      expect(
        await failure(current().octokit.rest.pulls.list({ ...REPO, head: 'feature' })),
      ).toMatchObject({ status: 422 });
      expect(current().server.violations()).toEqual([
        "GET /repos/octo/app/pulls: query parameter 'head' must be 'owner:branch', got 'feature'",
      ]);
    });
  });

  describe('PATCH a pull request', () => {
    it('changes title, body and state', async () => {
      fake = await startFake({
        seed: seedWith({ pulls: [{ repo: 'octo/app', number: 1, title: 'Old', head: 'feature' }] }),
      });
      const { data } = await current().octokit.rest.pulls.update({
        ...REPO,
        pull_number: 1,
        title: 'New',
        body: 'Updated',
        state: 'closed',
      });
      expect(data).toMatchObject({
        title: 'New',
        body: 'Updated',
        state: 'closed',
        closed_at: '2024-05-01T12:00:00Z',
      });
      expect(current().server.state.pulls[0]).toMatchObject({ title: 'New', state: 'closed' });
      expectNoViolations(current().server);
    });

    it('answers 422 for a base branch that does not exist', async () => {
      fake = await startFake({
        seed: seedWith({ pulls: [{ repo: 'octo/app', number: 1, title: 'Old', head: 'feature' }] }),
      });
      expect(
        await failure(
          current().octokit.rest.pulls.update({ ...REPO, pull_number: 1, base: 'nope' }),
        ),
      ).toMatchObject({ status: 422 });
      expect(current().server.state.pulls[0]?.base.ref).toBe('main');
    });

    it('refuses a body over the limit', async () => {
      fake = await startFake({
        seed: seedWith({ pulls: [{ repo: 'octo/app', number: 1, title: 'Old', head: 'feature' }] }),
      });
      const body = 'x'.repeat(65_537);
      expect(
        await failure(current().octokit.rest.pulls.update({ ...REPO, pull_number: 1, body })),
      ).toMatchObject({ status: 422 });
    });
  });
});
