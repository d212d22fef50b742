/**
 * Path handling shared by the file tools. Paths from the model are expected absolute; a relative
 * one is taken against the project directory, `~` against the home directory. Symlinks are
 * resolved for the workspace check (DECISIONS #12): a link inside pointing outside is outside.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export function expandPath(filePath: string, baseDir: string): string {
  if (filePath === '~') return homedir();
  if (filePath.startsWith('~/')) return join(homedir(), filePath.slice(2));
  return isAbsolute(filePath) ? resolve(filePath) : resolve(baseDir, filePath);
}

/**
 * The real location of a path that may not exist yet: the longest existing ancestor is resolved
 * through symlinks and the rest appended.
 */
export function realPathOf(absolutePath: string): string {
  let existing = absolutePath;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolutePath;
      rest.push(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      existing = parent;
    }
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
