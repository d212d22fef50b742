import { execaSync } from 'execa';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
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

  it('puts back a config the agent replaced with a FIFO, without waiting for a writer', async () => {
    const { workspace, env, config } = setup();
    const original = readFileSync(config, 'utf8');
    const snapshot = await snapshotGitControl(workspace, env);
    rmSync(config);
    execaSync('mkfifo', [config]);

    expect(await restoreGitControl(snapshot)).toEqual(['.git/config']);
    expect(readFileSync(config, 'utf8')).toBe(original);
  }, 5_000);

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

describe('git control files, when the checkout has submodules', () => {
  /**
   * A checkout as `actions/checkout` with `submodules: recursive` leaves it: `lib` a submodule,
   * `lib/inner` one of its own, their git directories in `.git/modules/lib` and
   * `.git/modules/lib/modules/inner`. Everything runs with a home of the test's own.
   */
  function withSubmodules() {
    const { root, workspace, home } = setup();
    const env = { HOME: home, PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (cwd: string, ...args: string[]) =>
      execaSync(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args],
        { cwd, env, extendEnv: false },
      ).stdout;
    for (const name of ['inner', 'lib']) {
      mkdirSync(join(root, name));
      git(join(root, name), 'init', '-q', '-b', 'main');
      writeFileSync(join(root, name, `${name}.txt`), `${name}\n`);
      if (name === 'lib')
        git(join(root, name), 'submodule', 'add', '-q', join(root, 'inner'), 'inner');
      git(join(root, name), 'add', '-A');
      git(join(root, name), 'commit', '-q', '-m', name);
    }
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    git(workspace, 'submodule', 'add', '-q', join(root, 'lib'), 'lib');
    git(workspace, 'submodule', 'update', '-q', '--init', '--recursive');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'with lib');
    const modules = join(workspace, '.git', 'modules');
    return {
      root,
      workspace,
      env,
      git,
      lib: join(modules, 'lib'),
      inner: join(modules, 'lib', 'modules', 'inner'),
    };
  }

  /** A shell command that leaves `<root>/fired-<name>` behind, and the file to look for. */
  function trap(root: string, name: string) {
    const marker = join(root, `fired-${name}`);
    return { marker, command: `touch '${marker}'` };
  }

  const fsmonitor = (command: string) => `[core]\n\tfsmonitor = "${command}; false"\n`;

  /** What the host's git does later, each command on its own: whatever fails, the next runs. */
  function hostGit(git: (cwd: string, ...args: string[]) => string, workspace: string) {
    for (const args of [
      ['-C', 'lib', 'status'],
      ['-C', 'lib', 'checkout', '-q', '--detach'],
      ['submodule', 'foreach', '--quiet', '--recursive', 'git status'],
      ['status'],
    ]) {
      try {
        git(workspace, ...args);
      } catch {
        // a repository left unusable runs nothing, which is what is being checked
      }
    }
  }

  it("puts back each submodule's config and hooks, so that the host's git runs none of the agent's", async () => {
    const { root, workspace, env, git, lib, inner } = withSubmodules();
    const snapshot = await snapshotGitControl(workspace, env);
    const libConfig = readFileSync(join(lib, 'config'), 'utf8');
    const innerConfig = readFileSync(join(inner, 'config'), 'utf8');

    const traps = {
      fsmonitor: trap(root, 'fsmonitor'),
      hook: trap(root, 'hook'),
      nested: trap(root, 'nested'),
    };
    // The agent's planting, as a test command could do it from inside the sandbox: in the
    // nested submodule through its per-worktree config, which includes a file of the agent's.
    writeFileSync(join(lib, 'config'), `${libConfig}${fsmonitor(traps.fsmonitor.command)}`);
    writeFileSync(join(lib, 'hooks', 'post-checkout'), `#!/bin/sh\n${traps.hook.command}\n`, {
      mode: 0o755,
    });
    writeFileSync(join(inner, 'config'), `${innerConfig}[extensions]\n\tworktreeConfig = true\n`);
    writeFileSync(join(root, 'evil.config'), fsmonitor(traps.nested.command));
    writeFileSync(
      join(inner, 'config.worktree'),
      `[include]\n\tpath = ${join(root, 'evil.config')}\n`,
    );

    // The control: each trap fires on the host's git as the agent left things.
    hostGit(git, workspace);
    for (const { marker } of Object.values(traps)) expect(existsSync(marker)).toBe(true);
    for (const { marker } of Object.values(traps)) rmSync(marker);
    writeFileSync(join(lib, 'config'), `${libConfig}${fsmonitor(traps.fsmonitor.command)}`);

    expect(await restoreGitControl(snapshot)).toEqual([
      '.git/modules/lib/config',
      '.git/modules/lib/modules/inner/config',
      '.git/modules/lib/modules/inner/config.worktree',
      '.git/modules/lib/hooks/post-checkout',
    ]);
    hostGit(git, workspace);
    for (const { marker } of Object.values(traps)) expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(lib, 'config'), 'utf8')).toBe(libConfig);
    expect(existsSync(join(inner, 'config.worktree'))).toBe(false);
  });

  it("puts back a submodule's .git file that the agent replaced with a repository of its own", async () => {
    const { root, workspace, env, git, lib } = withSubmodules();
    const pointer = join(workspace, 'lib', '.git');
    const before = readFileSync(pointer, 'utf8');
    const snapshot = await snapshotGitControl(workspace, env);
    const { marker, command } = trap(root, 'pointer');
    rmSync(pointer);
    cpSync(lib, pointer, { recursive: true });
    writeFileSync(join(pointer, 'config'), `[core]\n\tbare = false\n${fsmonitor(command)}`);

    hostGit(git, workspace);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    expect(await restoreGitControl(snapshot)).toEqual(['lib/.git']);
    expect(readFileSync(pointer, 'utf8')).toBe(before);
    hostGit(git, workspace);
    expect(existsSync(marker)).toBe(false);
  });

  it('removes a submodule git directory the agent made, which a later `submodule update --init` would take as it is', async () => {
    const { root, workspace, env, git, lib } = withSubmodules();
    const snapshot = await snapshotGitControl(workspace, env);
    const { marker, command } = trap(root, 'planted');
    // A second submodule, not checked out: the agent plants its git directory, hooks and all.
    git(workspace, 'submodule', 'add', '-q', join(root, 'inner'), 'other');
    git(workspace, 'commit', '-q', '-m', 'other');
    git(workspace, 'submodule', 'deinit', '-q', 'other');
    const modules = join(workspace, '.git', 'modules');
    writeFileSync(join(modules, 'other', 'hooks', 'post-checkout'), `#!/bin/sh\n${command}\n`, {
      mode: 0o755,
    });
    mkdirSync(join(modules, 'x', 'y'), { recursive: true });
    symlinkSync(lib, join(modules, 'x', 'y', 'z'));

    // The control, in a copy of the checkout: the later step's update runs the planted hook.
    const copy = join(root, 'copy');
    cpSync(workspace, copy, { recursive: true });
    git(copy, 'submodule', 'update', '-q', '--init', 'other');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    expect(await restoreGitControl(snapshot)).toEqual(['.git/modules/other', '.git/modules/x']);
    git(workspace, 'submodule', 'update', '-q', '--init', 'other');
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(workspace, 'other', 'inner.txt'), 'utf8')).toBe('inner\n');
  });

  it('points a link in .git/modules back where it led, when the agent pointed it at a git directory of its own', async () => {
    const { root, workspace, env, git, lib } = withSubmodules();
    // The checkout keeps lib's git directory elsewhere, behind a link (git follows it).
    const stored = join(root, 'stored-lib');
    renameSync(lib, stored);
    symlinkSync(stored, lib);
    const snapshot = await snapshotGitControl(workspace, env);
    const { marker, command } = trap(root, 'repointed');
    // The agent's: a copy of that git directory with an fsmonitor, and the link pointed at it.
    const planted = join(root, 'planted-lib');
    cpSync(stored, planted, { recursive: true });
    writeFileSync(
      join(planted, 'config'),
      `${readFileSync(join(stored, 'config'), 'utf8')}${fsmonitor(command)}`,
    );
    rmSync(lib);
    symlinkSync(planted, lib);

    hostGit(git, workspace);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    expect(await restoreGitControl(snapshot)).toEqual(['.git/modules/lib']);
    expect(readlinkSync(lib)).toBe(stored);
    hostGit(git, workspace);
    expect(existsSync(marker)).toBe(false);
  });

  it("gives a hook back its mode: the agent's chmod +x does not make it run", async () => {
    const { root, workspace, env, git, lib } = withSubmodules();
    const { marker, command } = trap(root, 'chmod');
    const hook = join(lib, 'hooks', 'post-checkout');
    // The project's own hook, switched off (git runs no hook that is not executable).
    writeFileSync(hook, `#!/bin/sh\n${command}\n`, { mode: 0o644 });
    chmodSync(hook, 0o644);
    const snapshot = await snapshotGitControl(workspace, env);
    chmodSync(hook, 0o755);
    // and hides the folder from a listing, which git does not need to run a hook by its name
    chmodSync(join(lib, 'hooks'), 0o311);

    hostGit(git, workspace);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    expect(await restoreGitControl(snapshot)).toEqual([
      '.git/modules/lib/hooks',
      '.git/modules/lib/hooks/post-checkout',
    ]);
    expect(statSync(hook).mode & 0o777).toBe(0o644);
    hostGit(git, workspace);
    expect(existsSync(marker)).toBe(false);
  });

  it("removes a hook planted in the top repository's .git/hooks, and a link in place of the folder", async () => {
    const { root, workspace, env, git } = withSubmodules();
    const hooks = join(workspace, '.git', 'hooks');
    const samples = readdirSync(hooks).sort();
    const snapshot = await snapshotGitControl(workspace, env);
    const { marker, command } = trap(root, 'top');
    writeFileSync(join(hooks, 'post-checkout'), `#!/bin/sh\n${command}\n`, { mode: 0o755 });

    git(workspace, 'checkout', '-q', '--detach');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    expect(await restoreGitControl(snapshot)).toEqual(['.git/hooks/post-checkout']);
    git(workspace, 'checkout', '-q', '--detach');
    expect(existsSync(marker)).toBe(false);

    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'post-checkout'), `#!/bin/sh\n${command}\n`, { mode: 0o755 });
    rmSync(hooks, { recursive: true });
    symlinkSync(elsewhere, hooks);
    expect(await restoreGitControl(snapshot)).toEqual(['.git/hooks']);
    expect(readdirSync(hooks).sort()).toEqual(samples);
    expect(readdirSync(elsewhere)).toEqual(['post-checkout']);
    git(workspace, 'checkout', '-q', '--detach');
    expect(existsSync(marker)).toBe(false);
  });

  it('changes nothing and reports nothing when the agent left the submodules alone', async () => {
    const { workspace, env, git } = withSubmodules();
    const snapshot = await snapshotGitControl(workspace, env);
    git(workspace, 'submodule', 'foreach', '--quiet', '--recursive', 'git status');
    git(join(workspace, 'lib'), 'checkout', '-q', '--detach');
    expect(await restoreGitControl(snapshot)).toEqual([]);
  });
});
