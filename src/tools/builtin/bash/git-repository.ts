/**
 * Which repository git would use when started in a directory, for the read-only classification:
 * a read-only git command is auto-allowed only where that is the workspace's own repository,
 * because a repository's configuration can name programs git runs (fsmonitor, diff and textconv
 * drivers, pagers, gpg) and a directory in the workspace can be laid out as one.
 *
 * The walk is git's discovery, widened so that it never misses what git would take: from the
 * directory up to `/`, the first directory with a `.git` entry of any kind (directory, gitfile,
 * symlink, even an invalid one), or that itself holds `HEAD` next to `objects`, `refs` or
 * `commondir` (a bare layout). git needs at least that much, so where git finds a repository
 * this walk finds it too, or one below it.
 */
import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { realPathOf } from '../../paths.js';

/** The real path of the repository's `.git` entry or bare directory; undefined: none found. */
export function gitRepositoryAt(directory: string): string | undefined {
  for (let current = directory; ; current = dirname(current)) {
    const dotGit = join(current, '.git');
    if (exists(dotGit)) return realPathOf(dotGit);
    if (looksLikeGitDirectory(current)) return realPathOf(current);
    if (dirname(current) === current) return undefined;
  }
}

/**
 * Whether git started in `cwd` finds no repository, or the one it would find from a workspace
 * root (the project's own checkout, or the repository an additional directory belongs to).
 */
export function isWorkspaceRepository(cwd: string, roots: readonly string[]): boolean {
  const found = gitRepositoryAt(cwd);
  return found === undefined || roots.some((root) => gitRepositoryAt(root) === found);
}

function looksLikeGitDirectory(directory: string): boolean {
  return (
    exists(join(directory, 'HEAD')) &&
    ['objects', 'refs', 'commondir'].some((name) => exists(join(directory, name)))
  );
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
