import { execaSync } from 'execa';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
  readlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAll, createGit } from '../../src/github/git.js';
import { removeGitlinkTraps, snapshotGitlinks } from '../../src/github/gitlink-traps.js';
import { removeInWorkspace } from '../../src/github/nested-repos.js';

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
const commit = (cwd: string, message: string) =>
  sh(
    cwd,
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@t',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    message,
  );

/** A checkout with one commit, and the file a trap writes to when it runs. */
function checkout() {
  const top = temp('ci-agent-gitlinks-');
  sh(top, 'init', '-q', '-b', 'main');
  writeFileSync(join(top, 'a.txt'), 'a\n');
  sh(top, 'add', '-A');
  commit(top, 'initial');
  const canary = join(temp('ci-agent-canary-'), 'ran');
  return { top, canary };
}

/** A checkout whose commit has a submodule at lib (no fsmonitor in it), checked out. */
function checkoutWithSubmodule() {
  const { top, canary } = checkout();
  const upstream = temp('ci-agent-upstream-');
  trapRepository(upstream, join(temp('ci-agent-unused-'), 'never'));
  sh(upstream, 'config', '--unset', 'core.fsmonitor');
  sh(top, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'lib');
  commit(top, 'with lib');
  return { top, canary };
}

/** A repository of the agent's at `dir`, whose fsmonitor writes the canary: its HEAD commit. */
function trapRepository(dir: string, canary: string): string {
  mkdirSync(dir, { recursive: true });
  sh(dir, 'init', '-q');
  writeFileSync(join(dir, 'x.txt'), 'x\n');
  sh(dir, 'add', 'x.txt');
  commit(dir, 'x');
  sh(dir, 'config', 'core.fsmonitor', `sh -c 'echo fsmonitor >> "${canary}"; exit 1'`);
  return sh(dir, 'rev-parse', 'HEAD');
}

/** What a later step of the workflow runs: plain git, configured as the checkout is. */
function laterStatus(top: string, canary: string): string {
  rmSync(canary, { force: true });
  execaSync('git', ['status', '--porcelain'], { cwd: top });
  return existsSync(canary) ? readFileSync(canary, 'utf8') : '';
}

describe('the gitlinks of a checkout, after the agent', () => {
  it('takes out a gitlink the agent staged beside a repository of its own, and its .git', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    // The agent, from a script in the sandbox: a repository, staged as a gitlink.
    const head = trapRepository(join(top, 'vendor', 'evil'), canary);
    sh(top, 'update-index', '--add', '--cacheinfo', `160000,${head},vendor/evil`);
    expect(laterStatus(top, canary)).toContain('fsmonitor');

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['vendor/evil (a gitlink the agent added)']);
    expect(sh(top, 'ls-files', '--stage')).not.toContain('160000');
    expect(existsSync(join(top, 'vendor', 'evil', '.git'))).toBe(false);
    // The agent's files stay; only the repository that made git run programs goes.
    expect(readFileSync(join(top, 'vendor', 'evil', 'x.txt'), 'utf8')).toBe('x\n');
    expect(laterStatus(top, canary)).toBe('');
    // And git add -A in a later step makes nothing of it either.
    sh(top, 'add', '-A');
    expect(laterStatus(top, canary)).toBe('');
  });

  it('removes a .git the agent put in a submodule the checkout did not initialise', async () => {
    const { top, canary } = checkout();
    // The repository's own submodule, checked out without `submodules: true`: an empty folder.
    const upstream = temp('ci-agent-upstream-');
    const head = trapRepository(upstream, join(temp('ci-agent-unused-'), 'never'));
    sh(top, 'update-index', '--add', '--cacheinfo', `160000,${head},lib`);
    writeFileSync(join(top, '.gitmodules'), '[submodule "lib"]\n\tpath = lib\n\turl = ../up\n');
    sh(top, 'add', '.gitmodules');
    commit(top, 'with lib');
    mkdirSync(join(top, 'lib'));
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    expect(laterStatus(top, canary)).toBe('');
    // The agent moves a repository of its own in: git now takes lib for a checked-out submodule.
    const planted = temp('ci-agent-planted-');
    trapRepository(planted, canary);
    renameSync(join(planted, '.git'), join(top, 'lib', '.git'));
    expect(laterStatus(top, canary)).toContain('fsmonitor');

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['lib/.git']);
    expect(sh(top, 'ls-files', '--stage', 'lib')).toContain(head);
    expect(laterStatus(top, canary)).toBe('');
  });

  it('leaves alone the submodules that were there, and says nothing', async () => {
    const { top, canary } = checkoutWithSubmodule();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    writeFileSync(join(top, 'a.txt'), 'changed\n');

    expect(await removeGitlinkTraps(git, snapshot)).toEqual([]);
    expect(readFileSync(join(top, 'lib', '.git'), 'utf8')).toMatch(/^gitdir: /);
    expect(sh(top, 'ls-files', '--stage', 'lib')).toContain('160000');
    expect(laterStatus(top, canary)).toBe('');
  });

  it('removes nothing through a link the agent made on the way', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    // A repository outside the checkout (the runner's home, say), reached through a link.
    const outside = temp('ci-agent-outside-');
    const head = trapRepository(join(outside, 'tool'), canary);
    // git refuses a path beyond a link in the index; a script writes the index entry anyway.
    sh(top, 'update-index', '--add', '--cacheinfo', `160000,${head},real/tool`);
    rmSync(join(top, 'real'), { recursive: true, force: true });
    symlinkSync(outside, join(top, 'real'));

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['real/tool (a gitlink the agent added)']);
    expect(sh(top, 'ls-files', '--stage')).not.toContain('160000');
    expect(existsSync(join(outside, 'tool', '.git', 'HEAD'))).toBe(true);
  });
});

