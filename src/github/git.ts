/**
 * The git side of a run: a branch to work on, one commit with the bot identity, a push with the
 * token, the final diff. Side effects go through the `Git` interface so tests can use real
 * repositories in temp dirs, and a failed push never drops the work: the commit stays in the
 * checkout and the caller writes it out as a patch for the artifact and the comment.
 */
import { createSecretMasker } from '../log/secret-masker.js';
import type { SecretMasker } from '../log/secret-masker.js';
import { runProcess } from '../process/run-process.js';
import { buildChildEnv, secretValues } from '../util/child-env.js';
import { showableDiff, textLineCounts } from './shown-diff.js';

export interface GitIdentity {
  name: string;
  email: string;
}

/** The identity GitHub shows for commits made with the workflow's token. */
export const BOT_IDENTITY: GitIdentity = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
};

export class GitError extends Error {
  override readonly name = 'GitError';
  readonly args: readonly string[];
  constructor(
    args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    // No credential is ever an argument (push): an extraheader among them is cut all the same.
    const shown = args.map((arg) => arg.replace(/(extraheader=AUTHORIZATION: \w+ ).*/i, '$1***'));
    const lines = stderr
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    super(`git ${shown.join(' ')} failed (exit ${exitCode}): ${lines.slice(-6).join(' | ')}`);
    this.args = shown;
  }
}

export interface GitRunOptions {
  env?: Record<string, string>;
  /**
   * Settings given in git's environment (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>,
   * GIT_CONFIG_VALUE_<n>), never on its command line: for a value no other process may read.
   * In order, and a key may come more than once (a multi-valued one, reset by an empty value).
   */
  privateConfig?: readonly (readonly [key: string, value: string])[];
}

export interface Git {
  /** Runs git in the checkout; throws GitError on a non-zero exit. */
  run(args: readonly string[], options?: GitRunOptions): Promise<string>;
  /** Text with the run's secrets masked: what ci-agent itself records in commits. */
  mask(text: string): string;
}

/**
 * Settings on every git command ci-agent runs itself: no hooks and no fsmonitor, programs the
 * checkout names (git-control.ts) and the agent may have written. The commands run with the
 * secrets taken out of the environment too: the push brings its token in a setting of its own.
 *
 * And none of them enters a submodule. A submodule's repository (`.git/modules/<name>/`, or a
 * `.git` folder the agent put in place of a submodule's `.git` file, or a gitlink it added to the
 * index beside a repository of its own) is configured by files the agent can write from inside
 * the sandbox; `git status` and `git diff` in the top repository run `git status` in each
 * submodule to see whether it is dirty, and that runs the submodule's clean filters and
 * fsmonitor — on the host, outside the sandbox, beside the action's credentials. The settings
 * below reach the git commands a command starts for a submodule too (git passes `-c` on in its
 * environment), but the check itself is what must not happen: `diff.ignoreSubmodules=all` stops it
 * for status and diff, and `commitAll` keeps `git add` away from gitlinks (it ignores that
 * setting). Fetches and pushes do not recurse either.
 */
const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'diff.ignoreSubmodules=all',
  '-c',
  'submodule.recurse=false',
  '-c',
  'fetch.recurseSubmodules=false',
  '-c',
  'push.recurseSubmodules=no',
];
/** The largest stdout read from one command: a diff or a listing, never more in practice. */
const MAX_OUTPUT_CHARS = 64 * 1024 * 1024;

/**
 * Git in `cwd`, its commands run with `baseEnv` less its secrets. `masker` is the run's (main.ts);
 * by default one of the secrets taken out of the commands' environment: the values of baseEnv's
 * secret-named variables (the action's token and API key inputs among them).
 */
export function createGit(
  cwd: string,
  baseEnv: NodeJS.ProcessEnv = process.env,
  masker: SecretMasker = createSecretMasker(secretValues(baseEnv)),
): Git {
  const env = buildChildEnv(baseEnv);
  return {
    mask: (text) => masker.mask(text),
    run: async (args, options = {}) => {
      const result = await runProcess({
        file: 'git',
        args: [...SAFE_CONFIG, ...args],
        cwd,
        env: {
          ...env,
          GIT_TERMINAL_PROMPT: '0',
          ...options.env,
          ...configEnv({ ...env, ...options.env }, options.privateConfig),
        },
        maxOutputChars: MAX_OUTPUT_CHARS,
        scope: 'process-group',
      }).result;
      if (result.outcome === 'failed-to-start') throw new GitError(args, null, result.error ?? '');
      if (result.stdout.truncatedChars > 0) {
        const over = `its output is over ${MAX_OUTPUT_CHARS} characters, more than ci-agent reads`;
        throw new GitError(args, result.exitCode, over);
      }
      // Killed by a signal: no exit status to report.
      if (result.exitCode !== 0) {
        throw new GitError(args, result.exitSignal ? null : result.exitCode, result.stderr.text);
      }
      return result.stdout.text;
    },
  };
}

