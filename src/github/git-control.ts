/**
 * Git's own configuration, kept out of the agent's reach for the git commands that run after it
 * on the host: the action's (status, add, commit, diff, push — the push with the token in its
 * environment, which any program git starts inherits), and the workflow's later steps
 * (actions/checkout's post-job cleanup runs `git submodule foreach`).
 *
 * A config file names programs git runs: filter drivers on `git add`, `core.fsmonitor` on
 * status, diff drivers, `core.sshCommand`, `include.path` to more of the same; a hook is one.
 * These sit in the checkout (`.git/config`, `.git/hooks/`, and the same in each submodule's git
 * directory, `.git/modules/<name>/`) and the home directory (`~/.gitconfig`,
 * `~/.config/git/config`), where the agent's tools can write, so a prompt-injected agent could
 * plant one. The sandbox keeps those in the checkout read-only (sandbox.ts); without it
 * (`sandbox: off`), or for what no mount could hold (a folder that appeared), the action copies
 * them before anything of the checkout runs and puts back whatever changed; the report says what
 * was put back. Hooks are off for the action's own git commands too (git.ts).
 *
 * The files that send git elsewhere count too: `commondir` (which makes another folder's
 * `config` the repository's), `config.worktree`, `info/attributes` (which names filter drivers),
 * of every git directory (util/git-dirs.ts); a planted one is removed. And `.git` itself: a
 * `.git` folder replaced by a `gitdir:` file (or the other way round, or a `gitdir:` file that
 * now points elsewhere) leaves no config to put back where git will read it, so restoring fails
 * with GitControlReplaced and the action runs no git command on that checkout.
 *
 * Sequence of `restoreGitControl`:
 *   1. `.git` is what it was, else GitControlReplaced;
 *   2. what appeared in the `modules` folders, or changed kind there, is removed: a submodule git
 *      directory the agent made (a later `git submodule update --init` would take it as it is,
 *      hooks and all), a link in place of one; a link that was there and now leads elsewhere
 *      (git follows it to whatever git directory it names) is made again as it was;
 *   3. each watched file is put back: the config files, and each submodule's `.git` file, which
 *      names its git directory (a `.git` folder in its place would be a repository of the agent's);
 *   4. each hooks folder is made what it was: what appeared removed, what changed put back,
 *      the executable bit included.
 * Nothing is written through a link that appeared on the way (git-control-entries.ts).
 */
