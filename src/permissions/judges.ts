/**
 * What judges the run (docs/DECISIONS.md #18): the files that decide what the agent may do, or that run
 * with the repository's secrets after it. None of them is the agent's to change, in any mode:
 *
 *   - in every workspace root: `.claude/` (settings, hooks, agents, commands), `.mcp.json`,
 *     `.github/ci-agent.yml` / `.yaml` (the default policy file), `.github/workflows/**` and
 *     `.github/actions/**` (the CI that runs with the repository's secrets);
 *   - the files this run was configured from, wherever they are (`PermissionPolicy.judgePaths`):
 *     the policy file, every settings file read, and every script a configured hook runs,
 *     resolved when the run starts.
 *
 * Claude Code's worktrees (`.claude/worktrees/…`) are the one exception under `.claude`: they are
 * checkouts the agent works in, not configuration.
 */
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import type { FileOperand } from '../tools/tool.js';
import { isInside } from '../tools/paths.js';

/** Relative to a workspace root; compared in lower case. */
const JUDGE_DIRECTORIES = ['.claude', '.github/workflows', '.github/actions'];
/** The policy loader's default names (policy/load-policy.ts) are all here. */
const JUDGE_FILES = [
  '.mcp.json',
  ...['.github/ci-agent.yml', '.github/ci-agent.yaml', '.github/ci-agent.json'],
];
const EXEMPT = '.claude/worktrees';
/** Every judge location in a workspace root, relative to it (what the sandbox also keeps read-only). */
export const JUDGES_IN_ROOT: readonly string[] = [...JUDGE_DIRECTORIES, ...JUDGE_FILES];

/**
 * The judges a change to `written` would touch. A written operand stands for: its path; for a
 * pattern, every judge location it could match (`rm -rf .cl*` reaches `.claude`); and every
 * judge location inside it, since removing or replacing a directory changes what it holds
 * (`rm -rf .github`). Both a link and its target should be given.
 */
export function judgesWritten(
  written: readonly FileOperand[],
  roots: readonly string[],
  judgeFiles: readonly string[] = [],
): string[] {
  const locations = [
    ...roots.flatMap((root) => JUDGES_IN_ROOT.map((name) => join(root, name))),
    ...judgeFiles,
  ];
  const candidates = written.flatMap((operand) => {
    const matches = operand.pattern && picomatch(operand.path, { dot: operand.pattern.dot });
    const matched = matches ? locations.filter((path) => matches(path)) : [];
    const rootOrAbove = roots.some((root) => isInside(root, operand.path));
    const within = rootOrAbove ? [] : locations.filter((path) => isInside(path, operand.path));
    return [operand.path, ...matched, ...within];
  });
  return [
    ...new Set(
      candidates.filter(
        (path) =>
          judgeFiles.some((file) => isInside(path, file)) ||
          roots.some((root) => isInside(path, root) && isJudgeInRoot(relative(root, path))),
      ),
    ),
  ];
}

function isJudgeInRoot(relativePath: string): boolean {
  const shown = relativePath.split(sep).join('/').toLowerCase();
  if (shown === '') return false;
  if (JUDGE_FILES.includes(shown)) return true;
  if (shown === EXEMPT || shown.startsWith(`${EXEMPT}/`)) return false;
  return JUDGE_DIRECTORIES.some(
    (directory) => shown === directory || shown.startsWith(`${directory}/`),
  );
}
