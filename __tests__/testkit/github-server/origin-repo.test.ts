import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOriginRepo, startGitHubServer } from '../../../testkit/github-server/index.js';
import type { OriginRepo } from '../../../testkit/github-server/index.js';
import { createRestClient } from './fixture.js';

const created: OriginRepo[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((repo) => repo.cleanup()));
});

async function make(options: Parameters<typeof createOriginRepo>[0] = {}): Promise<OriginRepo> {
  const repo = await createOriginRepo(options);
  created.push(repo);
  return repo;
}

async function commitAndPush(repo: OriginRepo, branch: string): Promise<void> {
  await repo.git(['checkout', '--quiet', '-b', branch]);
  await writeFile(join(repo.checkout, 'fix.txt'), `fixed on ${branch}\n`);
  await repo.git(['add', 'fix.txt']);
  await repo.git(['commit', '--quiet', '-m', 'Fix']);
  await repo.git(['push', '--quiet', 'origin', branch]);
}

describe('createOriginRepo', () => {
  it('makes a bare origin and a checkout of its default branch holding the files', async () => {
    const repo = await make({
      files: { 'package.json': '{}\n', 'src/index.js': 'export {};\n' },
      defaultBranch: 'trunk',
    });
    expect(existsSync(join(repo.bare, 'HEAD'))).toBe(true);
    expect(readFileSync(join(repo.checkout, 'src/index.js'), 'utf8')).toBe('export {};\n');
    expect((await repo.git(['rev-parse', '--abbrev-ref', 'HEAD'])).trim()).toBe('trunk');
    expect((await repo.git(['remote', 'get-url', 'origin'])).trim()).toBe(repo.bare);
    expect(await repo.branches()).toEqual({ trunk: repo.initialSha });
  });

  it('gives the same initial sha for the same files', async () => {
    const first = await make({ files: { 'a.txt': 'a\n' } });
    const second = await make({ files: { 'a.txt': 'a\n' } });
    expect(first.initialSha).toBe(second.initialSha);
    expect(first.initialSha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('adds branches on top of the default branch and leaves the checkout where asked', async () => {
    const repo = await make({
      branches: { feature: { 'feature.txt': 'new\n' }, empty: {} },
      checkoutBranch: 'feature',
    });
    const branches = await repo.branches();
    expect(Object.keys(branches).sort()).toEqual(['empty', 'feature', 'main']);
    expect(branches['empty']).toBe(repo.initialSha);
    expect(branches['feature']).not.toBe(repo.initialSha);
    expect(existsSync(join(repo.checkout, 'feature.txt'))).toBe(true);
  });

  it('accepts a push from the checkout, after which the branch exists for a pull request', async () => {
    const repo = await make();
    const server = await startGitHubServer({
      seed: { repos: [{ owner: 'octo', name: 'app', origin: repo.bare }] },
    });
    try {
      const octokit = createRestClient('token', server.url);
      const open = () =>
        octokit.rest.pulls.create({
          owner: 'octo',
          repo: 'app',
          title: 'Fix',
          head: 'ci-agent/fix',
          base: 'main',
        });
      await expect(open()).rejects.toMatchObject({ status: 422 });
      await commitAndPush(repo, 'ci-agent/fix');
      expect((await repo.branches())['ci-agent/fix']).toBe(
        (await repo.git(['rev-parse', 'HEAD'])).trim(),
      );
      expect((await open()).status).toBe(201);
    } finally {
      await server.close();
    }
  });

  describe('when pushes are rejected', () => {
    it('fails the push with the reason and leaves origin unchanged', async () => {
      const repo = await make({ rejectPushes: 'branch protection says no' });
      await expect(commitAndPush(repo, 'ci-agent/fix')).rejects.toThrow(
        /branch protection says no/,
      );
      expect(Object.keys(await repo.branches())).toEqual(['main']);
    });

    it('can be switched off and on again', async () => {
      const repo = await make({ rejectPushes: true });
      await repo.setRejectPushes(false);
      await commitAndPush(repo, 'first');
      await repo.setRejectPushes(true);
      await expect(commitAndPush(repo, 'second')).rejects.toThrow(
        /pushes are rejected by this origin/,
      );
      expect(Object.keys(await repo.branches()).sort()).toEqual(['first', 'main']);
    });
  });

  it('removes everything on cleanup', async () => {
    const repo = await createOriginRepo();
    await repo.cleanup();
    expect(existsSync(repo.root)).toBe(false);
  });
});
