/**
 * Writing a file where the permission decision judged it, and nowhere else.
 *
 * The decision saw a path lead to `location` (paths.ts realPathOf); the write comes later, after
 * hooks, with other processes running. So the last component is opened without following a link
 * (O_NOFOLLOW; O_EXCL when creating), and before a byte is written the file opened is located
 * again (/proc/self/fd, else its directory's real path and its inode): a directory on the way
 * replaced by a link in between shows up there, and the write is refused, a file it just created
 * removed. Missing parent directories are made one at a time and located the same way. Node has
 * no openat, so this narrows the race to the instant between locating and writing, into a file
 * that is then already open inside; it does not close it further.
 *
 * An existing file is written in place (truncate, write): it keeps its mode, owner and inode. So
 * a file with more than one hard link is refused: its other names may be anywhere on the disk.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rmdir, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeError, errorCode } from './fs-errors.js';
import { linkMessage } from './links.js';

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_WRONLY } = constants;
/** O_NONBLOCK: a FIFO put in the file's place fails to open instead of hanging the call. */
const EXISTING = O_WRONLY | O_NOFOLLOW | O_NONBLOCK;
const NEW = EXISTING | O_CREAT | O_EXCL;

/** Writes `bytes` to `path`, which must lead to `location`; returns the mtime after the write. */
export async function writeWithoutFollowing(
  path: string,
  bytes: Uint8Array,
  location: string,
): Promise<{ mtimeMs: number }> {
  await makeParents(path, location);
  const { handle, created } = await openWithoutFollowing(path);
  try {
    const opened = await openedLocation(handle, path);
    if (opened !== location) {
      const undo = created && opened !== undefined ? await removeCreated(handle, opened) : '';
      throw new Error(movedMessage(path, location, opened) + undo);
    }
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`Cannot write ${path}: not a file.`);
    if (info.nlink > 1) throw new Error(hardLinkMessage(path, info.nlink));
    await handle.truncate(0);
    await handle.writeFile(bytes);
    return { mtimeMs: (await handle.stat()).mtimeMs };
  } finally {
    await handle.close();
  }
}

async function openWithoutFollowing(
  path: string,
): Promise<{ handle: FileHandle; created: boolean }> {
  // Two rounds: a file or link that appears between the two opens is looked at once more.
  for (let round = 0; ; round++) {
    try {
      return { handle: await open(path, EXISTING), created: false };
    } catch (error) {
      if (errorCode(error) === 'ELOOP' && (await isLink(path))) throw new Error(linkMessage(path));
      if (errorCode(error) !== 'ENOENT')
        throw new Error(`Cannot write ${path}: ${describeError(error)}`);
    }
    try {
      return { handle: await open(path, NEW, 0o666), created: true };
    } catch (error) {
      // EEXIST: O_EXCL does not follow a link either, a dangling one included.
      if (errorCode(error) !== 'EEXIST' || round > 0) {
        if (await isLink(path)) throw new Error(linkMessage(path));
        throw new Error(`Cannot write ${path}: ${describeError(error)}`);
      }
    }
  }
}

/**
 * Creates the missing directories above `path` one by one, each checked to be where the
 * decision expected it (`location`'s directory, level for level), not through a swapped-in link.
 */
async function makeParents(path: string, location: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = dirname(path); !(await isPresent(dir)); dir = dirname(dir)) missing.unshift(dir);
  for (const [index, dir] of missing.entries()) {
    const expected = ancestorOf(location, missing.length - index);
    let made = true;
    try {
      await mkdir(dir);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST')
        throw new Error(`Cannot write ${path}: ${describeError(error)}`);
      made = false;
    }
    const real = await realpath(dir).catch(() => undefined);
    if (real !== expected) {
      if (made && real !== undefined) await rmdir(real).catch(() => undefined);
      throw new Error(movedMessage(dir, expected, real));
    }
  }
}

function ancestorOf(path: string, levels: number): string {
  let ancestor = path;
  for (let level = 0; level < levels; level++) ancestor = dirname(ancestor);
  return ancestor;
}

/** Where the open file is: the kernel's name for it, else its directory's real path + name. */
async function openedLocation(handle: FileHandle, path: string): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    // No /proc (macOS): the name counts only while it still names the very file opened.
  }
  try {
    const named = join(await realpath(dirname(path)), basename(path));
    const [open, found] = await Promise.all([handle.stat(), lstat(named)]);
    return open.dev === found.dev && open.ino === found.ino ? named : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the file this write created at `opened`, if it is still that file; says how it went. */
async function removeCreated(handle: FileHandle, opened: string): Promise<string> {
  try {
    const [open, found] = await Promise.all([handle.stat(), lstat(opened)]);
    if (open.dev !== found.dev || open.ino !== found.ino) return '';
    await unlink(opened);
    return ` The empty file it had created at ${opened} was removed.`;
  } catch (error) {
    return ` The empty file it had created at ${opened} could not be removed: ${describeError(error)}.`;
  }
}

/** Written in place, a file with other names changes under all of them, wherever they are. */
function hardLinkMessage(path: string, names: number): string {
  return `Cannot write ${path}: the file has ${names} hard links (other names, perhaps outside the workspace), and a write would change it under all of them. Nothing was written.`;
}

function movedMessage(path: string, expected: string, actual: string | undefined): string {
  const where = actual === undefined ? 'somewhere it could not locate' : actual;
  return `Cannot write ${path}: it led to ${where} when written, not to ${expected}, where the permission check saw it lead (a directory on the way was replaced, by a symbolic link perhaps). Nothing was written.`;
}

async function isPresent(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function isLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}
