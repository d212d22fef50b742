/** Small helpers shared by the policy file and the settings file parsers. */
import { isAbsolute, join, resolve } from 'node:path';

/**
 * An additional directory as written in a source: `~` and `~/…` from the home directory (when
 * known), relative paths from the source's anchor directory, absolute paths as they are.
 */
export function resolveDirectory(dir: string, anchorDir: string, home: string | undefined): string {
  if (home !== undefined && (dir === '~' || dir.startsWith('~/'))) return join(home, dir.slice(1));
  return isAbsolute(dir) ? resolve(dir) : resolve(anchorDir, dir);
}
