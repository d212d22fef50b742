/**
 * The repository state the system prompt describes, as git prints it: two read-only git
 * processes. Kept apart from the prompt's code, with no dependency but `child_process`, so the
 * action's entry can start them before the rest of the bundle loads (github/prefetch.ts).
 */
import { execFile } from 'node:child_process';

export interface GitOutput {
  /** `git status --short --branch`; undefined when the directory is not a repository. */
  status: string | undefined;
  /** `git log -n 5 --format=%H %h %s`; undefined when there is no commit. */
  log: string | undefined;
}

export async function readGitOutput(cwd: string): Promise<GitOutput> {
  // Two git processes, not four: `status --branch` also says whether this is a repository (it
  // fails outside one) and names the branch in its first line.
  const [status, log] = await Promise.all([
    // A status that only reads: it takes no optional lock on the index (nor refreshes it).
    git(cwd, ['--no-optional-locks', 'status', '--short', '--branch']),
    // `%H` (the full sha) of every commit, of which the first is HEAD's, then `--oneline`'s text.
    git(cwd, ['log', '-n', '5', '--format=%H %h %s']),
  ]);
  return { status, log };
}

/** Never rejects: a failed git call is an absent answer. */
function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 5_000 }, (error, stdout) => {
      resolve(error ? undefined : stdout.trim());
    });
  });
}