import { lstat, mkdir, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../tools/paths.js';
import { CONTROL_FILES, HOOKS, findGitDirs, type ModulesEntry } from '../util/git-dirs.js';
import {
  entryOf,
  putBack,
  removeAppeared,
  sameEntry,
  treeOf,
  type Entry,
  type Watched,
} from './git-control-entries.js';

export interface GitControlSnapshot {
  /** Each watched file before the agent ran. */
  readonly files: ReadonlyMap<string, Watched>;
  /** Each hooks folder (a git directory's `hooks`) and everything in it, before the agent ran. */
  readonly hooks: ReadonlyMap<string, { anchor: string; entries: ReadonlyMap<string, Entry> }>;
  /** The `modules` folders and what they held (util/git-dirs.ts). */
  readonly modules: ReadonlyMap<string, ModulesEntry>;
  /** What `.git` was: a folder, or a `gitdir:` file and its text. */
  readonly dotGit: DotGit;
  readonly workspace: string;
  readonly home: string | undefined;
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

/** Copies git's config files, hooks and submodule git directories' as they are now. */
export async function snapshotGitControl(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<GitControlSnapshot> {
  const dirs = findGitDirs(workspace);
  const gitDirs = [...dirs.repository, ...dirs.submodules];
  const files = new Map<string, Watched>();
  const watch = async (path: string, anchor: string | undefined) => {
    if (!files.has(path)) files.set(path, { anchor, entry: await entryOf(path) });
  };
  for (const dir of gitDirs) for (const name of CONTROL_FILES) await watch(join(dir, name), dir);
  for (const pointer of dirs.pointers) await watch(pointer, workspace);
  for (const path of userConfigFiles(env)) await watch(path, undefined);
  const hooks = new Map<string, { anchor: string; entries: ReadonlyMap<string, Entry> }>();
  for (const dir of gitDirs) {
    const root = join(dir, HOOKS);
    if (!hooks.has(root)) hooks.set(root, { anchor: dir, entries: await treeOf(root, false) });
  }
  return {
    files,
    hooks,
    modules: dirs.modules,
    dotGit: await dotGitOf(workspace),
    workspace,
    home: env.HOME,
  };
}

/**
 * Puts back every watched file the agent changed, created or removed, and removes the
 * submodule git directories it made; returns them, as the report shows them (relative to the
 * workspace, or with `~` for the home directory).
 */
export async function restoreGitControl(snapshot: GitControlSnapshot): Promise<string[]> {
  // 1.
  const dotGit = await dotGitOf(snapshot.workspace);
  const same =
    dotGit.kind === snapshot.dotGit.kind &&
    (dotGit.kind !== 'file' ||
      (snapshot.dotGit.kind === 'file' && dotGit.text === snapshot.dotGit.text));
  if (!same) throw new GitControlReplaced(snapshot.workspace);
  const changed: string[] = [];
  // 2.
  const now = findGitDirs(snapshot.workspace, { repair: true }).modules;
  const removed = await removeAppeared(
    [...now].filter(([path, kind]) => snapshot.modules.get(path) !== kind).map(([path]) => path),
  );
  changed.push(...removed);
  // A link that was there (and was removed, or went) is made again, leading where it led.
  for (const [path, kind] of snapshot.modules) {
    if (!kind.startsWith('link:') || now.get(path) === kind) continue;
    if (removed.some((folder) => folder !== path && isInside(path, folder))) continue;
    await rm(path, { force: true, recursive: true });
    await mkdir(dirname(path), { recursive: true });
    await symlink(kind.slice('link:'.length), path);
    if (!removed.includes(path)) changed.push(path);
  }
  // 3.
  for (const [path, { anchor, entry }] of snapshot.files) {
    if (sameEntry(await entryOf(path), entry)) continue;
    await putBack(path, entry, anchor);
    changed.push(path);
  }
  // 4.
  for (const [root, { anchor, entries }] of snapshot.hooks) {
    changed.push(...(await restoreTree(root, anchor, entries)));
  }
  return changed.map((path) => shown(path, snapshot.workspace, snapshot.home));
}

/**
 * A folder made what it was: what appeared in it removed, then what changed or went put back,
 * a folder before what it holds. Reported: what appeared, and what changed, but not what was
 * put back only because a folder holding it was (a link in place of the hooks folder).
 */
async function restoreTree(
  root: string,
  anchor: string,
  before: ReadonlyMap<string, Entry>,
): Promise<string[]> {
  const now = await treeOf(root, true);
  const changed = await removeAppeared([...now.keys()].filter((path) => !before.has(path)));
  const replaced: string[] = [];
  for (const [path, entry] of before) {
    const current = await entryOf(path);
    if (sameEntry(current, entry)) continue;
    const within = replaced.some((folder) => isInside(path, folder));
    // A folder whose mode alone changed keeps what it holds.
    if (!(current.kind === 'folder' && entry.kind === 'folder')) replaced.push(path);
    await putBack(path, entry, anchor, current);
    if (!within) changed.push(path);
  }
  return changed;
}

/** The user's own config files: `~/.gitconfig` and the XDG one. */
function userConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  const files = home ? [join(home, '.gitconfig')] : [];
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, '.config') : undefined);
  if (xdg) files.push(join(xdg, 'git', 'config'));
  return files;
}

async function dotGitOf(workspace: string): Promise<DotGit> {
  const path = join(workspace, '.git');
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return { kind: 'none' };
  if (stats.isDirectory()) return { kind: 'folder' };
  const entry = await entryOf(path);
  return { kind: 'file', text: entry.kind === 'file' ? entry.content.toString('utf8') : '' };
}

function shown(path: string, workspace: string, home: string | undefined): string {
  const absolute = resolve(path);
  if (isInside(absolute, workspace)) return relative(workspace, absolute);
  if (home !== undefined && isInside(absolute, home)) return `~/${relative(home, absolute)}`;
  return absolute;
}
