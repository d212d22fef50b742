import { execaSync } from 'execa';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isReadOnlyCommand } from '../../../../src/tools/builtin/bash/read-only.js';
import { readScope } from '../../../../src/tools/builtin/bash/read-scope.js';
import { isInside } from '../../../../src/tools/paths.js';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

describe('readScope', () => {
  let workspace: Workspace;
  let outside: Workspace;
  let home: Workspace;

  beforeAll(() => {
    workspace = makeWorkspace('ci-agent-scope-');
    outside = makeWorkspace('ci-agent-scope-outside-');
    home = makeWorkspace('ci-agent-scope-home-');
    execaSync('git', ['init', '-q', workspace.root]);
    mkdirSync(workspace.path('src'));
    mkdirSync(workspace.path('sub'));
    for (const name of ['a.txt', 'src/a.ts', 'src/b.ts', 'sums.txt', 'list'])
      writeFileSync(workspace.path(name), 'x\n');
    writeFileSync(outside.path('secret.txt'), 'secret\n');
    // Repository content that points out: a link to a file, a link to a directory.
    symlinkSync(outside.path('secret.txt'), workspace.path('sub/secret-link'));
    symlinkSync(outside.root, workspace.path('out'));
    // A directory laid out as a git dir, as a fork's pull request can commit one.
    mkdirSync(workspace.path('tools/objects'), { recursive: true });
    mkdirSync(workspace.path('tools/refs'));
    writeFileSync(workspace.path('tools/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(workspace.path('tools/config'), '[core]\n\tfsmonitor = "touch pwned"\n');
  });
  afterAll(() => {
    for (const each of [workspace, outside, home]) each.cleanup();
  });

  const scope = (command: string, cwd = workspace.root, roots = [workspace.root]) =>
    readScope(command, { cwd, homeDir: home.root, env: {}, workspaceRoots: roots });
  /** What the mode default makes of it: every path inside a root and nothing unplaced. */
  const verdict = (command: string, cwd?: string, roots = [workspace.root]) => {
    const { paths, outside: unplaced } = scope(command, cwd, roots);
    const inside = paths.every((path) => roots.some((root) => isInside(path, root)));
    return inside && unplaced.length === 0 ? 'inside' : 'outside';
  };

  describe('when everything it reads is in the workspace', () => {
    it.each([
      'cat src/a.ts',
      'cat ./src/../a.txt',
      'ls',
      'ls -la src',
      'grep -r foo .',
      'grep -rn "/api/v1" src',
      'grep -e /etc/passwd a.txt',
      'head -n 5 a.txt',
      'cat < a.txt',
      'cat a.txt 2>/dev/null',
      'cat /dev/null',
      'cat a.txt - /dev/stdin',
      'cd src && cat a.ts',
      'cd sub && ls',
      'cd ..',
      'wc -l src/*.ts',
      'ls [[:lower:]]rc',
      'cat [ab].txt',
      'cat src/{a,b}.ts',
      'cut -d/ -f1 a.txt',
      "find . -name '*.ts' -type f",
      'diff a.txt src/a.ts',
      'sort -u a.txt',
      'echo /etc/passwd "$HOME"',
      'echo src/*.ts',
      'printf "%s\\n" ~/x',
      'test -f a.txt',
      'stat src',
      'rg --files src',
      'git status',
      'git log --oneline -n 5',
      'git diff HEAD~1 -- src',
      'git show HEAD:a.txt',
      'git grep -n foo',
      'pwd',
    ])('%j reads inside', (command) => {
      expect(isReadOnlyCommand(command)).toBe(true);
      expect(verdict(command, command === 'cd ..' ? workspace.path('src') : undefined)).toBe(
        'inside',
      );
    });
  });

  describe('when it can read outside, or what it reads cannot be placed', () => {
    it.each([
      // The examples.
      ['cat ~/.ssh/id_ed25519', 'a key in the home directory'],
      ['head /etc/passwd', 'a system file'],
      ['ls ~', 'the home directory'],
      ['cat /proc/$PPID/environ', "the parent's environment, through a variable"],
      // Run-time words.
      ['cat $F', 'a variable'],
      ['cat "$F"', 'a quoted variable'],
      ['cat ${F:-a.txt}', 'a parameter with a default'],
      ['cat "$HOME/.bashrc"', '$HOME'],
      ['cat ~root/.ssh/id_rsa', "another user's home"],
      ['cat src/{1..3}.ts', 'a brace sequence'],
      // Paths that climb out.
      ['cat ../secret.txt', 'a parent directory'],
      ['cat src/../../x', 'a climb through a subdirectory'],
      ['ls ..', 'the parent directory'],
      ['cat {a.txt,/etc/passwd}', 'a brace alternative'],
      ['cat {,.}./x', 'a brace that forms ..'],
      ['cat .*/x', 'a glob that can match ..'],
      ['cat src/*/../../../x', 'a glob followed by ..'],
      ['cat /e*/passwd', 'an absolute glob'],
      // The kernel.
      ['cat /proc/self/environ', 'a process environment'],
      ['cat /proc/1/cmdline', 'another process'],
      ['cat /sys/class/net/lo/address', 'system state'],
      ['head -c 16 /dev/urandom', 'a device'],
      ['cat < /proc/self/environ', 'a redirection from the kernel'],
      // Symbolic links the repository holds.
      ['cat sub/secret-link', 'a link to a file outside'],
      ['cat out/secret.txt', 'a file through a link to a directory outside'],
      ['cat */secret.txt', 'a glob through a link to a directory outside'],
      ['cat sub/*', 'a glob that matches a link outside'],
      ['ls out', 'a link to a directory outside'],
      ['cat [[:lower:]]ut/secret.txt', 'a bracket class that matches the link'],
      ['cat o[!x]t/secret.txt', 'a negated bracket that matches the link'],
      ["cat $'\\x2fetc/passwd'", 'ANSI-C quoting'],
      ['ls ~-', 'the previous directory, by tilde'],
      ['echo ~/.ssh/*', 'a glob listing the home directory'],
      ['printf "%s\\n" /etc/*', 'a glob listing a system directory'],
      ['grep o* a.txt', 'a glob in the pattern position that matches a link out'],
      ['cd out && cat secret.txt', 'cd through a link'],
      // Directories it moves to.
      ['cd /etc && cat passwd', 'cd to a system directory'],
      ['cd && ls', 'cd home'],
      ['cd ~ && ls', 'cd ~'],
      ['cd $D && ls', 'cd to a variable'],
      ['cd - && ls', 'cd to the previous directory'],
      // Option values that name files.
      ['grep -f /etc/passwd a.txt', 'grep patterns from a file'],
      ['grep --file=/etc/passwd a.txt', 'grep --file='],
      ['grep --fi=/etc/passwd a.txt', 'grep --file abbreviated'],
      ['grep -f/etc/passwd a.txt', 'grep -f attached'],
      ['sort --random-source=/etc/shadow a.txt', 'sort reading a random source'],
      ['date -f /etc/passwd', 'date reading dates from a file'],
      ['date -r/etc/group', 'date -r attached'],
      ['test -f ~/.ssh/id_rsa', 'test on a file outside'],
      ['stat /etc/shadow', 'stat outside'],
      ['realpath --relative-to=/etc a.txt', 'realpath outside'],
      ['git blame --contents /etc/passwd a.txt', 'git blame --contents'],
      ['git blame --cont=/etc/passwd a.txt', 'git blame --contents abbreviated'],
      ['git diff --no-index /etc/passwd a.txt', 'git diff of a file outside'],
      ['git diff /etc/passwd a.txt', 'git diff of a path outside the repository'],
      ['git grep -f/etc/passwd', 'git grep patterns from a file outside'],
      // Reads these words cannot show.
      ['grep -R foo .', 'a recursion that follows symbolic links'],
      ['grep --dereference-rec foo .', 'the same, abbreviated'],
      ['find -L . -name x', 'find following links'],
      ['find . -follow', 'find -follow'],
      ['rg -L foo', 'rg following links'],
      ['ls -RL', 'ls following links'],
      ['du -L .', 'du following links'],
      ['diff -r src sub', 'diff recursing (it follows links)'],
      ['sha256sum -c sums.txt', 'checksums of the files a list names'],
      ['wc --files0-from=list', 'names read from a file'],
      ['file -f list', 'file reading names from a file'],
      ['jq -n env', "jq's view of the environment"],
      ["jq -n '$ENV.PATH'", "jq's $ENV"],
      ['jq -n \'import "x" as $x; $x\'', 'a jq module'],
      ['jq -f prog.jq a.txt', 'a jq program from a file'],
    ])('%j counts as outside (%s)', (command) => {
      expect(isReadOnlyCommand(command)).toBe(true);
      expect(verdict(command)).toBe('outside');
    });
  });

  describe('when git would use another repository', () => {
    it('counts git in a directory laid out as a git dir as outside', () => {
      expect(verdict('git status', workspace.path('tools'))).toBe('outside');
      expect(scope('git status', workspace.path('tools')).outside).toEqual([
        `git in ${workspace.path('tools')} (a repository other than the workspace's)`,
      ]);
    });

    it('counts git below such a directory as outside', () => {
      mkdirSync(workspace.path('tools/refs/heads'), { recursive: true });
      expect(verdict('git log', workspace.path('tools/refs/heads'))).toBe('outside');
    });

    it('keeps git in a subdirectory of the workspace repository inside', () => {
      expect(verdict('git status', workspace.path('src'))).toBe('inside');
    });
  });

  describe('when a root covers the kernel', () => {
    it('still counts /proc, /sys and /dev as outside', () => {
      expect(verdict('cat /proc/self/environ', workspace.root, ['/'])).toBe('outside');
      expect(verdict('cat /sys/kernel/hostname', workspace.root, ['/'])).toBe('outside');
      expect(verdict(`cat ${outside.path('secret.txt')}`, workspace.root, ['/'])).toBe('inside');
    });
  });

  describe('when CDPATH is set', () => {
    it('cannot place a relative cd', () => {
      const { outside: unplaced } = readScope('cd src && ls', {
        cwd: workspace.root,
        homeDir: home.root,
        env: { CDPATH: '/etc' },
        workspaceRoots: [workspace.root],
      });
      expect(unplaced).toEqual(['cd src (through CDPATH)']);
    });
  });

  describe('when it names paths', () => {
    it('gives each as written and as resolved', () => {
      expect(scope('cat sub/secret-link').paths).toEqual([
        workspace.root,
        workspace.path('sub/secret-link'),
        outside.path('secret.txt'),
      ]);
    });
  });
});
