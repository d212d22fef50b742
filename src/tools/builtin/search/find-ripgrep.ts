/**
 * Locates a ripgrep binary on a PATH, the way a shell would: the first directory holding an
 * executable `rg` wins. The session fills `ToolContext.ripgrepPath` with the result once.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function findRipgrep(
  pathValue: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (!pathValue) return null;
  const names = platform === 'win32' ? ['rg.exe', 'rg.cmd', 'rg'] : ['rg'];
  for (const directory of pathValue.split(delimiter)) {
    // An empty or relative entry would resolve against whatever cwd the agent has: skip it.
    if (directory === '' || !isAbsolute(directory)) continue;
    for (const name of names) {
      const candidate = join(directory, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
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
