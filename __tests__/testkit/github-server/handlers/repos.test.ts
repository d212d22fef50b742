import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOriginRepo } from '../../../../testkit/github-server/index.js';
import type { OriginRepo, Permission } from '../../../../testkit/github-server/index.js';
import { REPO, expectNoViolations, failure, startFake } from '../fixture.js';
import type { Fake } from '../fixture.js';

const permissions: Record<string, Permission> = {
  ada: 'admin',
  max: 'maintain',
  wes: 'write',
  tia: 'triage',
  rea: 'read',
  nob: 'none',
  'dependabot[bot]': 'write',
};

let origin: OriginRepo;
let fake: Fake | undefined;

beforeAll(async () => {
  origin = await createOriginRepo({ branches: { 'feature/x': { 'x.txt': 'x\n' } } });
});

afterEach(async () => {
  await fake?.server.close();
  fake = undefined;
});

afterAll(async () => {
  await origin.cleanup();
});

async function start(): Promise<Fake> {
  fake = await startFake({
    seed: {
      repos: [
        { owner: 'octo', name: 'app', defaultBranch: 'main', origin: origin.bare, permissions },
        { owner: 'contributor', name: 'app', parent: 'octo/app', defaultBranch: 'trunk' },
        { owner: 'octo', name: 'memory', private: true, branches: { main: 'a'.repeat(40) } },
      ],
    },
  });
  return fake;
}

describe('repos routes', () => {
  describe('GET a repository', () => {
    it('returns its name, default branch and that it is no fork', async () => {
      const { octokit, server } = await start();
      const { data } = await octokit.rest.repos.get(REPO);
      expect(data).toMatchObject({
        full_name: 'octo/app',
        name: 'app',
        owner: { login: 'octo' },
        default_branch: 'main',
        fork: false,
        private: false,
        html_url: 'https://github.com/octo/app',
      });
      expect(data.parent).toBeUndefined();
      expectNoViolations(server);
    });

    it('returns the parent of a fork', async () => {
      const { octokit } = await start();
      const { data } = await octokit.rest.repos.get({ owner: 'contributor', repo: 'app' });
      expect(data).toMatchObject({
        fork: true,
        default_branch: 'trunk',
        parent: { full_name: 'octo/app' },
      });
    });

    it('finds a repository whatever the case of its name, and answers 404 for an unknown one', async () => {
      const { octokit } = await start();
      expect((await octokit.rest.repos.get({ owner: 'Octo', repo: 'App' })).data.full_name).toBe(
        'octo/app',
      );
      expect(
        await failure(octokit.rest.repos.get({ owner: 'octo', repo: 'missing' })),
      ).toMatchObject({ status: 404 });
    });
  });

  describe('GET a collaborator permission', () => {
    const cases: Array<[string, string, string, boolean]> = [
      ['ada', 'admin', 'admin', true],
      ['max', 'write', 'maintain', true],
      ['wes', 'write', 'write', true],
      ['tia', 'read', 'triage', false],
      ['rea', 'read', 'read', false],
      ['nob', 'none', 'none', false],
      ['stranger', 'none', 'none', false],
      ['octo', 'admin', 'admin', true],
      ['dependabot[bot]', 'write', 'write', true],
    ];
    it.each(cases)('reports %s as %s (role %s)', async (username, permission, role, push) => {
      const { octokit, server } = await start();
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
        ...REPO,
        username,
      });
      expect(data).toMatchObject({
        permission,
        role_name: role,
        user: { login: username, permissions: { push } },
      });
      expectNoViolations(server);
    });
  });

  describe('git refs', () => {
    it('reads a branch ref from the bare origin, also one with a slash in its name', async () => {
      const { octokit, server } = await start();
      const branches = await origin.branches();
      const { data } = await octokit.rest.git.getRef({ ...REPO, ref: 'heads/feature/x' });
      expect(data).toMatchObject({
        ref: 'refs/heads/feature/x',
        object: { sha: branches['feature/x'], type: 'commit' },
      });
      expect((await octokit.rest.git.getRef({ ...REPO, ref: 'heads/main' })).data.object.sha).toBe(
        origin.initialSha,
      );
      expectNoViolations(server);
    });

    it('answers 404 for a ref that does not exist', async () => {
      const { octokit } = await start();
      expect(await failure(octokit.rest.git.getRef({ ...REPO, ref: 'heads/nope' }))).toMatchObject({
        status: 404,
      });
    });

    it('creates a ref in the bare origin', async () => {
      const { octokit } = await start();
      const { status } = await octokit.rest.git.createRef({
        ...REPO,
        ref: 'refs/heads/from-api',
        sha: origin.initialSha,
      });
      expect(status).toBe(201);
      expect((await origin.branches())['from-api']).toBe(origin.initialSha);
    });

    it('refuses a ref that exists, a commit origin lacks and a malformed name', async () => {
      const { octokit } = await start();
      const create = (ref: string, sha: string) =>
        failure(octokit.rest.git.createRef({ ...REPO, ref, sha }));
      expect(await create('refs/heads/main', origin.initialSha)).toMatchObject({
        status: 422,
        data: { message: 'Reference already exists' },
      });
      expect(await create('refs/heads/new', 'f'.repeat(40))).toMatchObject({
        status: 422,
        data: { message: 'Object does not exist' },
      });
      expect(await create('heads', origin.initialSha)).toMatchObject({ status: 422 });
    });

    it('keeps refs in the state for a repository without origin', async () => {
      const { octokit, server } = await start();
      const repo = { owner: 'octo', repo: 'memory' };
      await octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: 'b'.repeat(40) });
      expect(server.state.repos[2]?.branches).toEqual({
        main: 'a'.repeat(40),
        topic: 'b'.repeat(40),
      });
      expect(
        await failure(
          octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: 'c'.repeat(40) }),
        ),
      ).toMatchObject({ status: 422 });
      expect((await octokit.rest.git.getRef({ ...repo, ref: 'heads/topic' })).data.object.sha).toBe(
        'b'.repeat(40),
      );
    });
  });

  describe('GET a branch', () => {
    it('returns the commit the branch points at, and 404 for an unknown branch', async () => {
      const { octokit } = await start();
      const { data } = await octokit.rest.repos.getBranch({ ...REPO, branch: 'main' });
      expect(data).toMatchObject({ name: 'main', commit: { sha: origin.initialSha } });
      expect(
        await failure(octokit.rest.repos.getBranch({ ...REPO, branch: 'nope' })),
      ).toMatchObject({ status: 404 });
    });
  });
});
