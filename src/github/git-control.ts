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
 */
import { mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../tools/paths.js';

export interface GitControlSnapshot {
  /** Each watched file before the agent ran. */
  readonly files: ReadonlyMap<string, FileState>;
  readonly workspace: string;
  readonly home: string | undefined;
}

interface FileState {
  /** The text (through a symlink); undefined when there is no file. */
  content: string | undefined;
  /** Where the path points when it is a symlink (a home directory's dotfiles often are). */
  link: string | undefined;
}

/** Copies git's config files as they are now. */
export async function snapshotGitControl(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<GitControlSnapshot> {
  const paths = await controlFiles(workspace, env);
  const files = new Map<string, FileState>();
  for (const path of paths) files.set(path, await stateOf(path));
  return { files, workspace, home: env.HOME };
}

/**
 * Puts back every watched file the agent changed, created or removed; returns them, as the
 * report shows them (relative to the workspace, or with `~` for the home directory).
 */
export async function restoreGitControl(snapshot: GitControlSnapshot): Promise<string[]> {
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
  const files = [join(await commonGitDir(workspace), 'config')];
  const home = env.HOME;
  if (home) files.push(join(home, '.gitconfig'));
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, '.config') : undefined);
  if (xdg) files.push(join(xdg, 'git', 'config'));
  return files;
}

async function commonGitDir(workspace: string): Promise<string> {
  const dotGit = join(workspace, '.git');
  let gitDir = dotGit;
  const pointer = await readIfFile(dotGit);
  if (pointer !== undefined) {
    const target = /^gitdir:\s*(.+)$/m.exec(pointer)?.[1]?.trim();
    if (target) gitDir = resolve(workspace, target);
  }
  const common = (await readIfFile(join(gitDir, 'commondir')))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
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
