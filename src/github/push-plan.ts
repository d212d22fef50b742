/**
 * Whether the run's commit may be pushed as it is: a commit that changes CI itself (a workflow,
 * an action of the repository, the policy the agent runs under, or the Claude Code configuration
 * it reads: `.claude/` and `.mcp.json`, whose hooks and servers judge the next run) is held back
 * unless the trusted
 * policy says `push.allowCiChanges: true`. The judges floor already refuses the agent's own edits
 * to these paths through its tools, but a Bash command or a test script can still write them, so
 * the check is on the commit.
 *
 * What is held back is the whole push, not just those files: a commit without part of its change
 * could be broken or mean something else, and the patch in the artifact has all of it.
 */
import picomatch from 'picomatch';
import { DEFAULT_POLICY_PATHS } from '../policy/load-policy.js';
import type { PushPolicy } from '../policy/types.js';
import type { Git } from './git.js';

/** The policy setting that lets such a commit through, as docs/POLICY.md names it. */
export const ALLOW_CI_CHANGES = 'push.allowCiChanges';

export interface HeldBack {
  /** The CI paths the commit adds, changes, deletes or renames, repository-relative. */
  paths: string[];
  /** A short clause for the headline. */
  headline: string;
  /** What was held back and why, naming the paths and the setting; for the report and the log. */
  detail: string;
}

/**
 * The patterns of CI paths. `.github` itself and the two directories match too: a commit that
 * puts a file or a symbolic link in their place changes what GitHub runs as well.
 */
export function ciPathPatterns(policyInput: string): string[] {
  const policies = policyInput === DEFAULT_POLICY_PATHS[0] ? DEFAULT_POLICY_PATHS : [policyInput];
  return [
    '.github',
    '.github/workflows',
    '.github/workflows/**',
    '.github/actions',
    '.github/actions/**',
    '.claude',
    '.claude/**',
    '.mcp.json',
    ...policies,
  ];
}

/** The CI paths among `paths` (repository-relative, as git names them). */
export function ciPaths(paths: readonly string[], policyInput: string): string[] {
  // Case-insensitively: on a checkout on macOS or Windows `.GitHub/workflows` is the same folder.
  const isCi = picomatch(ciPathPatterns(policyInput), {
    dot: true,
    nocase: true,
    // Claude Code's worktrees are checkouts the agent works in, not configuration (judges.ts).
    ignore: ['.claude/worktrees/**'],
  });
  return paths.filter((path) => isCi(path));
}

/**
 * Every path the commits `from..to` touch, both sides of a rename included: `--no-renames`
 * lists a file moved out of `.github/workflows` as a deletion there.
 */
export async function touchedPaths(git: Git, from: string, to: string): Promise<string[]> {
  const out = await git.run(['diff', '--name-only', '--no-renames', '-z', from, to]);
  return out.split('\0').filter(Boolean);
}

/**
 * What to hold back of the commit `from..to`: undefined when it may be pushed (no CI path, or
 * the policy allows CI changes).
 */
export async function heldBackCiChanges(
  git: Git,
  range: { from: string; to: string },
  options: { policyInput: string; push: Readonly<PushPolicy> },
): Promise<HeldBack | undefined> {
  if (options.push.allowCiChanges) return undefined;
  const paths = ciPaths(await touchedPaths(git, range.from, range.to), options.policyInput);
  if (paths.length === 0) return undefined;
  const listed =
    paths.slice(0, 20).join(', ') + (paths.length > 20 ? ` and ${paths.length - 20} more` : '');
  return {
    paths,
    headline: 'nothing was pushed: the commit changes CI files, which the policy does not allow',
    detail: `Held back: the commit changes ${listed}. Changes to workflows, actions and what configures the agent (the policy file, .claude/, .mcp.json) are pushed only when the policy says so (${ALLOW_CI_CHANGES}: true in ${options.policyInput}); nothing was pushed, and the whole patch is in the artifact.`,
  };
}
