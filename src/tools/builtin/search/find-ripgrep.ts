/**
 * Locates a ripgrep binary on a PATH, the way a shell would: the first directory holding an
 * executable `rg` wins. The session fills `ToolContext.ripgrepPath` with the result once.
 */
import { findExecutable } from '../../../util/find-executable.js';

export function findRipgrep(
  pathValue: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string | null {
  const names = platform === 'win32' ? ['rg.exe', 'rg.cmd', 'rg'] : ['rg'];
  return findExecutable(pathValue, names) ?? null;
}
