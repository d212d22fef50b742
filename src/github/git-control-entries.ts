/**
 * One path of git's control files as git-control.ts keeps it: what it was (a file's bytes and
 * mode, a link's target, a folder's mode), how to tell whether it changed, and how to put it back.
 *
 * Written for paths the agent could reach: nothing is read but a regular file (a FIFO the agent
 * put where `.git/config` was would hold the read for good), and nothing is written through a
 * link that appeared between the git directory and the path (`.git/modules/a/info` made a link
 * to a host folder would have the restore write `attributes` there): that link is removed
 * first, and the folder made again.
 */
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isInside } from '../tools/paths.js';
import { makeListable } from '../util/git-dirs.js';

export type Entry =
  | { kind: 'absent' }
  | { kind: 'file'; content: Buffer; mode: number }
  /** `content`: the file it leads to (a home directory's dotfiles are often links), if one. */
  | { kind: 'link'; target: string; content: Buffer | undefined }
  | { kind: 'folder'; mode: number }
  /** Something that cannot be put back as it was (a FIFO, a file no one may read). */
  | { kind: 'other' };

export interface Watched {
  /**
   * The folder the path is trusted below (its git directory, the workspace), where a link on
   * the way is the agent's; undefined for the home's files, whose folders may be links anyway.
   */
  anchor: string | undefined;
  entry: Entry;
}

const ABSENT: Entry = { kind: 'absent' };

export async function entryOf(path: string): Promise<Entry> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return ABSENT;
  const mode = stats.mode & 0o7777;
  if (stats.isDirectory()) return { kind: 'folder', mode };
  if (stats.isSymbolicLink()) {
    const target = await readlink(path);
    const leads = await stat(path).catch(() => undefined);
    const content = leads?.isFile() ? await readFile(path).catch(() => undefined) : undefined;
    return { kind: 'link', target, content };
  }
  if (!stats.isFile()) return { kind: 'other' };
  const content = await readFile(path).catch(() => undefined);
  return content === undefined ? { kind: 'other' } : { kind: 'file', content, mode };
}

export function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind === 'file' && b.kind === 'file')
    return a.mode === b.mode && a.content.equals(b.content);
  if (a.kind === 'link' && b.kind === 'link')
    return a.target === b.target && sameBytes(a.content, b.content);
  if (a.kind === 'folder' && b.kind === 'folder') return a.mode === b.mode;
  return a.kind === b.kind;
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

/**
 * Makes `path` what `entry` says. Removed first, so that a link planted in its place is
 * replaced, not written through; a folder whose mode alone changed only gets its mode back.
 */
export async function putBack(
  path: string,
  entry: Entry,
  anchor: string | undefined,
  current?: Entry,
): Promise<void> {
  if (anchor !== undefined) await removeLinksOnTheWay(anchor, path);
  if (entry.kind === 'folder' && (current ?? (await entryOf(path))).kind === 'folder') {
    await chmod(path, entry.mode);
    return;
  }
  await rm(path, { force: true, recursive: true });
  if (entry.kind === 'absent' || entry.kind === 'other') return;
  await mkdir(dirname(path), { recursive: true });
  if (entry.kind === 'folder') {
    await mkdir(path);
    await chmod(path, entry.mode);
  } else if (entry.kind === 'file') {
    await writeFile(path, entry.content);
    await chmod(path, entry.mode);
  } else {
    await symlink(entry.target, path);
    if (entry.content !== undefined) await writeFile(path, entry.content);
  }
}

/** Each folder between `anchor` and `path` that is no longer a folder (a link, a file): removed. */
async function removeLinksOnTheWay(anchor: string, path: string): Promise<void> {
  if (!isInside(path, anchor)) return;
  let at = anchor;
  for (const part of relative(anchor, dirname(path)).split(sep).filter(Boolean)) {
    at = join(at, part);
    const stats = await lstat(at).catch(() => undefined);
    if (stats === undefined) return;
    if (!stats.isDirectory()) {
      await rm(at, { force: true, recursive: true });
      return;
    }
  }
}

/**
 * A folder and everything in it, a folder before what it holds (`root` itself first, absent or
 * not); links are not followed. With `repair`, a folder its owner cannot list is made listable.
 */
export async function treeOf(root: string, repair: boolean): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  const visit = async (path: string): Promise<void> => {
    if (repair) makeListable(path);
    const entry = await entryOf(path);
    entries.set(path, entry);
    if (entry.kind !== 'folder') return;
    const names = await readdir(path).catch(() => []);
    for (const name of names.sort()) await visit(join(path, name));
  };
  await visit(root);
  return entries;
}

/** Removes each path, a folder before what it holds (which goes with it); returns those removed. */
export async function removeAppeared(paths: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const path of paths) {
    if (removed.some((folder) => isInside(path, folder))) continue;
    await rm(path, { force: true, recursive: true });
    removed.push(path);
  }
  return removed;
}
