import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherEnvironment } from '../../src/agent/system-prompt.js';
import { prefetchGitOutput, takePrefetchedGitOutput } from '../../src/github/prefetch.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => workspace?.cleanup());

function git(root: string, ...args: string[]) {
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: root });
}

describe('the git state prefetched by the entry', () => {
  it('is the state of the checkout when it was started, handed out once, for its directory only', async () => {
    workspace = makeWorkspace();
    await workspace.write('a.txt', 'a\n');
    git(workspace.root, 'init', '-q', '-b', 'main');
    git(workspace.root, 'add', '-A');
    git(workspace.root, 'commit', '-qm', 'first commit');
    prefetchGitOutput(workspace.root);

    expect(takePrefetchedGitOutput(`${workspace.root}/elsewhere`)).toBeUndefined();
    const output = takePrefetchedGitOutput(workspace.root);
    expect(output).toBeDefined();
    expect(takePrefetchedGitOutput(workspace.root)).toBeUndefined();

    const environment = await gatherEnvironment(workspace.root, new Date(), output);
    expect(environment.git).toMatchObject({ branch: 'main', status: '' });
    expect(environment.git?.recentCommits).toMatch(/^[0-9a-f]{7,} first commit$/);
  });

  it('reads as no repository outside one, without rejecting', async () => {
    workspace = makeWorkspace();
    prefetchGitOutput(workspace.root);
    const output = await takePrefetchedGitOutput(workspace.root);
    expect(output).toEqual({ status: undefined, log: undefined });
    const environment = await gatherEnvironment(
      workspace.root,
      new Date(),
      Promise.resolve(output!),
    );
    expect(environment.git).toBeUndefined();
  });
});
