/**
 * The git side of a fake GitHub repository: a bare repository standing in for `origin` and a
 * working clone standing in for the runner's checkout, made with real git in a temp directory.
 * Seed the fake server's repository with `origin: repo.bare` so branches pushed here exist there.
 *
 * Order: 1. `git init --bare` with the default branch; 2. clone it; 3. commit `files` on the
 * default branch and push; 4. each extra branch: commit its files on top of the default branch and
 * push; 5. check out `checkoutBranch`; 6. install the rejecting pre-receive hook when asked.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type FileTree = Record<string, string>;

export interface OriginRepoOptions {
  /** The initial commit's files, by relative path; a README when unset. */
  files?: FileTree;
  defaultBranch?: string;
  /** More branches, each one commit (of these files) on top of the default branch; no files: the
   * branch points at the default branch. */
  branches?: Record<string, FileTree>;
  /** The branch the checkout is left on; the default branch when unset. */
  checkoutBranch?: string;
  /** Refuse every push; a string is the reason the hook prints. */
  rejectPushes?: boolean | string;
}

export interface OriginRepo {
  /** The temp directory holding both repositories. */
  root: string;
  /** The bare repository (`origin`). */
  bare: string;
  /** The working clone (the runner's checkout). */
  checkout: string;
  defaultBranch: string;
  /** The sha of the initial commit on the default branch. */
  initialSha: string;
  /** Branch → sha, as the bare repository has them now. */
  branches(): Promise<Record<string, string>>;
  setRejectPushes(reject: boolean | string): Promise<void>;
  /** Runs git in `cwd` (the checkout by default) with the fixture's identity; returns stdout. */
  git(args: string[], cwd?: string): Promise<string>;
  cleanup(): Promise<void>;
}

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Fixture Author',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_NAME: 'Fixture Author',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
  // Fixed dates make the fixture's shas the same on every run.
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

export async function createOriginRepo(options: OriginRepoOptions = {}): Promise<OriginRepo> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ci-agent-origin-')));
  const bare = join(root, 'origin.git');
  const checkout = join(root, 'checkout');
  const defaultBranch = options.defaultBranch ?? 'main';
  const git = async (args: string[], cwd = checkout): Promise<string> =>
    (await run('git', args, { cwd, env: gitEnv(), encoding: 'utf8' })).stdout;
  const commitAll = async (files: FileTree, message: string): Promise<void> => {
    await writeTree(checkout, files);
    await git(['add', '--all']);
    // No hooks or signing from the developer's global config may touch the fixture.
    await git(['-c', 'commit.gpgsign=false', 'commit', '--quiet', '--no-verify', '-m', message]);
  };

  try {
    await git(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, bare], root);
    // Pin the hooks directory so a global core.hooksPath cannot bypass the rejecting hook.
    await git(['config', 'core.hooksPath', join(bare, 'hooks')], bare);
    await git(['clone', '--quiet', bare, checkout], root);
    await git(['symbolic-ref', 'HEAD', `refs/heads/${defaultBranch}`]);
    await commitAll(options.files ?? { 'README.md': '# fixture\n' }, 'Initial commit');
    await git(['push', '--quiet', '--set-upstream', 'origin', defaultBranch]);
    for (const [branch, files] of Object.entries(options.branches ?? {})) {
      await git(['checkout', '--quiet', '-b', branch, defaultBranch]);
      if (Object.keys(files).length > 0) await commitAll(files, `Changes on ${branch}`);
      await git(['push', '--quiet', '--set-upstream', 'origin', branch]);
    }
    await git(['checkout', '--quiet', options.checkoutBranch ?? defaultBranch]);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }

  const initialSha = (await git(['rev-parse', `refs/heads/${defaultBranch}`], bare)).trim();
  const hook = join(bare, 'hooks', 'pre-receive');
  const setRejectPushes = async (reject: boolean | string): Promise<void> => {
    if (reject === false) {
      await rm(hook, { force: true });
      return;
    }
    const reason = typeof reject === 'string' ? reject : 'pushes are rejected by this origin';
    await mkdir(dirname(hook), { recursive: true });
    await writeFile(hook, `#!/bin/sh\necho ${shellQuote(`error: ${reason}`)} >&2\nexit 1\n`);
    await chmod(hook, 0o755);
  };
  if (options.rejectPushes !== undefined && options.rejectPushes !== false) {
    await setRejectPushes(options.rejectPushes);
  }

  return {
    root,
    bare,
    checkout,
    defaultBranch,
    initialSha,
    git,
    setRejectPushes,
    async branches() {
      const out = await git(
        ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads'],
        bare,
      );
      const branches: Record<string, string> = {};
      for (const line of out.split('\n')) {
        const [name, sha] = line.split(' ');
        if (name && sha) branches[name] = sha;
      }
      return branches;
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

async function writeTree(directory: string, files: FileTree): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const target = join(directory, relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** The parent's environment without GIT_* variables (a surrounding hook's GIT_DIR must not leak). */
function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('GIT_')) env[name] = value;
  }
  return { ...env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0' };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
