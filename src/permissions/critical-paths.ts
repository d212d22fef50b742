/**
 * Removals nothing approves in CI, not even bypassPermissions (docs/CC-COMPAT.md §2.4, "Critical-path
 * rm"): `rm`, `rmdir` or `unlink` of `/`, a top-level directory (`/usr`, `/home`), the home
 * directory, the project directory or one of its parents, or everything in a directory known only
 * at run time (`rm -rf "$DIR"/*`, which is `rm -rf /*` when DIR is empty). Claude Code asks a
 * person even in its bypass mode; in CI nobody can answer, so the call is refused.
 */
import { posix } from 'node:path';
import type { FileOperand } from '../tools/tool.js';
import { isInside } from '../tools/paths.js';

export interface CriticalAnchors {
  projectDir: string | undefined;
  homeDir: string | undefined;
}

/** The critical targets among a command's removals. */
export function criticalRemovals(
  operands: readonly FileOperand[],
  anchors: CriticalAnchors,
): string[] {
  return operands
    .filter((operand) => operand.removes && isCritical(operand, anchors))
    .map((operand) => operand.path);
}

function isCritical(operand: FileOperand, { projectDir, homeDir }: CriticalAnchors): boolean {
  const path = posix.normalize(operand.path).replace(/(.)\/+$/, '$1');
  if (operand.pattern) {
    // `/*`, `~/*`: every entry of the root or the home directory.
    const base = posix.dirname(path);
    return /^[*?]+$/.test(posix.basename(path)) && (base === '/' || base === homeDir);
  }
  if (path === '/' || path.split('/').filter(Boolean).length === 1) return true;
  if (homeDir !== undefined && path === posix.normalize(homeDir)) return true;
  return projectDir !== undefined && isInside(projectDir, path);
}
