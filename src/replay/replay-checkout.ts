/**
 * The fresh checkout a replay runs in:
 * 1. the commit, resolved in the repository given (`--repo`), which is only read;
 * 2. a temp folder: a local clone of it without checkout (git copies or links the objects, so
 *    a commit no branch holds is there too), or, failing that, the commit fetched by its id;
 * 3. the commit checked out detached, in a folder named as the recorded workspace was;
 * 4. an empty home beside it, so the user's ~/.claude/settings.json does not join the policy.
 * Every git command runs without hooks or fsmonitor (the repository's config names programs).
 */
import { mkdtemp, realpath, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { processOutput, ProcessFailed } from '../process/run-process.js';
import { ReplayInputError } from './recorded-run.js';

export interface ReplayCheckout {
  /** The temp folder that holds the rest. */
  root: string;
  /** The workspace: the commit checked out. */
  dir: string;
  /** The home the replayed run gets. */
  home: string;
  /** The full sha checked out. */
  commit: string;
  /** Removes the temp folder. */
  remove(): Promise<void>;
}

const SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

export async function createReplayCheckout(options: {
  repo: string;
  commit: string;
  /** The recorded workspace, whose folder name the checkout takes. */
  recordedCwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<ReplayCheckout> {
  const env = {
    PATH: options.env.PATH ?? '/usr/bin:/bin',
    HOME: options.env.HOME ?? tmpdir(),
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  };
  const git = (args: string[], cwd: string) =>
    processOutput({ file: 'git', args: [...SAFE_CONFIG, ...args], cwd, env });
  // 1. A ref is never read as one of git's options.
  if (options.commit.startsWith('-'))
    throw new ReplayInputError(`--commit ${options.commit}: not a commit or ref`);
  let commit: string;
  try {
    await git(['rev-parse', '--git-dir'], options.repo);
    commit = (
      await git(['rev-parse', '--verify', '--quiet', `${options.commit}^{commit}`], options.repo)
    ).trim();
  } catch (error) {
    throw new ReplayInputError(
      `--repo ${options.repo}: ${isFailure(error) && error.result.exitCode === 1 ? `does not hold commit ${options.commit} (fetch it first)` : 'is not a git repository'}`,
    );
  }
  // 2.
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ci-agent-replay-')));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    const dir = join(root, basename(options.recordedCwd) || 'checkout');
    await git(['clone', '--quiet', '--no-checkout', options.repo, dir], root);
    const present = await git(['cat-file', '-e', `${commit}^{commit}`], dir).then(
      () => true,
      () => false,
    );
    if (!present) await git(['fetch', '--quiet', '--no-tags', options.repo, commit], dir);
    // 3.
    await git(['checkout', '--quiet', '--detach', commit], dir);
    // 4.
    const home = join(root, 'home');
    await mkdir(home);
    return { root, dir, home, commit, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

function isFailure(error: unknown): error is ProcessFailed {
  return error instanceof ProcessFailed;
}
