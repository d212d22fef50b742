/**
 * Path handling shared by the file tools. Paths from the model are expected absolute; a relative
 * one is taken against the project directory, `~` against the home directory. Symlinks are
 * resolved for the workspace check (docs/DECISIONS.md #12): a link inside pointing outside is outside,
 * dangling or not.
 */
import { readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export function expandPath(filePath: string, baseDir: string): string {
  if (filePath === '~') return homedir();
  if (filePath.startsWith('~/')) return join(homedir(), filePath.slice(2));
  return isAbsolute(filePath) ? resolve(filePath) : resolve(baseDir, filePath);
}

/** More links than this on one path is a loop; the kernel gives up at 40 as well (ELOOP). */
const MAX_LINKS = 40;

/**
 * Where a path really leads, whether or not it exists yet: each component is looked at in turn
 * and every symbolic link followed, a dangling one too (a write to it would create its target).
 * From the first component that does not exist the rest is appended as given. A loop stops the
 * resolution where it is; opening such a path fails anyway.
 */
export function realPathOf(absolutePath: string): string {
  let pending = components(absolutePath);
  let resolved: string = sep;
  let links = 0;
  while (pending.length > 0) {
    const [name, ...rest] = pending as [string, ...string[]];
    if (name === '..') {
      resolved = dirname(resolved);
      pending = rest;
      continue;
    }
    const next = join(resolved, name);
    const entry = entryAt(next);
    if (entry === 'missing') return resolve(next, ...rest);
    if (entry === 'plain') {
      resolved = next;
      pending = rest;
      continue;
    }
    if (++links > MAX_LINKS) return resolve(next, ...rest);
    if (isAbsolute(entry.link)) resolved = sep;
    pending = [...components(entry.link), ...rest];
  }
  return resolved;
}

function components(path: string): string[] {
  return path.split(sep).filter((part) => part !== '' && part !== '.');
}

/** What is at `path`: a link (with its target), something else, or nothing that can be seen. */
function entryAt(path: string): { link: string } | 'plain' | 'missing' {
  try {
    return { link: readlinkSync(path) };
  } catch (error) {
    // EINVAL: it exists and is not a link. Anything else (ENOENT, ENOTDIR, EACCES): look no further.
    return (error as NodeJS.ErrnoException).code === 'EINVAL' ? 'plain' : 'missing';
  }
}

export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether the path, and its symlink-resolved target, are inside one of the roots. */
export function isInsideWorkspace(absolutePath: string, roots: readonly string[]): boolean {
  const real = realPathOf(absolutePath);
  return (
    roots.some((root) => isInside(absolutePath, root)) && roots.some((root) => isInside(real, root))
  );
}

/** Both the path as given and its resolved target, deduplicated, for permission checks. */
export function permissionPaths(absolutePath: string): string[] {
  const real = realPathOf(absolutePath);
  return real === absolutePath ? [absolutePath] : [absolutePath, real];
}
