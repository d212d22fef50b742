import { execaSync } from 'execa';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GitControlReplaced,
  restoreGitControl,
  snapshotGitControl,
} from '../../src/github/git-control.js';
import { commitAll, createGit } from '../../src/github/git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-git-control-')));
  dirs.push(root);
  const workspace = join(root, 'checkout');
  const home = join(root, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  execaSync('git', ['init', '-q', '-b', 'main'], { cwd: workspace });
  const env = { HOME: home, PATH: process.env.PATH };
  return { root, workspace, home, env, config: join(workspace, '.git', 'config') };
}

describe('git control files', () => {
  it('puts back a changed repository config and removes a planted global config', async () => {
    const { workspace, home, env, config } = setup();
    const original = readFileSync(config, 'utf8');
    const snapshot = await snapshotGitControl(workspace, env);

    writeFileSync(config, `${original}[core]\n\tfsmonitor = touch /tmp/pwned\n`);
    writeFileSync(join(home, '.gitconfig'), '[filter "x"]\n\tclean = touch /tmp/pwned\n');
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    writeFileSync(join(home, '.config', 'git', 'config'), '[include]\n\tpath = /tmp/evil\n');

    expect(await restoreGitControl(snapshot)).toEqual([
      '.git/config',
      '~/.gitconfig',
      '~/.config/git/config',
    ]);
    expect(readFileSync(config, 'utf8')).toBe(original);
    expect(() => readFileSync(join(home, '.gitconfig'))).toThrow();
    expect(() => readFileSync(join(home, '.config', 'git', 'config'))).toThrow();
  });

  it('changes nothing and reports nothing when the agent left git alone', async () => {
    const { workspace, env, config, home } = setup();
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = runner\n');
    const snapshot = await snapshotGitControl(workspace, env);
    expect(await restoreGitControl(snapshot)).toEqual([]);
    expect(readFileSync(join(home, '.gitconfig'), 'utf8')).toBe('[user]\n\tname = runner\n');
    expect(readFileSync(config, 'utf8')).toContain('[core]');
  });

  it('replaces a symlink planted where the config was, instead of writing through it', async () => {
    const { root, workspace, env, config } = setup();
    const original = readFileSync(config, 'utf8');
    const snapshot = await snapshotGitControl(workspace, env);
    const elsewhere = join(root, 'elsewhere');
    writeFileSync(elsewhere, 'not git\n');
    rmSync(config);
    symlinkSync(elsewhere, config);

    expect(await restoreGitControl(snapshot)).toEqual(['.git/config']);
    expect(readFileSync(config, 'utf8')).toBe(original);
    expect(() => readlinkSync(config)).toThrow();
    expect(readFileSync(elsewhere, 'utf8')).toBe('not git\n');
  });

  it('keeps a dotfile that was a symlink a symlink, with its target restored', async () => {
    const { root, workspace, env, home } = setup();
    const dotfiles = join(root, 'dotfiles-gitconfig');
    writeFileSync(dotfiles, '[user]\n\tname = runner\n');
    symlinkSync(dotfiles, join(home, '.gitconfig'));
    const snapshot = await snapshotGitControl(workspace, env);
    writeFileSync(join(home, '.gitconfig'), '[core]\n\tsshCommand = evil\n');

    expect(await restoreGitControl(snapshot)).toEqual(['~/.gitconfig']);
    expect(readlinkSync(join(home, '.gitconfig'))).toBe(dotfiles);
    expect(readFileSync(dotfiles, 'utf8')).toBe('[user]\n\tname = runner\n');
  });

  it('follows a .git file to a worktree and guards the common config', async () => {
    const { root, workspace, env, config } = setup();
    execaSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x'],
      { cwd: workspace },
    );
    const worktree = join(root, 'worktree');
    execaSync('git', ['worktree', 'add', '-q', worktree], { cwd: workspace });
    const original = readFileSync(config, 'utf8');
    const snapshot = await snapshotGitControl(worktree, env);
    writeFileSync(config, `${original}[core]\n\thooksPath = /tmp/evil\n`);

    expect(await restoreGitControl(snapshot)).toEqual([config]);
    expect(readFileSync(config, 'utf8')).toBe(original);
  });

  it("removes a planted commondir, so that the action's git add runs no filter the agent named", async () => {
    // The agent copies the repository's insides to a folder of its own, gives it a config with
    // a filter driver, and points .git/commondir at it: git then reads that config as the
    // repository's, and `git add` runs the filter outside the sandbox.
    const { root, workspace, env } = setup();
    const git = (...args: string[]) =>
      execaSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: workspace });
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'x');
    const snapshot = await snapshotGitControl(workspace, env);
    const marker = join(root, 'pwned');
    const evil = join(workspace, '.git', 'evil');
    mkdirSync(evil);
    for (const name of ['objects', 'refs', 'HEAD']) {
      cpSync(join(workspace, '.git', name), join(evil, name), { recursive: true });
    }
    writeFileSync(
      join(evil, 'config'),
      `[core]\n\trepositoryformatversion = 0\n[filter "x"]\n\tclean = "touch ${marker}; cat"\n`,
    );
    writeFileSync(join(workspace, '.git', 'commondir'), 'evil\n');
    mkdirSync(join(workspace, '.git', 'info'), { recursive: true });
    writeFileSync(join(workspace, '.git', 'info', 'attributes'), '* filter=x\n');
    writeFileSync(join(workspace, '.gitattributes'), '* filter=x\n');
    writeFileSync(join(workspace, 'a.txt'), 'b\n');

    expect(await restoreGitControl(snapshot)).toEqual(['.git/info/attributes', '.git/commondir']);
    expect(existsSync(join(workspace, '.git', 'commondir'))).toBe(false);
    await commitAll(createGit(workspace, env), "the agent's work");
    expect(existsSync(marker)).toBe(false);
  });

  it('runs no git on a checkout whose .git the agent replaced with a gitdir file', async () => {
    const { workspace, env } = setup();
    const snapshot = await snapshotGitControl(workspace, env);
    cpSync(join(workspace, '.git'), join(workspace, '.evilgit'), { recursive: true });
    rmSync(join(workspace, '.git'), { recursive: true });
    writeFileSync(join(workspace, '.git'), 'gitdir: .evilgit\n');
    await expect(restoreGitControl(snapshot)).rejects.toBeInstanceOf(GitControlReplaced);
  });

  it('runs no git on a checkout whose .git the agent removed', async () => {
    const { workspace, env } = setup();
    const snapshot = await snapshotGitControl(workspace, env);
    rmSync(join(workspace, '.git'), { recursive: true });
    await expect(restoreGitControl(snapshot)).rejects.toThrow(/replaced .*\.git/);
  });
});
