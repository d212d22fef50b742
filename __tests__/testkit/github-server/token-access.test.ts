/**
 * The fake's token carries a workflow's `permissions:` block: what the block leaves out, the
 * token may not do, and GitHub's 403 and `x-accepted-github-permissions` header say so, for the
 * API and for git over HTTP alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { createOriginRepo } from '../../../testkit/github-server/index.js';
import type { OriginRepo, TokenPermissions } from '../../../testkit/github-server/index.js';
import { REPO, TOKEN, expectNoViolations, failure, startFake } from './fixture.js';
import type { Fake } from './fixture.js';

let fake: Fake | undefined;
let origin: OriginRepo | undefined;

afterEach(async () => {
  await fake?.server.close();
  await origin?.cleanup();
  fake = undefined;
  origin = undefined;
});

async function scoped(tokenPermissions?: TokenPermissions): Promise<Fake> {
  origin = await createOriginRepo({ files: { 'a.txt': 'a\n' } });
  fake = await startFake({
    ...(tokenPermissions && { tokenPermissions }),
    seed: {
      repos: [{ owner: 'octo', name: 'app', origin: origin.bare }],
      issues: [{ repo: 'octo/app', number: 1, title: 'An issue' }],
      pulls: [{ repo: 'octo/app', number: 2, title: 'A change', head: 'main' }],
    },
  });
  return fake;
}

describe('the token permissions of the fake GitHub', () => {
  describe('when the block leaves out what the endpoint needs', () => {
    it('answers 403 "Resource not accessible by integration" with the accepted permissions', async () => {
      const { octokit, server } = await scoped({ contents: 'write', 'pull-requests': 'write' });
      const call = octokit.rest.issues.createComment({ ...REPO, issue_number: 1, body: 'x' });
      const refused = await failure(call);

      expect(refused.status).toBe(403);
      expect(refused.data).toMatchObject({ message: 'Resource not accessible by integration' });
      const header = await call.catch(
        (error: { response: { headers: Record<string, string> } }) => error.response.headers,
      );
      expect(header).toMatchObject({ 'x-accepted-github-permissions': 'issues=write' });
      expect(server.state.comments).toHaveLength(0);
      expectNoViolations(server);
    });

    it('takes pull-requests: write for a pull request’s comments, as GitHub does', async () => {
      const { octokit, server } = await scoped({ 'pull-requests': 'write' });
      await octokit.rest.issues.createComment({ ...REPO, issue_number: 2, body: 'on the PR' });
      const refused = await failure(
        octokit.rest.issues.createComment({ ...REPO, issue_number: 1, body: 'on the issue' }),
      );

      expect(refused.status).toBe(403);
      expect(server.state.comments.map((comment) => comment.issueNumber)).toEqual([2]);
    });

    it('lets read stand for read only: opening a pull request takes write', async () => {
      const { octokit } = await scoped({ 'pull-requests': 'read' });
      await octokit.rest.pulls.get({ ...REPO, pull_number: 2 });
      const refused = await failure(
        octokit.rest.pulls.create({ ...REPO, head: 'main', base: 'main', title: 't' }),
      );
      expect(refused.status).toBe(403);
    });

    it('keeps metadata readable, which no block takes away', async () => {
      const { octokit } = await scoped({});
      const { data } = await octokit.rest.repos.get(REPO);
      expect(data.full_name).toBe('octo/app');
    });
  });

  describe('when no block is given', () => {
    it('lets the token do everything, and still names what each endpoint takes', async () => {
      const { octokit } = await scoped();
      const { headers } = await octokit.rest.issues.createComment({
        ...REPO,
        issue_number: 2,
        body: 'x',
      });
      expect(headers['x-accepted-github-permissions']).toBe('issues=write; pull_requests=write');
    });
  });
});

describe('git over HTTP on the fake GitHub', () => {
  /** A clone whose origin is the fake's HTTP URL, with no credentials of its own. */
  async function httpClone(): Promise<string> {
    const url = `${fake!.server.url}/octo/app.git`;
    await execa('git', ['remote', 'set-url', 'origin', url], { cwd: origin!.checkout });
    return url;
  }

  function auth(token: string): string[] {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    return ['-c', `http.${fake!.server.url}/.extraheader=AUTHORIZATION: basic ${basic}`];
  }

  async function commitAndPush(args: string[]) {
    const cwd = origin!.checkout;
    await execa('git', ['checkout', '-q', '-b', 'fix'], { cwd });
    await execa(
      'git',
      [
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@example.com',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'x',
      ],
      { cwd },
    );
    return execa('git', [...args, 'push', 'origin', 'HEAD:refs/heads/fix'], {
      cwd,
      reject: false,
      env: { GIT_TERMINAL_PROMPT: '0' },
    });
  }

  it('takes a push with the token and contents: write into the bare origin', async () => {
    await scoped({ contents: 'write' });
    await httpClone();
    const pushed = await commitAndPush(auth(TOKEN));

    expect(pushed.exitCode, pushed.stderr).toBe(0);
    const head = (await execa('git', ['rev-parse', 'HEAD'], { cwd: origin!.checkout })).stdout;
    expect((await origin!.branches()).fix).toBe(head);
  });

  it('refuses a push with contents: read as GitHub does, and git says so', async () => {
    await scoped({ contents: 'read' });
    const url = await httpClone();
    const pushed = await commitAndPush(auth(TOKEN));

    expect(pushed.exitCode).not.toBe(0);
    expect(pushed.stderr).toContain(
      'remote: Permission to octo/app.git denied to github-actions[bot].',
    );
    expect(pushed.stderr).toContain(
      `fatal: unable to access '${url}/': The requested URL returned error: 403`,
    );
    expect(Object.keys(await origin!.branches())).toEqual(['main']);
  });

  it('refuses a fetch that brings no token, and one that brings another token', async () => {
    await scoped({ contents: 'read' });
    await httpClone();
    const env = { GIT_TERMINAL_PROMPT: '0' };
    const cwd = origin!.checkout;
    const bare = await execa('git', ['fetch', 'origin'], { cwd, env, reject: false });
    const wrong = await execa('git', [...auth('ghs_other'), 'fetch', 'origin'], {
      cwd,
      env,
      reject: false,
    });
    const right = await execa('git', [...auth(TOKEN), 'fetch', 'origin'], {
      cwd,
      env,
      reject: false,
    });

    expect(bare.exitCode).not.toBe(0);
    expect(wrong.exitCode).not.toBe(0);
    expect(right.exitCode, right.stderr).toBe(0);
  });

  it('answers 404 for a repository it does not have', async () => {
    await scoped({ contents: 'read' });
    const response = await fetch(
      `${fake!.server.url}/octo/other.git/info/refs?service=git-upload-pack`,
      {
        headers: { authorization: `token ${TOKEN}` },
      },
    );
    expect(response.status).toBe(404);
  });
});