/** What an auto-commit step after the action runs: `git add -A` (with `-f`: ignored too), then status. */
function laterAddAndStatus(top: string, canary: string, force = false): string {
  execaSync('git', ['add', '-A', ...(force ? ['-f'] : [])], { cwd: top });
  return laterStatus(top, canary);
}

describe('the repositories in the worktree, after the agent', () => {
  it('removes the .git of a repository the agent made, and keeps its files', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    trapRepository(join(top, 'evil'), canary);

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['evil/.git (not there before the agent ran)']);
    expect(existsSync(join(top, 'evil', '.git'))).toBe(false);
    expect(readFileSync(join(top, 'evil', 'x.txt'), 'utf8')).toBe('x\n');
    expect(laterAddAndStatus(top, canary)).toBe('');
    expect(sh(top, 'ls-files', '--stage')).not.toContain('160000');
  });

  it('removes a .git file that sends git to a repository elsewhere, and not that repository', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    const elsewhere = temp('ci-agent-elsewhere-');
    trapRepository(elsewhere, canary);
    mkdirSync(join(top, 'pointer'));
    writeFileSync(join(top, 'pointer', 'y.txt'), 'y\n');
    writeFileSync(join(top, 'pointer', '.git'), `gitdir: ${join(elsewhere, '.git')}\n`);

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['pointer/.git (not there before the agent ran)']);
    expect(existsSync(join(top, 'pointer', '.git'))).toBe(false);
    expect(existsSync(join(top, 'pointer', 'y.txt'))).toBe(true);
    expect(existsSync(join(elsewhere, '.git', 'HEAD'))).toBe(true);
    expect(laterAddAndStatus(top, canary)).toBe('');
  });

  it('removes a repository deep down, and one in a folder that cannot be listed', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    trapRepository(join(top, 'a', 'b', 'c'), canary);
    trapRepository(join(top, 'hidden', 'evil'), canary);
    chmodSync(join(top, 'hidden'), 0o000);

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual([
      'a/b/c/.git (not there before the agent ran)',
      'hidden/evil/.git (not there before the agent ran)',
    ]);
    expect(existsSync(join(top, 'a', 'b', 'c', 'x.txt'))).toBe(true);
    expect(existsSync(join(top, 'hidden', 'evil', 'x.txt'))).toBe(true);
    expect(laterAddAndStatus(top, canary)).toBe('');
  });

  it('removes a repository in an ignored folder', async () => {
    const { top, canary } = checkout();
    writeFileSync(join(top, '.gitignore'), 'build/\n');
    sh(top, 'add', '.gitignore');
    commit(top, 'ignore build');
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    trapRepository(join(top, 'build', 'cache'), canary);

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['build/cache/.git (not there before the agent ran)']);
    expect(existsSync(join(top, 'build', 'cache', 'x.txt'))).toBe(true);
    expect(laterAddAndStatus(top, canary, true)).toBe('');
  });

  it('removes a link named .git as a link, and never walks through a link', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    const outside = temp('ci-agent-outside-');
    trapRepository(join(outside, 'tool'), canary);
    mkdirSync(join(top, 'linked'));
    symlinkSync(join(outside, 'tool', '.git'), join(top, 'linked', '.git'));
    // A folder of the runner's, reached through a link: its repository is not the worktree's.
    symlinkSync(outside, join(top, 'runner'));

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['linked/.git (not there before the agent ran)']);
    expect(() => lstatSync(join(top, 'linked', '.git'))).toThrow();
    expect(readlinkSync(join(top, 'runner'))).toBe(outside);
    expect(existsSync(join(outside, 'tool', '.git', 'HEAD'))).toBe(true);
    expect(existsSync(join(outside, 'tool', '.git', 'config'))).toBe(true);
  });

  it('fails rather than name a .git removed when its folder became a link since the walk', async () => {
    const { top, canary } = checkout();
    const outside = temp('ci-agent-outside-');
    trapRepository(join(outside, 'tool'), canary);
    // The walk found tool/.git in the worktree; tool is a link to another repository now.
    symlinkSync(join(outside, 'tool'), join(top, 'tool'));

    await expect(removeInWorkspace(top, top, 'tool/.git')).rejects.toThrow(
      `ci-agent could not remove tool/.git from the workspace: its folder is no longer where the walk found it (it leads to ${join(outside, 'tool')})`,
    );
    expect(existsSync(join(outside, 'tool', '.git', 'HEAD'))).toBe(true);
  });

  it('keeps a repository that was there before the agent, unless its config or hooks changed', async () => {
    const { top, canary } = checkout();
    const unused = join(temp('ci-agent-unused-'), 'never');
    for (const name of ['kept', 'edited', 'hooked']) trapRepository(join(top, name), unused);
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    // Written in place, as a script would: the same file, its size and bytes another.
    const trap = `"sh -c 'echo fsmonitor >> ${canary}; exit 1'"`;
    appendFileSync(join(top, 'edited', '.git', 'config'), `[core]\n\tfsmonitor = ${trap}\n`);
    writeFileSync(join(top, 'hooked', '.git', 'hooks', 'post-index-change'), '#!/bin/sh\n');

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual([
      'edited/.git (not what it was before the agent ran)',
      'hooked/.git (not what it was before the agent ran)',
    ]);
    expect(existsSync(join(top, 'kept', '.git', 'HEAD'))).toBe(true);
    expect(existsSync(join(top, 'edited', '.git'))).toBe(false);
    expect(laterAddAndStatus(top, canary)).toBe('');
  });

  it('keeps the .git files of the submodules, and removes a repository made inside one', async () => {
    const { top, canary } = checkoutWithSubmodule();
    const git = createGit(top);
    const snapshot = await snapshotGitlinks(git, top);
    trapRepository(join(top, 'lib', 'inner'), canary);

    const removed = await removeGitlinkTraps(git, snapshot);

    expect(removed).toEqual(['lib/inner/.git (not there before the agent ran)']);
    expect(readFileSync(join(top, 'lib', '.git'), 'utf8')).toMatch(/^gitdir: /);
    expect(existsSync(join(top, 'lib', 'inner', 'x.txt'))).toBe(true);
    execaSync('git', ['add', '-A'], { cwd: join(top, 'lib') });
    expect(laterStatus(join(top, 'lib'), canary)).toBe('');
  });
});

describe('commitAll', () => {
  it('never commits a gitlink its own git add made of a repository in the worktree', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    trapRepository(join(top, 'nested'), canary);
    writeFileSync(join(top, 'a.txt'), 'b\n');
    // Untracked, a nested repository is not entered; a gitlink made of it would be.
    expect(laterStatus(top, canary)).toBe('');

    const sha = await commitAll(git, 'Fix #1');

    expect(sh(top, 'show', '--name-only', '--format=', sha ?? '')).toBe('a.txt');
    expect(sh(top, 'ls-tree', '-r', 'HEAD')).not.toContain('160000');
    expect(sh(top, 'ls-files', '--stage')).not.toContain('160000');
    expect(laterStatus(top, canary)).toBe('');
  });

  it('commits nothing when the only change is such a repository', async () => {
    const { top, canary } = checkout();
    const git = createGit(top);
    trapRepository(join(top, 'nested'), canary);

    expect(await commitAll(git, 'Fix #1')).toBeUndefined();
    expect(sh(top, 'ls-files', '--stage')).not.toContain('160000');
  });
});
