/**
 * What the run reads from the checkout before the agent starts: the repository's state for the
 * system prompt (whose HEAD is also the base the agent's changes are measured against) and the
 * policy. For a task that works on HEAD (a labelled issue, a prompt, a comment on an issue), the
 * action starts reading it while the permission check is still in flight: the checkout only gains
 * a branch at the same commit before the agent runs, so nothing read here changes but the
 * branch's name (`onBranch`).
 */
import { gatherEnvironment } from '../agent/system-prompt.js';
import type { EnvironmentInfo } from '../agent/system-prompt.js';
import { loadPolicy } from '../policy/load-policy.js';
import type { LoadedPolicy } from '../policy/types.js';
import type { Task } from './task.js';

export interface CheckoutState {
  environment: EnvironmentInfo;
  policy: LoadedPolicy;
  baseSha: string;
}

/** The policy input's default is found by the loader itself (.yml, .yaml or .json). */
const DEFAULT_POLICY = '.github/ci-agent.yml';

/** The policy as the checkout has it (the input names it; its default is the loader's). */
export function loadCheckoutPolicy(workspace: string, policyInput: string): Promise<LoadedPolicy> {
  return loadPolicy({
    projectDir: workspace,
    policyPath: policyInput === DEFAULT_POLICY ? undefined : policyInput,
  });
}

/** `policy`: the same policy already being read (the sandbox starts from it alone). */
export async function readCheckoutState(
  workspace: string,
  policyInput: string,
  policy: Promise<LoadedPolicy> = loadCheckoutPolicy(workspace, policyInput),
): Promise<CheckoutState> {
  const [environment, loaded] = await Promise.all([gatherEnvironment(workspace), policy]);
  const baseSha = environment.git?.headSha;
  if (baseSha === undefined) {
    throw new Error(`the workspace ${workspace} is not a git checkout with a commit`);
  }
  return { environment, policy: loaded, baseSha };
}

/** Whether the task works on the commit checked out (no other branch, no trusted config). */
export function worksOnHead(task: Task): boolean {
  switch (task.kind) {
    case 'issue':
      return true;
    case 'prompt':
      return task.baseRef === undefined;
    case 'comment-command':
      return !task.isPullRequest;
    case 'pr-tests':
    case 'pr-fix-failed-run':
      return false;
  }
}

/** The state read before the branch was created, with that branch's name. */
export function onBranch(state: CheckoutState, branch: string | undefined): CheckoutState {
  const git = state.environment.git;
  if (git === undefined || branch === undefined) return state;
  return { ...state, environment: { ...state.environment, git: { ...git, branch } } };
}

/**
 * Starts `work` now and hands back a function that waits for it: a failure surfaces when it is
 * waited for (inside the run's error handling), never as an unhandled rejection before.
 */
export function startEarly<T>(work: Promise<T>): () => Promise<T> {
  const settled = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return async () => {
    const outcome = await settled;
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };
}
