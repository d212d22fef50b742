import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coreWorktree, findGitDirs } from '../../src/util/git-dirs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git directory as far as the walk looks: a HEAD, a config, a hooks folder, logs/HEAD. */
function gitDir(path: string, config = '[core]\n\tbare = false\n') {
  mkdirSync(join(path, 'hooks'), { recursive: true });
  mkdirSync(join(path, 'logs'), { recursive: true });
  writeFileSync(join(path, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(path, 'logs', 'HEAD'), '');
  writeFileSync(join(path, 'config'), config);
}

describe('findGitDirs', () => {
  it('finds every submodule git directory, names with slashes and nested ones, and no other folder', () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-git-dirs-')));
    dirs.push(workspace);
    const git = join(workspace, '.git');
    gitDir(git);
    gitDir(join(git, 'modules', 'lib'), '[core]\n\tworktree = ../../../lib\n');
    gitDir(join(git, 'modules', 'libs', 'json'));
    gitDir(
      join(git, 'modules', 'lib', 'modules', 'inner'),
      '[core]\n\tworktree = ../../../../../lib/inner\n',
    );
    symlinkSync(join(workspace, 'elsewhere'), join(git, 'modules', 'linked'));

    const found = findGitDirs(workspace);
    expect(found.repository).toEqual([git]);
    expect(found.submodules).toEqual([
      join(git, 'modules', 'lib'),
      join(git, 'modules', 'lib', 'modules', 'inner'),
      join(git, 'modules', 'libs', 'json'),
    ]);
    expect(found.pointers).toEqual([
      join(workspace, 'lib', '.git'),
      join(workspace, 'lib', 'inner', '.git'),
    ]);
    expect(
      Object.fromEntries(
        [...found.modules].map(([path, kind]) => [path.slice(git.length + 1), kind]),
      ),
    ).toEqual({
      modules: 'folder',
      'modules/lib': 'git-dir',
      'modules/lib/modules': 'folder',
      'modules/lib/modules/inner': 'git-dir',
      'modules/libs': 'folder',
      'modules/libs/json': 'git-dir',
      // A link with where it leads: pointed elsewhere, it is a change (git-control.ts).
      'modules/linked': `link:${join(workspace, 'elsewhere')}`,
    });
  });
});

describe('coreWorktree', () => {
  it.each([
    ['[core]\n\tworktree = ../../../lib\n', '../../../lib'],
    ['[Core]\n\tWorkTree = "../a b" ; a comment\n', '../a b'],
    ['[core]\n\tworktree = ../x # said here\n', '../x'],
    ['[core] worktree = ../same-line\n', '../same-line'],
    ['[core]\n\tworktree = ../first\n[core]\n\tworktree = ../last\n', '../last'],
    ['[core "x"]\n\tworktree = ../no\n', undefined],
    ['[remote "origin"]\n\tworktree = ../no\n', undefined],
    ['[core]\n\tbare = false\n', undefined],
  ])('reads %j as %j', (config, expected) => {
    expect(coreWorktree(config)).toBe(expected);
  });
});
