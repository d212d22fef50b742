/**
 * The submodules the agent could make git enter: a gitlink is an index entry that names a
 * folder as a repository of its own, and a plain `git status` (a later step's, not ci-agent's:
 * git.ts) runs `git status` in every one whose folder holds a `.git`, with that repository's
 * configuration, fsmonitor and clean filters included — programs the agent names, on the host.
 * From inside the sandbox the agent can
 * 1. stage a gitlink of its own (`git update-index --add --cacheinfo 160000,…`, from a script)
 *    beside a repository it made in the worktree, or
 * 2. put a `.git` of its own in the folder of a submodule the checkout did not initialise (an
 *    empty folder: the sandbox holds only the submodules that have a git directory).
 * git-control.ts puts back the git directories' files; this puts back the index's gitlinks and
 * what their folders were: a gitlink that was not in the index before the agent is taken out of
 * it, and its repository's `.git` removed; a `.git` that appeared in a submodule's folder is
 * removed. The agent's other files stay. `commitAll` (git.ts) never commits a gitlink the
 * commit's own `git add` made of a repository in the worktree.
 *
 * And what a later step's own `git add -A` would make a gitlink of: every other `.git` in the
 * worktree that was not there before the agent, or is not what it was, is removed last
 * (nested-repos.ts).
 */
import { lstat, realpath, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Git } from './git.js';
import { gitlinks, unstage } from './git.js';
import { findDotGits, removeNewDotGits, type DotGitState } from './nested-repos.js';

export interface GitlinkSnapshot {
  readonly workspace: string;
  /** Each gitlink in the index before the agent, and whether its folder held a `.git` then. */
  readonly gitlinks: ReadonlyMap<string, boolean>;
  /** Every `.git` below the top before the agent, a submodule's among them. */
  readonly nested: DotGitState;
}

/** The index's gitlinks and the worktree's `.git`s as they are now (before the agent runs). */
export async function snapshotGitlinks(git: Git, workspace: string): Promise<GitlinkSnapshot> {
  const paths = await gitlinks(git);
  const states = await Promise.all(paths.map((path) => hasDotGit(workspace, path)));
  return {
    workspace,
    gitlinks: new Map(paths.map((path, index) => [path, states[index]!])),
    nested: await findDotGits(workspace),
  };
}

/**
 * Takes out of the index each gitlink the agent added and removes its `.git`, removes each
 * `.git` that appeared in a submodule's folder, then every other new or changed `.git`; returns
 * what it changed, as the report names it. Run after git's configuration is back
 * (git-control.ts): it runs git, and a submodule's `.git` file must be what it was.
 */
export async function removeGitlinkTraps(git: Git, snapshot: GitlinkSnapshot): Promise<string[]> {
  const removed: string[] = [];
  const now = await gitlinks(git);
  const added = now.filter((path) => !snapshot.gitlinks.has(path));
  if (added.length > 0) {
    await unstage(git, added);
    for (const path of added) {
      await removeDotGit(snapshot.workspace, path);
      removed.push(`${path} (a gitlink the agent added)`);
    }
  }
  for (const [path, had] of snapshot.gitlinks) {
    if (had || !(await hasDotGit(snapshot.workspace, path))) continue;
    await removeDotGit(snapshot.workspace, path);
    removed.push(`${path}/.git`);
  }
  removed.push(...(await removeNewDotGits(snapshot.workspace, snapshot.nested)));
  return removed;
}

async function hasDotGit(workspace: string, path: string): Promise<boolean> {
  try {
    await lstat(join(workspace, path, '.git'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes `<path>/.git` in the worktree, never through a link: the agent may have made a folder
 * on the way a link to one outside (its home, the runner's tools), where nothing is removed.
 */
async function removeDotGit(workspace: string, path: string): Promise<void> {
  const folder = join(workspace, path);
  let real: string;
  try {
    real = join(await realpath(dirname(folder)), path.split('/').at(-1)!);
  } catch {
    return; // no such folder: nothing of it to remove
  }
  if (real !== join(await realpath(workspace), path)) return;
  await rm(join(real, '.git'), { recursive: true, force: true });
}
