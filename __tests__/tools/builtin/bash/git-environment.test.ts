import { execaSync } from 'execa';
import { existsSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../../src/tools/builtin/bash.js';
import { mayRunGit, withGitPins } from '../../../../src/tools/builtin/bash/git-environment.js';
import { buildChildEnv } from '../../../../src/util/child-env.js';
import { makeContext, makeWorkspace, runTool } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

const GIT_IDENTITY = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];

describe('mayRunGit', () => {
  it.each([
    ['git status', true],
    ['env git status', true],
    ["g''it status", true],
    ['/usr/bin/git log', true],
    ['echo "$(git rev-parse HEAD)"', true],
    ["bash -c 'git status'", true],
    ['$CMD status', true],
    ['g$(printf i)t status', true],
    ['if true; then git status; fi', true],
    ['npm test', false],
    ['ls -la && cat a.txt', false],
    ['sh suite.sh', false],
  ])('%j → %s', (command, expected) => {
    expect(mayRunGit(command)).toBe(expected);
  });
});

describe('withGitPins', () => {
  it('adds fsmonitor, bare-repository, pager and optional-lock pins', () => {
    expect(withGitPins({ PATH: '/bin' }, 'git status')).toEqual({
      PATH: '/bin',
      GIT_PAGER: 'cat',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: 'false',
      GIT_CONFIG_KEY_1: 'safe.bareRepository',
      GIT_CONFIG_VALUE_1: 'explicit',
    });
  });

  it('puts its entries after those the environment has, so that they win', () => {
    const env = withGitPins(
      { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: './run-me' },
      'git status',
    );
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: './run-me',
      GIT_CONFIG_KEY_1: 'core.fsmonitor',
      GIT_CONFIG_VALUE_1: 'false',
    });
  });

  it('starts over when the count it is given is not a number', () => {
    expect(withGitPins({ GIT_CONFIG_COUNT: 'x' }, 'git log').GIT_CONFIG_COUNT).toBe('2');
  });

  it('leaves the bare-repository pin out of a command that cannot run git itself', () => {
    expect(withGitPins({}, 'npm test')).toEqual({
      GIT_PAGER: 'cat',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: 'false',
    });
  });

  describe('with real git and a planted trap', () => {
    let workspace: Workspace;
    let marker: string;

    beforeEach(() => {
      workspace = makeWorkspace('ci-agent-git-pins-');
      marker = workspace.path('pwned');
      execaSync('git', ['init', '-q', workspace.root]);
    });
    afterEach(() => workspace.cleanup());

    /** A program that leaves the marker: what a trap would run. */
    const trap = () => `touch '${marker}'; false`;
    const git = (cwd: string, args: string[], env: Record<string, string>) =>
      execaSync('git', args, { cwd, env, extendEnv: false, reject: false });
    const plainEnv = () => buildChildEnv(process.env);

    /** The red-team layout: a git dir with bare = false and worktree = .. in the repository. */
    const plantFakeGitDir = () => {
      mkdirSync(workspace.path('tools/objects'), { recursive: true });
      mkdirSync(workspace.path('tools/refs'));
      writeFileSync(workspace.path('tools/HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(
        workspace.path('tools/config'),
        `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "${trap()}"\n`,
      );
      return workspace.path('tools');
    };

    it('keeps git from using a directory laid out as a git dir', () => {
      const tools = plantFakeGitDir();
      // The trap is real: unpinned, git status runs it.
      git(tools, ['status'], plainEnv());
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      const pinned = git(tools, ['status'], withGitPins(plainEnv(), 'git status'));
      expect(pinned.stderr).toContain('cannot use bare repository');
      expect(existsSync(marker)).toBe(false);
    });

    it('overrides core.fsmonitor in a repository config and in a file it includes', () => {
      writeFileSync(workspace.path('evil.cfg'), `[core]\n\tfsmonitor = "${trap()}"\n`);
      execaSync('git', ['config', 'include.path', workspace.path('evil.cfg')], {
        cwd: workspace.root,
      });
      git(workspace.root, ['status'], plainEnv());
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      const pinned = git(workspace.root, ['status'], withGitPins(plainEnv(), 'git status'));
      expect(pinned.exitCode).toBe(0);
      expect(existsSync(marker)).toBe(false);
    });

    it('keeps a pager named by the repository from running, even on a terminal', () => {
      writeFileSync(workspace.path('a.txt'), 'a\n');
      execaSync('git', ['add', 'a.txt'], { cwd: workspace.root });
      execaSync('git', [...GIT_IDENTITY, 'commit', '-qm', 'init'], { cwd: workspace.root });
      execaSync('git', ['config', 'pager.log', trap()], { cwd: workspace.root });
      execaSync('git', ['config', 'core.pager', trap()], { cwd: workspace.root });
      // script(1) gives git a terminal, the only place it starts a pager.
      const onTerminal = (env: Record<string, string>) =>
        execaSync('script', ['-qec', 'git log -1', '/dev/null'], {
          cwd: workspace.root,
          env,
          extendEnv: false,
          reject: false,
        });
      onTerminal(plainEnv());
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      onTerminal(withGitPins(plainEnv(), 'git status'));
      expect(existsSync(marker)).toBe(false);
    });

    it('keeps a read-only git status from rewriting the index', () => {
      writeFileSync(workspace.path('a.txt'), 'a\n');
      execaSync('git', ['add', 'a.txt'], { cwd: workspace.root });
      execaSync('git', [...GIT_IDENTITY, 'commit', '-qm', 'init'], { cwd: workspace.root });
      const index = workspace.path('.git/index');
      const stale = () => {
        // A new mtime on the file makes the index's stat data stale: status refreshes it.
        utimesSync(workspace.path('a.txt'), new Date(), new Date(Date.now() + 5_000));
        utimesSync(index, new Date(0), new Date(0));
      };
      stale();
      git(workspace.root, ['status'], plainEnv());
      expect(statSync(index).mtimeMs).not.toBe(0);
      stale();
      git(workspace.root, ['status'], withGitPins(plainEnv(), 'git status'));
      expect(statSync(index).mtimeMs).toBe(0);
    });

    it('lets a test suite that does not name git use a bare fixture by its cwd', async () => {
      execaSync('git', ['init', '-q', '--bare', workspace.path('origin.git')]);
      writeFileSync(
        workspace.path('suite.sh'),
        'cd origin.git && git rev-parse --is-bare-repository\n',
      );
      const context = makeContext(workspace);
      const run = await runTool(bashTool, { command: 'sh suite.sh' }, context);
      expect(run.text).not.toContain('cannot use bare repository');
      expect(run.text).toContain('true');
    });

    it('is what the Bash tool runs every command with', async () => {
      const tools = plantFakeGitDir();
      const context = makeContext(workspace, { shell: { cwd: tools } });
      const run = await runTool(bashTool, { command: 'git status; git var GIT_PAGER' }, context);
      expect(run.text).toContain('cannot use bare repository');
      expect(run.text).toContain('cat');
      expect(existsSync(marker)).toBe(false);
    });
  });
});
