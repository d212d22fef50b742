/**
 * What the action's entry starts before it loads the rest of the bundle: the workspace's git
 * state for the system prompt. The two git processes run on another core while this one compiles
 * the bundle, instead of after it, on the way to the first model request
 * (docs/ARCHITECTURE.md, "Start-up").
 *
 * Only a run whose task works on the commit checked out uses it (checkout-state.ts); any other
 * run reads the state again after its checkout, and this answer is dropped unread.
 */
import { readGitOutput } from '../agent/git-state.js';
import type { GitOutput } from '../agent/git-state.js';

let prefetched: { cwd: string; output: Promise<GitOutput> } | undefined;

export function prefetchGitOutput(cwd: string): void {
  prefetched = { cwd, output: readGitOutput(cwd) };
}

/** The state started for `cwd`, once: a second read must see the checkout as it is then. */
export function takePrefetchedGitOutput(cwd: string): Promise<GitOutput> | undefined {
  if (prefetched?.cwd !== cwd) return undefined;
  const { output } = prefetched;
  prefetched = undefined;
  return output;
}
