/**
 * Git's own configuration, kept out of the agent's reach for the git commands the action runs
 * after it (status, add, commit, diff, push — the push with the token in its environment, which
 * any program git starts inherits).
 *
 * A config file names programs git runs: filter drivers on `git add`, `core.fsmonitor` on
 * status, diff drivers, `core.sshCommand`, `include.path` to more of the same. These files sit in
 * the checkout (`.git/config`) and the home directory (`~/.gitconfig`, `~/.config/git/config`),
 * where the agent's tools can write, so a prompt-injected agent could plant one. The action
 * copies them before the agent starts and puts back whatever the agent changed before it runs git
 * again; the report says what was put back. Hooks, the other way in, are off for the action's own
 * git commands (git.ts).
 *
 * The files that send git elsewhere count too: `commondir` (which makes another folder's `config`
 * the repository's), `config.worktree`, `info/attributes` (which names filter drivers), of the
 * git directory and of its common directory; a planted one is removed. And `.git` itself: a
 * `.git` folder replaced by a `gitdir:` file (or the other way round, or a `gitdir:` file that
 * now points elsewhere) leaves no config to put back where git will read it, so restoring fails
 * with GitControlReplaced and the action runs no git command on that checkout.
 */
import { lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../tools/paths.js';

export interface GitControlSnapshot {
  /** Each watched file before the agent ran. */
  readonly files: ReadonlyMap<string, FileState>;
  /** What `.git` was: a folder, or a `gitdir:` file and its text. */
  readonly dotGit: DotGit;
  readonly workspace: string;
  readonly home: string | undefined;
}

interface FileState {
  /** The text (through a symlink); undefined when there is no file. */
  content: string | undefined;
  /** Where the path points when it is a symlink (a home directory's dotfiles often are). */
  link: string | undefined;
}

type DotGit = { kind: 'folder' } | { kind: 'file'; text: string } | { kind: 'none' };

/** `.git` was replaced while the agent ran: no config of it can be trusted, nor put back. */
export class GitControlReplaced extends Error {
  constructor(readonly workspace: string) {
    super(
      `the agent replaced ${join(workspace, '.git')} while it ran, so git's configuration cannot be put back: ci-agent runs no git command on this checkout`,
    );
    this.name = 'GitControlReplaced';
  }
}

/** Copies git's config files as they are now. */
export async function snapshotGitControl(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<GitControlSnapshot> {
  const paths = await controlFiles(workspace, env);
  const files = new Map<string, FileState>();
  for (const path of paths) files.set(path, await stateOf(path));
  return { files, dotGit: await dotGitOf(workspace), workspace, home: env.HOME };
}

/**
 * Puts back every watched file the agent changed, created or removed; returns them, as the
 * report shows them (relative to the workspace, or with `~` for the home directory).
 */
export async function restoreGitControl(snapshot: GitControlSnapshot): Promise<string[]> {
  const dotGit = await dotGitOf(snapshot.workspace);
  const same =
    dotGit.kind === snapshot.dotGit.kind &&
    (dotGit.kind !== 'file' ||
      (snapshot.dotGit.kind === 'file' && dotGit.text === snapshot.dotGit.text));
  if (!same) throw new GitControlReplaced(snapshot.workspace);
  const restored: string[] = [];
  for (const [path, before] of snapshot.files) {
    const now = await stateOf(path);
    if (now.content === before.content && now.link === before.link) continue;
    // Removed first, so that a symlink planted in its place is replaced, not written through.
    await rm(path, { force: true, recursive: true });
    if (before.link !== undefined) await symlink(before.link, path);
    if (before.content !== undefined) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, before.content);
    }
    restored.push(shown(path, snapshot.workspace, snapshot.home));
  }
  return restored;
}

/** The repository's config (through a `.git` file, and a worktree's common dir) and the user's. */
async function controlFiles(workspace: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const gitDir = await gitDirOf(workspace);
  const common = await commonGitDir(gitDir);
  const files = [
    ...new Set([gitDir, common].flatMap((dir) => REDIRECTING_FILES.map((name) => join(dir, name)))),
  ];
  const home = env.HOME;
  if (home) files.push(join(home, '.gitconfig'));
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, '.config') : undefined);
  if (xdg) files.push(join(xdg, 'git', 'config'));
  return files;
}

/**
 * What a git directory holds that names programs or sends git to other files: its config, the
 * worktree's config, the attributes that name filter drivers, and `commondir`.
 */
const REDIRECTING_FILES = ['config', 'config.worktree', 'info/attributes', 'commondir'];

/** The git directory: `.git`, or where a `.git` file points. */
async function gitDirOf(workspace: string): Promise<string> {
  const dotGit = join(workspace, '.git');
  const pointer = await readIfFile(dotGit);
  const target = pointer === undefined ? undefined : /^gitdir:\s*(.+)$/m.exec(pointer)?.[1]?.trim();
  return target ? resolve(workspace, target) : dotGit;
}

/** A worktree's common directory (its `commondir`), or the git directory itself. */
async function commonGitDir(gitDir: string): Promise<string> {
  const common = (await readIfFile(join(gitDir, 'commondir')))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
}

async function dotGitOf(workspace: string): Promise<DotGit> {
  const path = join(workspace, '.git');
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return { kind: 'none' };
  if (stats.isDirectory()) return { kind: 'folder' };
  return { kind: 'file', text: (await readIfFile(path)) ?? '' };
}

/** A file's text, or undefined when there is no file (a directory counts as none). */
async function readIfFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function stateOf(path: string): Promise<FileState> {
  const [content, link] = await Promise.all([
    readIfFile(path),
    readlink(path).catch(() => undefined),
  ]);
  return { content, link };
}

function shown(path: string, workspace: string, home: string | undefined): string {
  if (isInside(path, workspace)) return relative(workspace, path);
  if (home !== undefined && isInside(path, home)) return `~/${relative(home, path)}`;
  return path;
}