/**
 * `settings` as git's environment sets them, numbered after those the environment sets already
 * (a workflow may set GIT_CONFIG_COUNT itself): git reads GIT_CONFIG_KEY_0 to _<count - 1>.
 */
function configEnv(
  env: Record<string, string>,
  entries: readonly (readonly [string, string])[] = [],
): Record<string, string> {
  if (entries.length === 0) return {};
  const start = Number.parseInt(env.GIT_CONFIG_COUNT ?? '', 10) || 0;
  const vars: Record<string, string> = { GIT_CONFIG_COUNT: String(start + entries.length) };
  entries.forEach(([key, value], index) => {
    vars[`GIT_CONFIG_KEY_${start + index}`] = key;
    vars[`GIT_CONFIG_VALUE_${start + index}`] = value;
  });
  return vars;
}

/** Starts (or resets) `branch` at `base` and checks it out. */
export async function checkoutBranch(git: Git, branch: string, base: string): Promise<void> {
  await git.run(['checkout', '-B', branch, base]);
}

/** Whether the working tree differs from HEAD, untracked files included. */
export async function hasChanges(git: Git): Promise<boolean> {
  return (await git.run(['status', '--porcelain'])).trim() !== '';
}

/**
 * The trailer on every commit ci-agent makes. A failed workflow run on such a commit is not fixed
 * again (context.ts): with a token that triggers workflows, the agent would otherwise chase its
 * own fixes forever.
 */
export const COMMIT_TRAILER = 'Generated-by: ci-agent';

/** Whether a commit message carries ci-agent's trailer. */
export function isCiAgentCommit(message: string): boolean {
  return message.split(/\r?\n/).some((line) => line.trim() === COMMIT_TRAILER);
}

/**
 * Stages everything and commits it with the trailer; returns the new commit's sha, or undefined
 * if nothing changed. The message is masked: it is pushed, and it quotes an issue's title.
 * `exclude` (paths relative to the repository's top) is never staged: the model provider's
 * credential file that google-github-actions/auth leaves in the workspace.
 */
export async function commitAll(
  git: Git,
  message: string,
  identity: GitIdentity = BOT_IDENTITY,
  options: { exclude?: readonly string[] } = {},
): Promise<string | undefined> {
  if (!(await hasChanges(git))) return undefined;
  // `git add` checks each gitlink's submodule for changes however it is configured (SAFE_CONFIG):
  // left out, a submodule's new commit is not staged; its repository is not entered.
  const linked = await gitlinks(git);
  const excluded = [...(options.exclude ?? []), ...linked].map(
    (path) => `:(top,exclude,literal)${path}`,
  );
  await git.run(['add', '-A', ...(excluded.length > 0 ? ['--', ':(top)', ...excluded] : [])]);
  // `git add` makes a gitlink of a repository it finds in the worktree (one the agent made):
  // committed, a later step's `git status` would enter it (gitlink-traps.ts). Never staged.
  const made = (await gitlinks(git)).filter((path) => !linked.includes(path));
  if (made.length > 0) {
    await unstage(git, made);
    excluded.push(...made.map((path) => `:(top,exclude,literal)${path}`));
  }
  if (excluded.length > 0 && (await git.run(['diff', '--cached', '--name-only'])).trim() === '')
    return undefined;
  await git.run(
    [
      '-c',
      `user.name=${identity.name}`,
      '-c',
      `user.email=${identity.email}`,
      'commit',
      '-q',
      '--no-verify',
      '-m',
      git.mask(message),
      '-m',
      COMMIT_TRAILER,
    ],
    {
      env: {
        GIT_AUTHOR_NAME: identity.name,
        GIT_AUTHOR_EMAIL: identity.email,
        GIT_COMMITTER_NAME: identity.name,
        GIT_COMMITTER_EMAIL: identity.email,
      },
    },
  );
  return (await git.run(['rev-parse', 'HEAD'])).trim();
}

/** The index's gitlinks (submodules, embedded repositories), relative to the top. */
export async function gitlinks(git: Git): Promise<string[]> {
  const listed = await git.run(['ls-files', '--stage', '-z', '--full-name']);
  const paths: string[] = [];
  for (const entry of listed.split('\0')) {
    // `<mode> <object> <stage>\t<path>`
    const tab = entry.indexOf('\t');
    if (tab > 0 && entry.startsWith('160000 ')) paths.push(entry.slice(tab + 1));
  }
  return [...new Set(paths)];
}

