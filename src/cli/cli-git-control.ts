/**
 * Git's control files and the index's gitlinks, put back after `ci-agent -p` when it runs in CI,
 * as the action does after its agent (github/git-control.ts, github/gitlink-traps.ts). A
 * workflow's later steps run git in the checkout — actions/checkout's own post-job cleanup does,
 * in every submodule — and git runs what the checkout's configuration names: an fsmonitor, a
 * filter, a hook. Whatever the agent's commands wrote there (a test command the policy allows
 * runs arbitrary code; sandboxed, the sandbox holds these files read-only, but not a repository
 * the agent makes in the worktree) would run on the runner after the CLI has ended.
 *
 * Taken after the checkout's credentials are out (cli-credentials.ts), so that what is put back
 * has none; put back before they are. Outside CI the checkout and its configuration are the
 * developer's own, and are left as they are, as the credentials are.
 */
import { createGit } from '../github/git.js';
import { restoreGitControl, snapshotGitControl } from '../github/git-control.js';
import { removeGitlinkTraps, snapshotGitlinks } from '../github/gitlink-traps.js';
import { errorMessage } from '../util/errors.js';
import { runsInCi } from './cli-credentials.js';

export interface GitControlHold {
  /**
   * Puts back what the agent changed; returns it (relative paths, `~` for the home folder).
   * Throws when it cannot: `.git` replaced, a folder it cannot list.
   */
  putBack(): Promise<string[]>;
}

/** The hold, or undefined when not in CI or not in a git work tree. */
export async function holdGitControl(
  projectDir: string,
  env: NodeJS.ProcessEnv,
): Promise<GitControlHold | undefined> {
  if (!runsInCi(env)) return undefined;
  const git = createGit(projectDir, env);
  const top = await git.run(['rev-parse', '--show-toplevel']).then(
    (out) => out.trim(),
    () => undefined,
  );
  if (!top) return undefined;
  const control = await snapshotGitControl(top, env);
  // git runs in the checkout here, so after its configuration is copied (and as it was).
  const gitlinks = await snapshotGitlinks(git, top);
  return {
    putBack: async () => [
      ...(await restoreGitControl(control)),
      // That runs git: after the configuration is put back.
      ...(await removeGitlinkTraps(git, gitlinks)),
    ],
  };
}

/**
 * Puts back and says so on stderr: a warning naming what the agent changed, as the action's
 * report does; an error when it cannot, and then false (the run fails: the checkout is not safe
 * for a later step's git).
 */
export async function putBackGitControl(
  hold: GitControlHold,
  stderr: (text: string) => void,
): Promise<boolean> {
  try {
    const restored = await hold.putBack();
    if (restored.length > 0) {
      stderr(
        `Warning: the agent changed git's configuration (${restored.join(', ')}); it was put back before ci-agent ended\n`,
      );
    }
    return true;
  } catch (error) {
    stderr(`Error: git's configuration could not be checked or put back: ${errorMessage(error)}\n`);
    return false;
  }
}
