/**
 * The checkout's git credentials, out of the agent's reach when `ci-agent -p` runs in CI. A
 * workflow that runs the CLI after actions/checkout has the workflow's token in `.git/config`
 * (or in a file in `$RUNNER_TEMP` that it includes); any tool could read it — Read as well as
 * Bash, sandboxed or not — or just `git push` with it. The action takes them out for its run
 * (github/checkout-credentials.ts); the CLI does the same, through the same code, when it runs
 * in CI (`CI` or `GITHUB_ACTIONS` set, as every hosted CI sets one), and puts them back when the
 * run ends: after the session's last hook, on an error and on a cancelled run alike.
 *
 * Outside CI the repository's configuration is the developer's own, and is left as it is: a run
 * killed before its end would leave their settings taken out.
 */
import { credentialsNote, stashCheckoutCredentials } from '../github/checkout-credentials.js';
import type { CredentialStash } from '../github/checkout-credentials.js';
import { createGit } from '../github/git.js';

/** `CI=true`, `CI=1`, `GITHUB_ACTIONS=true`: what CI services set; `CI=false` is not CI. */
export function runsInCi(env: NodeJS.ProcessEnv): boolean {
  if (env.GITHUB_ACTIONS === 'true') return true;
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * The stash, or undefined when not in CI or not in a git work tree. Throws when the credentials
 * are there and cannot be taken out: the run does not start with them in reach.
 */
export async function stashCliCredentials(
  projectDir: string,
  env: NodeJS.ProcessEnv,
  note: (text: string) => void,
): Promise<CredentialStash | undefined> {
  if (!runsInCi(env)) return undefined;
  const git = createGit(projectDir, env);
  const inWorkTree = await git.run(['rev-parse', '--is-inside-work-tree']).then(
    (out) => out.trim() === 'true',
    () => false,
  );
  if (!inWorkTree) return undefined;
  let stash: CredentialStash;
  try {
    stash = await stashCheckoutCredentials(git, projectDir, env);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the checkout's git credentials could not be taken out of git's configuration, so the agent did not run: ${reason}`,
    );
  }
  const text = credentialsNote(stash);
  if (text) note(text);
  return stash;
}
