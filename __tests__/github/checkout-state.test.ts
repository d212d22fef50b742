import { execaSync } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import {
  onBranch,
  readCheckoutState,
  startEarly,
  worksOnHead,
} from '../../src/github/checkout-state.js';
import type { Task } from '../../src/github/task.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => workspace?.cleanup());

function git(root: string, ...args: string[]): string {
  return execaSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], {
    cwd: root,
    stripFinalNewline: false,
  }).stdout;
}

async function repository(files: Record<string, string>): Promise<Workspace> {
  workspace = makeWorkspace('ci-agent-checkout-');
  for (const [path, content] of Object.entries(files)) await workspace.write(path, content);
  git(workspace.root, 'init', '-q', '-b', 'main');
  git(workspace.root, 'add', '-A');
  git(workspace.root, 'commit', '-qm', 'first');
  return workspace;
}

describe('readCheckoutState', () => {
  it('reads the repository state, its HEAD as the base, and the policy', async () => {
    const repo = await repository({
      '.github/ci-agent.yml': 'permissions:\n  allow:\n    - Bash(npm test:*)\n',
    });
    const state = await readCheckoutState(repo.root, '.github/ci-agent.yml');
    expect(state.baseSha).toBe(git(repo.root, 'rev-parse', 'HEAD').trim());
    expect(state.environment.git?.branch).toBe('main');
    expect(state.policy.permissions.allow.map((rule) => rule.text)).toEqual(['Bash(npm test:*)']);
  });

  it('fails clearly outside a git checkout', async () => {
    workspace = makeWorkspace('ci-agent-checkout-');
    await expect(readCheckoutState(workspace.root, '.github/ci-agent.yml')).rejects.toThrow(
      `the workspace ${workspace.root} is not a git checkout with a commit`,
    );
  });

  it('leaves the index alone, so a checkout may run right after', async () => {
    const repo = await repository({ 'a.txt': 'a\n' });
    await repo.write('a.txt', 'changed\n');
    await readCheckoutState(repo.root, '.github/ci-agent.yml');
    git(repo.root, 'checkout', '-q', '-B', 'ci-agent/issue-1', 'HEAD');
    expect(git(repo.root, 'status', '--short')).toBe(' M a.txt\n');
  });
});

describe('worksOnHead', () => {
  it.each([
    [{ kind: 'issue' }, true],
    [{ kind: 'prompt', baseRef: undefined }, true],
    [{ kind: 'prompt', baseRef: 'main' }, false],
    [{ kind: 'comment-command', isPullRequest: false }, true],
    [{ kind: 'comment-command', isPullRequest: true }, false],
    [{ kind: 'pr-tests' }, false],
    [{ kind: 'pr-fix-failed-run' }, false],
  ])('%o → %s', (task, expected) => {
    expect(worksOnHead(task as Task)).toBe(expected);
  });
});

describe('onBranch', () => {
  it('names the branch the run created, keeping the rest as read', async () => {
    const repo = await repository({ 'a.txt': 'a\n' });
    const state = await readCheckoutState(repo.root, '.github/ci-agent.yml');
    const moved = onBranch(state, 'ci-agent/issue-1');
    expect(moved.environment.git?.branch).toBe('ci-agent/issue-1');
    expect(moved.environment.git?.recentCommits).toBe(state.environment.git?.recentCommits);
    expect(moved.baseSha).toBe(state.baseSha);
    expect(onBranch(state, undefined)).toBe(state);
  });
});

describe('startEarly', () => {
  it('hands back the value when waited for', async () => {
    const wait = startEarly(Promise.resolve(42));
    expect(await wait()).toBe(42);
  });

  it('raises a failure only when waited for, never as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const wait = startEarly(Promise.reject(new Error('bad policy')));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      await expect(wait()).rejects.toThrow('bad policy');
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
