/**
 * Paths no rule, hook or mode but bypassPermissions lets a tool change (docs/CC-COMPAT.md §2.7): the
 * directories and files that make programs run or configure the tools that judge the agent —
 * `.git` (hooks, config), `.claude` (settings, hooks), `.husky`, editor and container configs,
 * shell start-up files, `.npmrc`, `.mcp.json`. Claude Code asks a person before such a write; in
 * CI nobody can answer, and a blanket ask answer (`onAsk: allow`) is not taken as one: the write
 * is refused (docs/POLICY.md, "Protected paths").
 */
import { relative, sep } from 'node:path';
import { isInside } from '../tools/paths.js';

/** Directories whose contents are protected wherever they appear in a path. */
const PROTECTED_DIRECTORIES = new Set([
  '.git',
  '.claude',
  '.vscode',
  '.idea',
  '.husky',
  '.devcontainer',
]);

/** Files protected by name wherever they are. */
const PROTECTED_FILES = new Set([
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.npmrc',
  '.ripgreprc',
  '.mcp.json',
  '.claude.json',
]);

/** Where Claude Code lets its own worktrees be written (`.claude/worktrees/…`). */
const EXEMPT_UNDER_CLAUDE = 'worktrees';

/**
 * The protected ones among `paths` (absolute). A path is read from the workspace root it is in,
 * so a protected name above the workspace does not count; names compare case-insensitively, as
 * they do on case-insensitive file systems.
 */
export function protectedPaths(paths: readonly string[], roots: readonly string[]): string[] {
  return paths.filter((path) => isProtected(segmentsOf(path, roots)));
}

function segmentsOf(path: string, roots: readonly string[]): string[] {
  const root = roots.find((candidate) => isInside(path, candidate));
  const shown = root === undefined ? path : relative(root, path);
  return shown
    .split(sep)
    .filter((segment) => segment !== '' && segment !== '.')
    .map((segment) => segment.toLowerCase());
}

function isProtected(segments: readonly string[]): boolean {
  const last = segments.at(-1);
  if (last !== undefined && PROTECTED_FILES.has(last)) return true;
  return segments.some(
    (segment, index) =>
      PROTECTED_DIRECTORIES.has(segment) &&
      !(segment === '.claude' && segments[index + 1] === EXEMPT_UNDER_CLAUDE),
  );
}
