/**
 * The action's fetches bring its token, as its push does: a checkout made with
 * `persist-credentials: false` has none, and a private repository (the loopback GitHub's git
 * over HTTP) answers 401 without one. A header the checkout did persist is dropped for the
 * command, so GitHub never gets two Authorization headers, and the run's token is the one used.
 */
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit, fetchRef, push } from '../../src/github/git.js';
import { createOriginRepo, startGitHubServer } from '../../testkit/github-server/index.js';
import type { GitHubServer, OriginRepo } from '../../testkit/github-server/index.js';

const TOKEN = 'ghs_fetchToken0123456789';

let origin: OriginRepo | undefined;
let github: GitHubServer | undefined;
afterEach(async () => {
  await github?.close();
  await origin?.cleanup();
});

/** The origin served over HTTP (contents: write), the checkout's remote pointing there. */
async function httpOrigin() {
  origin = await createOriginRepo({
    files: { 'a.txt': 'a\n' },
    branches: { feature: { 'b.txt': 'b\n' } },
  });
  github = await startGitHubServer({
    token: TOKEN,
    tokenPermissions: { contents: 'write' },
    seed: { repos: [{ owner: 'octo', name: 'app', origin: origin.bare }] },
  });
  await origin.git(['remote', 'set-url', 'origin', `${github.url}/octo/app.git`]);
  return { git: createGit(origin.checkout), serverUrl: github.url };
}

function persistHeader(token: string): Promise<string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return origin!.git([
    'config',
    `http.${github!.url}/.extraheader`,
    `AUTHORIZATION: basic ${basic}`,
  ]);
}

describe('fetchRef', () => {
  it('fetches with the token from a checkout that persisted none', async () => {
    const { git, serverUrl } = await httpOrigin();
    const branches = await origin!.branches();
    await fetchRef(git, { ref: 'refs/heads/feature', token: TOKEN, serverUrl });
    expect((await git.run(['rev-parse', 'FETCH_HEAD'])).trim()).toBe(branches.feature);
  });

  it('fails without a token, as a private repository does', async () => {
    const { git, serverUrl } = await httpOrigin();
    await expect(fetchRef(git, { ref: 'refs/heads/feature', serverUrl })).rejects.toThrow(
      /git fetch --no-tags origin refs\/heads\/feature failed/,
    );
  });

  it('sends its own token, not a stale one the checkout persisted', async () => {
    const { git, serverUrl } = await httpOrigin();
    await persistHeader('ghs_expired_checkout_token');
    await fetchRef(git, { ref: 'refs/heads/feature', token: TOKEN, serverUrl });
    const fetches = github!.requests.filter((request) => request.path.endsWith('.git/info/refs'));
    expect(fetches.map((request) => request.status)).toEqual([200]);
    // The persisted entry is the checkout's and stays; only the command ignored it.
    expect(await origin!.git(['config', '--get-all', `http.${serverUrl}/.extraheader`])).toMatch(
      /^AUTHORIZATION: basic /,
    );
  });
});

describe('push over HTTP', () => {
  it('pushes with the token, whatever the checkout persisted', async () => {
    const { git, serverUrl } = await httpOrigin();
    await persistHeader('ghs_expired_checkout_token');
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
      { cwd: origin!.checkout },
    );
    await push(git, { branch: 'ci-agent/issue-1', token: TOKEN, serverUrl });
    const head = (await git.run(['rev-parse', 'HEAD'])).trim();
    expect((await origin!.branches())['ci-agent/issue-1']).toBe(head);
  });
});
