import { execaSync } from 'execa';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BOT_IDENTITY,
  checkoutBranch,
  commitAll,
  isCiAgentCommit,
  createGit,
  diffSince,
  GitError,
  hasChanges,
  push,
} from '../../src/github/git.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

const sh = (cwd: string, ...args: string[]) => execaSync('git', args, { cwd }).stdout.trim();

/** A bare origin with one commit on main, and a clone of it (the runner's checkout). */
function originAndClone() {
  const origin = temp('ci-agent-origin-');
  sh(origin, 'init', '-q', '--bare', '-b', 'main');
  const clone = temp('ci-agent-clone-');
  sh(clone, 'init', '-q', '-b', 'main');
  writeFileSync(join(clone, 'a.txt'), 'one\ntwo\n');
  sh(clone, 'add', '-A');
  sh(clone, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'initial');
  sh(clone, 'remote', 'add', 'origin', origin);
  sh(clone, 'push', '-q', 'origin', 'main');
  return { origin, clone };
}

describe('commitAll', () => {
  it('commits every change, untracked files included, as the bot', async () => {
    const { clone } = originAndClone();
    const git = createGit(clone);
    await checkoutBranch(git, 'ci-agent/issue-7', 'main');
    writeFileSync(join(clone, 'a.txt'), 'one\n2\n');
    writeFileSync(join(clone, 'new.txt'), 'new\n');
    expect(await hasChanges(git)).toBe(true);
    const sha = await commitAll(git, 'Fix #7');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(sh(clone, 'log', '-1', '--format=%an <%ae>|%cn|%s')).toBe(
      `${BOT_IDENTITY.name} <${BOT_IDENTITY.email}>|${BOT_IDENTITY.name}|Fix #7`,
    );
    expect(sh(clone, 'log', '-1', '--format=%(trailers:key=Generated-by,valueonly)')).toBe(
      'ci-agent',
    );
    expect(isCiAgentCommit(sh(clone, 'log', '-1', '--format=%B'))).toBe(true);
    expect(sh(clone, 'branch', '--show-current')).toBe('ci-agent/issue-7');
    expect(await hasChanges(git)).toBe(false);
  });

  it("leaves the provider's credentials file out, and commits nothing when it is the only change", async () => {
    const { clone } = originAndClone();
    const git = createGit(clone);
    const creds = 'gha-creds-1a2b3c.json';
    writeFileSync(join(clone, creds), '{"type": "external_account"}\n');
    const exclude = { exclude: [creds] };
    expect(await commitAll(git, 'Nothing', undefined, exclude)).toBeUndefined();
    writeFileSync(join(clone, 'a.txt'), 'changed\n');
    expect(await commitAll(git, 'Fix #7', undefined, exclude)).toMatch(/^[0-9a-f]{40}$/);
    expect(sh(clone, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.txt');
    expect(sh(clone, 'status', '--porcelain')).toBe(`?? ${creds}`);
  });

  it("masks the run's secrets in the message: it is pushed, and it quotes an issue's title", async () => {
    const { clone } = originAndClone();
    const secret = 'ghs_commit_secret_0123456789';
    const git = createGit(clone, { ...process.env, 'INPUT_GITHUB-TOKEN': secret });
    writeFileSync(join(clone, 'a.txt'), 'changed\n');
    const reversed = [...secret].reverse().join('');
    await commitAll(git, `Fix #7: ${secret} and ${reversed}`);
    expect(sh(clone, 'log', '-1', '--format=%s')).toBe('Fix #7: *** and ***');
  });

  it("masks with the run's masker when given one, beyond the environment's secrets", async () => {
    const { clone } = originAndClone();
    const found = 'value-the-push-scan-found-0123';
    const git = createGit(clone, process.env, createSecretMasker([found]));
    writeFileSync(join(clone, 'a.txt'), 'changed\n');
    await commitAll(git, `Fix #7: ${found}`);
    expect(sh(clone, 'log', '-1', '--format=%s')).toBe('Fix #7: ***');
  });

  it('returns undefined and commits nothing when nothing changed', async () => {
    const { clone } = originAndClone();
    const head = sh(clone, 'rev-parse', 'HEAD');
    expect(await commitAll(createGit(clone), 'nothing')).toBeUndefined();
    expect(sh(clone, 'rev-parse', 'HEAD')).toBe(head);
  });
});

describe('push', () => {
  it('pushes the branch to origin', async () => {
    const { origin, clone } = originAndClone();
    const git = createGit(clone);
    await checkoutBranch(git, 'ci-agent/issue-7', 'main');
    writeFileSync(join(clone, 'a.txt'), 'changed\n');
    const sha = await commitAll(git, 'change');
    await push(git, { branch: 'ci-agent/issue-7', token: 'ghs_secret' });
    expect(sh(origin, 'rev-parse', 'refs/heads/ci-agent/issue-7')).toBe(sha);
    expect(sh(clone, 'config', '--list')).not.toContain('extraheader');
  });

  it('fails with a GitError when the push is rejected, and the commit stays', async () => {
    const { origin, clone } = originAndClone();
    const hook = join(origin, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "protected branch" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const git = createGit(clone);
    writeFileSync(join(clone, 'a.txt'), 'changed\n');
    const sha = await commitAll(git, 'change');
    const error = await push(git, { branch: 'main', token: 'ghs_secret' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toContain('protected branch');
    const basic = Buffer.from('x-access-token:ghs_secret').toString('base64');
    expect((error as GitError).message).not.toContain(basic);
    expect((error as GitError).args.join(' ')).not.toContain(basic);
    // The header is not an argument at all (git-push-auth.test.ts).
    expect((error as GitError).message).not.toMatch(/extraheader|AUTHORIZATION/i);
    expect(sh(clone, 'rev-parse', 'HEAD')).toBe(sha);
  });
});

describe('diffSince', () => {
  it('gives the patch and per-file line counts', async () => {
    const { clone } = originAndClone();
    const git = createGit(clone);
    const base = sh(clone, 'rev-parse', 'HEAD');
    writeFileSync(join(clone, 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(clone, 'b.txt'), 'b\n');
    await commitAll(git, 'edit');
    const { patch, files } = await diffSince(git, base, 'HEAD');
    expect(patch).toContain('-two\n+TWO\n+three\n');
    expect(files).toEqual([
      { path: 'a.txt', added: 2, removed: 1 },
      { path: 'b.txt', added: 1, removed: 0 },
    ]);
  });
});

describe('the git commands ci-agent runs itself', () => {
  it('run no hook the checkout names, and no external diff driver', async () => {
    const { clone } = originAndClone();
    const canary = join(temp('ci-agent-canary-'), 'ran');
    for (const hook of ['post-commit', 'post-checkout', 'pre-push', 'reference-transaction']) {
      writeFileSync(join(clone, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> "${canary}"\n`);
      chmodSync(join(clone, '.git', 'hooks', hook), 0o755);
    }
    sh(clone, 'config', 'diff.external', `sh -c 'echo diff >> "${canary}"'`);
    const git = createGit(clone);
    await checkoutBranch(git, 'ci-agent/issue-8', 'main');
    writeFileSync(join(clone, 'a.txt'), 'one\n2\n');
    const base = sh(clone, 'rev-parse', 'HEAD');
    await commitAll(git, 'Fix #8');
    const { patch } = await diffSince(git, base, 'HEAD');
    await push(git, { branch: 'ci-agent/issue-8' });

    expect(patch).toContain('+2');
    expect(() => execaSync('cat', [canary], { stdio: 'pipe' })).toThrow();
  });

  it('never enter a submodule, whose configuration the agent could have written', async () => {
    // What a steered agent can do from inside the sandbox: a repository of its own put in as a
    // submodule (a gitlink in the index, .gitmodules), its config naming a clean filter and an
    // fsmonitor, a file changed so that only its content tells (same size, old time).
    const { clone } = originAndClone();
    const canary = join(temp('ci-agent-canary-'), 'ran');
    const sub = join(clone, 'sub');
    execaSync('git', ['init', '-q', sub]);
    writeFileSync(join(sub, 'f.txt'), 'hi\n');
    sh(sub, 'add', 'f.txt');
    sh(sub, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'sub');
    const subHead = sh(sub, 'rev-parse', 'HEAD');
    sh(clone, 'update-index', '--add', '--cacheinfo', `160000,${subHead},sub`);
    writeFileSync(join(clone, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n');
    sh(clone, 'add', '.gitmodules');
    sh(clone, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'with sub');
    sh(sub, 'config', 'filter.trap.clean', `sh -c 'echo filter >> "${canary}"; cat'`);
    sh(sub, 'config', 'core.fsmonitor', `sh -c 'echo fsmonitor >> "${canary}"'`);
    writeFileSync(join(sub, '.gitattributes'), '* filter=trap\n');
    const stale = (path: string) => {
      writeFileSync(path, 'ho\n');
      execaSync('touch', ['-d', '2020-01-01', path]);
    };
    stale(join(sub, 'f.txt'));
    const ran = () => {
      try {
        return execaSync('cat', [canary]).stdout;
      } catch {
        return '';
      }
    };
    // The trap is live: plain git in the top repository, as a later step would run it, springs it.
    execaSync('git', ['status', '--porcelain'], { cwd: clone });
    expect(ran()).toContain('filter');
    rmSync(canary);
    stale(join(sub, 'f.txt'));

    const git = createGit(clone);
    writeFileSync(join(clone, 'a.txt'), 'one\n2\n');
    const base = sh(clone, 'rev-parse', 'HEAD');
    expect(await hasChanges(git)).toBe(true);
    const sha = await commitAll(git, 'Fix #9');
    const { patch } = await diffSince(git, base, 'HEAD');
    await diffSince(git, base);

    expect(ran()).toBe('');
    expect(patch).toContain('+2');
    // The top repository's change is committed; the submodule stays at its commit.
    expect(sh(clone, 'show', '--name-only', '--format=', sha ?? '')).toBe('a.txt');
    expect(sh(clone, 'ls-files', '--stage', 'sub')).toContain(subHead);
  });

  it('do not see the secrets of the environment they are started from', async () => {
    const { clone } = originAndClone();
    const git = createGit(clone, {
      ...process.env,
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      'INPUT_GITHUB-TOKEN': 'ghs_secret',
      CI_AGENT_VISIBLE: 'visible',
    });
    const env = await git.run(['-c', 'alias.env=!env', 'env']);
    expect(env).toContain('CI_AGENT_VISIBLE=visible');
    expect(env).not.toContain('sk-ant-secret');
    expect(env).not.toContain('ghs_secret');
  });
});
