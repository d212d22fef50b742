/**
 * The git directories of a checkout's submodules attacked from inside a real sandbox, as a test
 * command the agent wrote would: plant what the host's git runs later (a config that names a
 * program, a hook, a `.git` folder in place of a submodule's `.git` file), or move a git
 * directory aside and put one of its own in its place. Each is expected to fail, or to be undone
 * before the call's result, while the ordinary work in a submodule (status, a commit) goes on.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { EMPTY_SANDBOX_POLICY as EMPTY, runInSandbox as run } from '../helpers/sandbox-script.js';

const bwrap = existsSync('/usr/bin/bwrap');

describe.skipIf(!bwrap)('submodule git directories, attacked from inside the sandbox', () => {
  let root: string;
  let workspace: string;
  let sandbox: Sandbox;
  const file = (path: string) => join(workspace, path);
  const read = (path: string) => readFileSync(file(path), 'utf8');
  /** Each as it was before the sandbox started. */
  const before = new Map<string, string>();
  const held = [
    '.git/modules/lib/config',
    '.git/modules/lib/modules/inner/config',
    '.git/modules/lib/hooks/pre-commit.sample',
    'lib/.git',
  ];

  beforeAll(async () => {
    // Outside /tmp: the sandbox has a /tmp of its own.
    root = mkdtempSync('/var/tmp/ci-agent-submodules-');
    workspace = join(root, 'repo');
    const env = { HOME: join(root, 'home'), PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (cwd: string, ...args: string[]) =>
      execa(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@x', '-c', 'protocol.file.allow=always', ...args],
        { cwd, env, extendEnv: false },
      );
    for (const name of ['inner', 'lib', 'repo']) {
      mkdirSync(join(root, name));
      await git(join(root, name), 'init', '-q', '-b', 'main');
      writeFileSync(join(root, name, `${name}.txt`), `${name}\n`);
      if (name !== 'inner') {
        const sub = name === 'lib' ? 'inner' : 'lib';
        await git(join(root, name), 'submodule', 'add', '-q', join(root, sub), sub);
      }
      await git(join(root, name), 'add', '-A');
      await git(join(root, name), 'commit', '-q', '-m', name);
    }
    await git(workspace, 'submodule', 'update', '-q', '--init', '--recursive');
    for (const path of held) before.set(path, read(path));
    sandbox = await startSandbox({
      workspaceRoots: [workspace],
      home: join(root, 'home'),
      env: { PATH: process.env.PATH },
      policy: EMPTY,
      judges: [],
    });
  }, 60_000);

  afterAll(async () => {
    await sandbox?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.each([
    ['.git/modules/lib/config', '[core]\n\tfsmonitor = touch /var/tmp/pwned'],
    ['.git/modules/lib/modules/inner/config', '[core]\n\tfsmonitor = touch /var/tmp/pwned'],
    ['.git/modules/lib/hooks/post-checkout', '#!/bin/sh\ntouch /var/tmp/pwned'],
    ['.git/modules/lib/hooks/pre-commit.sample', 'evil'],
    ['lib/.git', 'gitdir: ../evil'],
  ])('cannot write %s', async (path, text) => {
    const { output } = await run(
      sandbox,
      workspace,
      `printf '%s\\n' '${text}' >> '${path}' 2>&1 || echo REFUSED`,
    );
    expect(output).toMatch(/Read-only file system/);
    expect(output).toContain('REFUSED');
    expect(existsSync(file('.git/modules/lib/hooks/post-checkout'))).toBe(false);
  });

  it.each([
    ['.git/modules/lib', '.git/modules/lib2'],
    ['.git/modules', '.git/modules2'],
    ['.git/modules/lib/hooks', '.git/modules/lib/hooks2'],
    ['lib/.git', 'lib/.git2'],
    ['lib', 'lib2'],
  ])('cannot move %s aside (it is a mount point)', async (from, to) => {
    const { output } = await run(
      sandbox,
      workspace,
      `mv '${from}' '${to}' 2>&1 || echo REFUSED; rmdir '${from}' 2>/dev/null || echo KEPT`,
    );
    expect(output).toMatch(/Device or resource busy|Read-only file system/);
    expect(output).toContain('REFUSED');
    expect(output).toContain('KEPT');
    expect(existsSync(file(to))).toBe(false);
  });

  it.each([
    '.git/modules/lib/commondir',
    '.git/modules/lib/config.worktree',
    '.git/modules/lib/info/attributes',
    '.git/modules/lib/modules/inner/commondir',
  ])('removes %s, created where there was none, once the command ends', async (path) => {
    const { output, undone } = await run(
      sandbox,
      workspace,
      `mkdir -p "$(dirname '${path}')" && echo evil > '${path}' && echo CREATED`,
    );
    expect(output).toContain('CREATED');
    expect(undone).toEqual([path]);
    expect(existsSync(file(path))).toBe(false);
  });

  it('leaves every held file as it was after the attacks', () => {
    for (const [path, text] of before) expect(read(path)).toBe(text);
  });

  it('still lets the agent work in a submodule: status, a commit', async () => {
    const { output, undone } = await run(
      sandbox,
      workspace,
      [
        'git submodule foreach --quiet --recursive git status --short',
        'echo more >> lib/lib.txt',
        'git -C lib -c user.name=t -c user.email=t@x commit -qam work && echo COMMITTED',
      ].join(' && '),
    );
    expect(output).toContain('COMMITTED');
    expect(undone).toEqual([]);
  });
});
