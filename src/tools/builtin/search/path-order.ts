/**
 * Orders for result lists. `comparePaths` is ripgrep's `--sort path` order: each directory's
 * entries by name, depth first — the same as comparing whole paths with `/` sorting before
 * every other character. Listings by modification time put the newest first and break ties
 * with that order, so equal times still give one answer.
 */
import { stat } from 'node:fs/promises';

const SLASH = 47;

export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    if (left === SLASH) return -1;
    if (right === SLASH) return 1;
    return left - right;
  }
  return a.length - b.length;
}

/** Newest first; a path that can no longer be read sorts as oldest. */
export async function sortByModificationTime(paths: readonly string[]): Promise<string[]> {
  const stamped = await Promise.all(
    paths.map(async (path) => ({
      path,
      mtimeMs: await stat(path).then(
        (info) => info.mtimeMs,
        () => 0,
      ),
    })),
  );
  stamped.sort((a, b) => b.mtimeMs - a.mtimeMs || comparePaths(a.path, b.path));
  return stamped.map((entry) => entry.path);
}
