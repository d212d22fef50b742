/**
 * The pull request a run works on, when it works on one: whose branch gets the fix, whether that
 * branch may be pushed to (never to a fork), and which base branch holds the trusted policy.
 * Pull request events carry this in their payload; a `/ci-agent` comment on a pull request only
 * links to it, so the API is asked.
 */
import type { Octokit } from './authorization.js';
import type { Task } from './task.js';

export interface PullRequestBranch {
  number: number;
  headRef: string;
  baseRef: string;
  /** From another repository (or a deleted one): nothing is pushed, the report has the patch. */
  isFork: boolean;
}

/** The pull request of a pull-request task, from the event; undefined for other tasks. */
export function pullRequestOfTask(task: Task): PullRequestBranch | undefined {
  if (task.kind !== 'pr-tests' && task.kind !== 'pr-fix-failed-run') return undefined;
  return {
    number: task.prNumber,
    headRef: task.headRef,
    baseRef: task.baseRef,
    isFork: task.isFork,
  };
}

/** A pull request looked up by number (for a comment on it). */
export async function fetchPullRequest(
  octokit: Octokit,
  target: { owner: string; repo: string; number: number },
): Promise<PullRequestBranch> {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
    owner: target.owner,
    repo: target.repo,
    pull_number: target.number,
  });
  const here = `${target.owner}/${target.repo}`.toLowerCase();
  return {
    number: data.number,
    headRef: data.head.ref,
    baseRef: data.base.ref,
    isFork: data.head.repo?.full_name.toLowerCase() !== here,
  };
}
