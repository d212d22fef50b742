/**
 * A program on a PATH, found the way a shell finds it: the first directory holding an executable
 * file of one of the names wins. Empty and relative entries are skipped: they would resolve
 * against whatever directory the agent left as the cwd.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function findExecutable(
  pathValue: string | undefined,
  names: readonly string[],
): string | undefined {
  if (!pathValue) return undefined;
  for (const directory of pathValue.split(delimiter)) {
    if (directory === '' || !isAbsolute(directory)) continue;
    for (const name of names) {
      const candidate = join(directory, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
