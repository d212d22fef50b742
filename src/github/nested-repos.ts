/**
 * The repositories the agent could leave in the worktree for a later step to enter. A `.git`
 * (a folder, a `gitdir:` file, a link to either) anywhere below the top makes its folder a
 * repository: untracked, the top repository's `git status` does not look into it, but a later
 * step's own `git add -A` (an auto-commit action's) makes it a gitlink, and from then on a plain
 * `git status` runs `git status` in it, with its configuration's fsmonitor and filters, on the
 * host (gitlink-traps.ts). A repository in an ignored folder is one `git add -f` away, and one a
 * later step runs git in (`cd vendor/x && git log`) uses its configuration directly.
 *
 * 1. Before anything of the checkout runs, every `.git` in the worktree is recorded: a file's
 *    text, a link's target, a folder's inode and its control files' and hooks' (`findDotGits`).
 * 2. After the agent, the worktree is walked again, and each `.git` that was not there, or is
 *    not what it was, is removed, as a link when it is one; the folder it made a repository of
 *    stays with the rest of the agent's files (`removeNewDotGits`). A repository that was there
 *    before and whose config or hooks changed goes too: nothing of it is put back.
 * The top repository's `.git` is git-control.ts's, and is not walked into; so is every `.git`,
 * which holds no worktree. A submodule's `.git` file was there before, and git-control.ts puts
 * it back first. The walk follows no link; a folder that cannot be listed is made listable.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, readdir, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CONTROL_FILES, HOOKS, makeListable } from '../util/git-dirs.js';

/**
 * A `.git` as git would read it: a folder by what configures it (its control files and hooks,
 * util/git-dirs.ts; `folderIdentity` below), a file by its text, a link by its target.
 */
export type DotGit =
  | { kind: 'folder'; identity: string }
  | { kind: 'file'; text: string }
  | { kind: 'link'; target: string }
  /** A FIFO, a device, a file larger than git reads as a `gitdir:` file. */
  | { kind: 'other' };

export interface DotGitState {
  /** Each `.git` below the top, relative to the workspace, and what it was. */
  readonly dotGits: ReadonlyMap<string, DotGit>;
  /** The folders that could not be listed (not the runner's own, say): nothing below is known. */
  readonly unlisted: ReadonlySet<string>;
}

/** git reads a `gitdir:` file up to 1 MiB (setup.c, read_gitfile_gently). */
const MAX_GITFILE_BYTES = 1 << 20;
/** Folders listed at once: enough to keep the disk busy, few enough for the file descriptors. */
const CONCURRENT_LISTINGS = 16;

/**
 * Every `.git` below the top of the worktree at `workspace`. With `repair`, a folder its owner
 * cannot list is made listable first (the agent's `chmod 000 a` over `a/evil/.git`); `identify`
 * says which `.git` folders to tell apart (not one that will go anyway).
 */
export async function findDotGits(
  workspace: string,
  options: { repair?: boolean; identify?: (path: string) => boolean } = {},
): Promise<DotGitState> {
  const dotGits = new Map<string, DotGit>();
  const unlisted = new Set<string>();
  const queue: string[] = [''];
  const list = async (folder: string): Promise<void> => {
    const absolute = join(workspace, folder);
    const entries = await listing(absolute, options.repair === true);
    if (entries === undefined) {
      unlisted.add(folder);
      return;
    }
    for (const entry of entries) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.name === '.git') {
        const identify = options.identify?.(path) ?? true;
        if (folder !== '') dotGits.set(path, await dotGitOf(join(absolute, entry.name), identify));
      } else if (entry.isDirectory()) {
        queue.push(path);
      }
    }
  };
  const worker = async (): Promise<void> => {
    for (let folder = queue.pop(); folder !== undefined; folder = queue.pop()) await list(folder);
  };
  // A worker that finds its queue empty ends while another may still add to it: go again.
  while (queue.length > 0) await Promise.all(Array.from({ length: CONCURRENT_LISTINGS }, worker));
  return { dotGits, unlisted };
}

/**
 * Removes each `.git` below the top that is not in `before` or not what it was; returns them,
 * as the report names them. Throws when a folder that was listable before cannot be listed now:
 * what it holds cannot be checked, and the run fails rather than leave it.
 */