/** Takes `paths` (relative to the repository's top) out of the index, leaving the worktree. */
export async function unstage(git: Git, paths: readonly string[]): Promise<void> {
  // -f: the staged object may match neither HEAD nor the folder, which `rm --cached` refuses.
  await git.run([
    'rm',
    '--cached',
    '-f',
    '-q',
    '--ignore-unmatch',
    '--',
    ...paths.map((path) => `:(top,literal)${path}`),
  ]);
}

/**
 * The token as actions/checkout sends it, an `http.<server>/.extraheader`, but never written to a
 * config file (it would outlive the command and reach the agent's tools) nor given as `-c` (a
 * command line is world-readable in /proc/<pid>/cmdline, for every process on the machine, the
 * sandboxed tools' too). It travels in git's environment (privateConfig): /proc/<pid>/environ is
 * readable only by a process of the same user allowed to ptrace it, and the sandbox keeps the
 * tools from the action's processes; git hands the environment on to git-remote-https, which
 * sends the header. A credential helper reading from an inherited pipe would hide it from the
 * same user too, but needs a helper program of ours and a second protocol for what the
 * environment already does.
 *
 * The empty value first drops any header the checkout persisted (its own token, or none when
 * persist-credentials is false): GitHub refuses a request with two Authorization headers, and
 * the run's token is the one the action was given.
 */
function tokenConfig(
  token: string | undefined,
  serverUrl: string | undefined,
): (readonly [string, string])[] {
  if (!token) return [];
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  const server = (serverUrl ?? 'https://github.com').replace(/\/$/, '');
  const key = `http.${server}/.extraheader`;
  return [
    [key, ''],
    [key, `AUTHORIZATION: basic ${basic}`],
  ];
}

export interface RemoteAccess {
  remote?: string;
  token?: string;
  serverUrl?: string;
}

/** Pushes HEAD to `branch` on `remote`, with the token (tokenConfig). */
export async function push(
  git: Git,
  options: RemoteAccess & { branch: string; force?: boolean },
): Promise<void> {
  await git.run(
    [
      'push',
      ...(options.force ? ['--force'] : []),
      options.remote ?? 'origin',
      `HEAD:refs/heads/${options.branch}`,
    ],
    { privateConfig: tokenConfig(options.token, options.serverUrl) },
  );
}

/**
 * Fetches `ref` from `remote` into FETCH_HEAD, with the token: a checkout made with
 * `persist-credentials: false` has none of its own, and a private repository answers 401.
 */
export async function fetchRef(
  git: Git,
  options: RemoteAccess & { ref: string; depth?: number },
): Promise<void> {
  const depth = options.depth === undefined ? [] : [`--depth=${options.depth}`];
  await git.run(['fetch', '--no-tags', ...depth, options.remote ?? 'origin', options.ref], {
    privateConfig: tokenConfig(options.token, options.serverUrl),
  });
}

export interface FileChange {
  path: string;
  added: number;
  removed: number;
}

/**
 * The diff of `from` against the working tree (or `to`): as a patch that applies, as a reviewer
 * is shown it, and its per-file counts.
 */
export async function diffSince(
  git: Git,
  from: string,
  to?: string,
): Promise<{ patch: string; shown: string; files: FileChange[] }> {
  const range = to ? [from, to] : [from];
  const plain = ['diff', '--no-color', '--no-ext-diff', '--no-textconv'];
  // `patch` applies (binary files included); `shown` and the counts read every file as text,
  // whatever the repository's attributes say (shown-diff.ts).
  const [patch, text, numstat] = await Promise.all([
    git.run([...plain, '--binary', ...range]),
    git.run([...plain, '--text', ...range]),
    git.run([...plain, '--numstat', ...range]),
  ]);
  // numstat says `-` for a file its attributes call binary, even with --text: such a file is
  // counted from the text patch, which lists the files in the same order.
  const counted = textLineCounts(text);
  const files = numstat
    .split('\n')
    .filter(Boolean)
    .map((line, index) => {
      const [added, removed, ...path] = line.split('\t');
      const fallback = added === '-' ? counted[index] : undefined;
      return {
        path: path.join('\t'),
        added: fallback?.added ?? (Number(added) || 0),
        removed: fallback?.removed ?? (Number(removed) || 0),
      };
    });
  return { patch, shown: showableDiff(text), files };
}
