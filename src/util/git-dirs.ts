/**
 * Where a checkout's git keeps what makes it run programs: the repository's git directory and
 * its common one, and the git directory of every submodule, nested ones too. Both halves of the
 * protection ask here: the sandbox keeps these files read-only while the agent's commands run
 * (sandbox/sandbox.ts), and the action puts back what changed before git runs on the host again
 * (github/git-control.ts).
 *
 * A submodule's git directory is `modules/<name>` of its parent's git directory (a name may hold
 * slashes: `modules/libs/json`; a nested submodule's is `modules/a/modules/b`). They are found
 * by walking those folders, not from `.gitmodules` or `core.worktree`, which the agent writes:
 * a folder with a `HEAD` is a git directory, any other folder is part of a name. Links are not
 * followed. A submodule's working tree finds its git directory through its own `.git` file,
 * which is in the agent's reach too: where each is, the git directory's `core.worktree` says,
 * read before the agent runs.
 *
 * Synchronous: the sandbox works out its mounts in one go, and the walk is a few lstat calls per
 * submodule.
 */
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  type Stats,
} from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * What a git directory holds that names programs or sends git to other files: its config, the
 * worktree's config, the attributes that name filter drivers, and `commondir` (which makes
 * another folder's `config` the repository's). Hooks, the folder git runs programs from, apart.
 */
export const CONTROL_FILES: readonly string[] = [
  'config',
  'config.worktree',
  'info/attributes',
  'commondir',
];
export const HOOKS = 'hooks';

/**
 * What a path under the `modules` folders is: a submodule's git directory, part of a name, a
 * link (with where it leads: git follows a link to a git directory, so one pointed elsewhere is
 * a change), else.
 */
export type ModulesEntry = 'git-dir' | 'folder' | `link:${string}` | 'other';

export interface GitDirs {
  /** The repository's git directory and its common one (one folder unless a linked worktree). */
  readonly repository: readonly string[];
  /** Every submodule's git directory, parents before the submodules nested in them. */
  readonly submodules: readonly string[];
  /** Each `modules` folder found, and everything walked in it: what may not appear or change. */
  readonly modules: ReadonlyMap<string, ModulesEntry>;
  /** Each submodule's `.git` in its working tree, where its git directory's core.worktree says. */
  readonly pointers: readonly string[];
}

/**
 * The git directories of the checkout at `workspace`. With `repair`, a folder on the way that
 * its owner cannot list or enter is made so first (the agent's `chmod 311 hooks` keeps a hook
 * runnable and unlisted).
 */
export function findGitDirs(workspace: string, options: { repair?: boolean } = {}): GitDirs {
  const gitDir = gitDirOf(workspace);
  const repository = [...new Set([gitDir, commonGitDir(gitDir)])];
  const modules = new Map<string, ModulesEntry>();
  const submodules: string[] = [];
  const walk = (folder: string) => {
    for (const name of listing(folder, options.repair)) {
      const path = join(folder, name);
      const stats = lstatOf(path);
      if (stats === undefined) continue;
      if (stats.isDirectory() && options.repair) makeListable(path);
      if (stats.isSymbolicLink()) {
        modules.set(path, `link:${readlinkOf(path)}`);
      } else if (!stats.isDirectory()) {
        modules.set(path, 'other');
      } else if (lstatOf(join(path, 'HEAD')) !== undefined) {
        modules.set(path, 'git-dir');
        submodules.push(path);
        walkModulesOf(path);
      } else {
        modules.set(path, 'folder');
        walk(path);
      }
    }
  };
  const walkModulesOf = (dir: string) => {
    const path = join(dir, 'modules');
    const stats = lstatOf(path);
    if (stats === undefined) return;
    modules.set(path, stats.isDirectory() ? 'folder' : 'other');
    if (stats.isDirectory()) walk(path);
  };
  for (const dir of repository) walkModulesOf(dir);
  const pointers = submodules.flatMap((dir) => {
    const worktree = coreWorktree(readIfFile(join(dir, 'config')) ?? '');
    return worktree === undefined ? [] : [join(resolve(dir, worktree), '.git')];
  });
  return { repository, submodules, modules, pointers: [...new Set(pointers)] };
}

/** The git directory: `.git`, or where a `.git` file points. */
export function gitDirOf(workspace: string): string {
  const dotGit = join(workspace, '.git');
  const pointer = readIfFile(dotGit);
  const target = pointer === undefined ? undefined : /^gitdir:\s*(.+)$/m.exec(pointer)?.[1]?.trim();
  return target ? resolve(workspace, target) : dotGit;
}

/** A worktree's common directory (its `commondir`), or the git directory itself. */
function commonGitDir(gitDir: string): string {
  const common = readIfFile(join(gitDir, 'commondir'))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
}

/**
 * `core.worktree` as git itself writes it into a submodule's config (`\tworktree = ../../../a`):
 * the last one in a `[core]` section, quotes and a trailing comment taken off. Not a full config
 * parser: it reads what git wrote before the agent ran, and a submodule whose working tree it
 * misses still has its git directory guarded.
 */
export function coreWorktree(config: string): string | undefined {
  let section = '';
  let found: string | undefined;
  for (const raw of config.split('\n')) {
    let line = raw.trim();
    const header = /^\[([^\]]*)\](.*)$/.exec(line);
    if (header) {
      section = (header[1] ?? '').trim().toLowerCase();
      line = (header[2] ?? '').trim();
    }
    if (section !== 'core') continue;
    const entry = /^worktree\s*=\s*(.*)$/i.exec(line);
    if (!entry) continue;
    const value = (entry[1] ?? '').trim();
    const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(value);
    found = quoted ? (quoted[1] ?? '').replace(/\\(.)/g, '$1') : value.replace(/\s*[#;].*$/, '');
  }
  return found === '' ? undefined : found;
}

function listing(folder: string, repair: boolean | undefined): string[] {
  if (repair) makeListable(folder);
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

/** Gives the owner read, write and search on a folder that lacks one (before listing it). */
export function makeListable(folder: string): void {
  const stats = lstatOf(folder);
  if (stats?.isDirectory() && (stats.mode & 0o700) !== 0o700) {
    try {
      chmodSync(folder, (stats.mode & 0o7777) | 0o700);
    } catch {
      // not ours to change: listing it fails, and so does git
    }
  }
}

function readlinkOf(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** A regular file's text (through a link), else undefined: never opens a FIFO or a device. */
function readIfFile(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