export async function removeNewDotGits(workspace: string, before: DotGitState): Promise<string[]> {
  const now = await findDotGits(workspace, {
    repair: true,
    identify: (path) => before.dotGits.get(path)?.kind === 'folder',
  });
  const hidden = [...now.unlisted].filter((folder) => !before.unlisted.has(folder));
  if (hidden.length > 0) {
    throw new Error(
      `ci-agent cannot list ${hidden.map((folder) => folder || '.').join(', ')} in the workspace, so cannot tell whether the agent left a git repository there`,
    );
  }
  const removed: string[] = [];
  const top = await realpath(workspace);
  for (const [path, dotGit] of [...now.dotGits].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const was = before.dotGits.get(path);
    if (was !== undefined && sameDotGit(was, dotGit)) continue;
    await removeInWorkspace(workspace, top, path);
    removed.push(
      `${path} (${was === undefined ? 'not there' : 'not what it was'} before the agent ran)`,
    );
  }
  return removed;
}

async function listing(folder: string, repair: boolean) {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch {
    if (!repair) return undefined;
    makeListable(folder);
    return readdir(folder, { withFileTypes: true }).catch(() => undefined);
  }
}

async function dotGitOf(path: string, identify: boolean): Promise<DotGit> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return { kind: 'other' };
  if (stats.isDirectory())
    return { kind: 'folder', identity: identify ? await folderIdentity(path) : '' };
  if (stats.isSymbolicLink()) return { kind: 'link', target: await readlink(path) };
  if (!stats.isFile() || stats.size > MAX_GITFILE_BYTES) return { kind: 'other' };
  const text = await readFile(path, 'utf8').catch(() => undefined);
  return text === undefined ? { kind: 'other' } : { kind: 'file', text };
}

function sameDotGit(a: DotGit, b: DotGit): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.text === b.text;
  if (a.kind === 'link' && b.kind === 'link') return a.target === b.target;
  if (a.kind === 'folder' && b.kind === 'folder') return a.identity === b.identity;
  return a.kind === b.kind;
}

/**
 * Which folder it is and what of it makes git run programs: a repository that was there before
 * is kept only as it was (its config rewritten, a hook added, it goes: nothing of it is put
 * back). From metadata alone, nothing read: a change of a file's bytes or mode, or a new file in
 * its place, changes its ctime, which no one can set back.
 */
async function folderIdentity(path: string): Promise<string> {
  const hash = createHash('sha256');
  const add = async (name: string) => {
    const stats = await lstat(join(path, name), { bigint: true }).catch(() => undefined);
    hash.update(`${name}\0`);
    if (stats !== undefined) {
      const { dev, ino, mode, size, ctimeNs } = stats;
      hash.update(`${dev}:${ino}:${mode}:${size}:${ctimeNs}`);
      if (stats.isSymbolicLink()) hash.update(await readlink(join(path, name)).catch(() => ''));
      if (stats.isDirectory() && (name === HOOKS || name.startsWith(`${HOOKS}/`))) {
        const names = await readdir(join(path, name)).catch(() => []);
        for (const inner of names.sort()) await add(`${name}/${inner}`);
      }
    }
    hash.update('\0');
  };
  const self = await lstat(path, { bigint: true });
  hash.update(`${self.dev}:${self.ino}\0`);
  for (const name of [...CONTROL_FILES, HOOKS]) await add(name);
  return hash.digest('hex');
}

/**
 * Removes `<workspace>/<path>` itself (a link as a link), never through a link on the way: the
 * folder holding it must be where the walk found it, or this throws (the run fails rather than
 * leave it, as for a folder it cannot list). A folder in it that its owner cannot enter
 * (`chmod 000 .git/objects`) is opened up first. Exported for its tests.
 */
export async function removeInWorkspace(
  workspace: string,
  top: string,
  path: string,
): Promise<void> {
  const folder = await realpath(dirname(join(workspace, path))).catch(() => undefined);
  // Never through a link swapped in since the walk: the run fails rather than name it removed.
  if (folder !== join(top, dirname(path))) {
    throw new Error(
      `ci-agent could not remove ${path} from the workspace: its folder is no longer where the walk found it${folder === undefined ? '' : ` (it leads to ${folder})`}`,
    );
  }
  const real = join(folder, '.git');
  makeListable(folder);
  try {
    await rm(real, { recursive: true, force: true });
  } catch {
    await openUp(real);
    await rm(real, { recursive: true, force: true });
  }
  if (
    await lstat(real).then(
      () => true,
      () => false,
    )
  ) {
    throw new Error(`ci-agent could not remove ${path} from the workspace`);
  }
}

async function openUp(path: string): Promise<void> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isDirectory()) return;
  await chmod(path, (stats.mode & 0o7777) | 0o700).catch(() => undefined);
  for (const name of await readdir(path).catch(() => [])) await openUp(join(path, name));
}
