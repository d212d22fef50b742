/**
 * On a pull request the checkout holds the PR author's files, and the agent's policy must not be
 * among them: an author could allow their own tools or rewrite the hooks that judge their PR.
 * Before the run, every configuration path in the working tree is replaced by its version on the
 * trusted ref (the base branch), or removed when that ref does not have it; the policy is loaded
 * from there and hooks run from there. Only the working tree changes, never the index, and after
 * the run `restoreHeadConfig` puts the head's versions back, so the agent's commit neither
 * reverts nor carries them.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchRef } from './git.js';
import type { Git, RemoteAccess } from './git.js';

/** What configures the agent: the policy, Claude Code settings and hooks, MCP servers, memory files. */
export const CONFIG_PATHS = [
  '.github/ci-agent.yml',
  '.github/ci-agent.yaml',
  '.github/ci-agent.json',
  '.claude',
  '.mcp.json',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'AGENTS.md',
] as const;

export interface TrustedConfig {
  /** The commit the configuration comes from. */
  commit: string;
  /** Paths taken from the trusted commit. */
  restored: string[];
  /** Paths the head has and the trusted commit does not: removed for the run. */
  removed: string[];
  paths: string[];
}

/**
 * Fetches `ref` from `remote` (with the run's token when given: fetchRef) and makes every
 * configuration path (plus `extraPaths`, such as a policy file named by an input) match it in
 * the working tree.
 */
export async function useTrustedConfig(
  git: Git,
  root: string,
  ref: string,
  options: { access?: RemoteAccess; extraPaths?: readonly string[] } = {},
): Promise<TrustedConfig> {
  await fetchRef(git, { ...options.access, ref: `refs/heads/${ref}`, depth: 1 });
  const commit = (await git.run(['rev-parse', 'FETCH_HEAD'])).trim();
  const paths = [...new Set([...CONFIG_PATHS, ...(options.extraPaths ?? [])])];
  const [inTrusted, inHead] = await Promise.all([
    existing(git, commit, paths),
    existing(git, 'HEAD', paths),
  ]);
  for (const path of paths) await rm(join(root, path), { recursive: true, force: true });
  const restored = paths.filter((path) => inTrusted.has(path));
  if (restored.length > 0) {
    await git.run(['restore', `--source=${commit}`, '--worktree', '--', ...restored]);
  }
  const removed = paths.filter((path) => !inTrusted.has(path) && inHead.has(path));
  return { commit, restored, removed, paths };
}

/** Puts the head's configuration back into the working tree (before committing the agent's work). */
export async function restoreHeadConfig(
  git: Git,
  root: string,
  trusted: TrustedConfig,
): Promise<void> {
  const inHead = await existing(git, 'HEAD', trusted.paths);
  for (const path of trusted.paths) await rm(join(root, path), { recursive: true, force: true });
  const back = trusted.paths.filter((path) => inHead.has(path));
  if (back.length > 0) await git.run(['restore', '--source=HEAD', '--worktree', '--', ...back]);
}

/** Which of `paths` the commit has (one `git ls-tree` for all of them). */
async function existing(git: Git, commit: string, paths: readonly string[]): Promise<Set<string>> {
  const listed = await git.run(['ls-tree', '--name-only', '-z', commit, '--', ...paths]);
  return new Set(listed.split('\0').filter(Boolean));
}
