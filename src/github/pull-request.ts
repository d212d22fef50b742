/**
 * The pull request a run works on, when it works on one: whose branch gets the fix, whether that
 * branch may be pushed to (never to a fork), and which base branch holds the trusted policy.
 * Pull request events carry this in their payload; a `/ci-agent` comment on a pull request only
 * links to it, so the API is asked.
 *
 * And the pull request a run opens for a branch it pushed: its title and body (what it answers:
 * the issue it closes, or who asked for what in which comment), and GitHub's refusal to open it
 * reported as what it is, with the branch, the repository setting and a compare link.
 */
import { errorMessage } from '../util/errors.js';
import type { Octokit } from './authorization.js';
import type { Task } from './task.js';
import { permissionRefusal } from './token-refusals.js';

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

/** GitHub's answer when the repository does not let the workflow's token open pull requests. */
const ACTIONS_MAY_NOT_CREATE = /not permitted to create or approve pull requests/i;

/** The repository setting that governs it, as GitHub's settings page names it. */
export const CREATE_PULL_REQUESTS_SETTING =
  'Allow GitHub Actions to create and approve pull requests';
/** Where the setting is, as the settings pages are laid out. */
export const CREATE_PULL_REQUESTS_PLACE = 'Settings → Actions → General → Workflow permissions';

export interface PullRequestRequest {
  owner: string;
  repo: string;
  serverUrl: string;
  /** The pushed branch, and the branch it is to be merged into. */
  branch: string;
  base: string;
  title: string;
  body: string;
}

export type OpenedPullRequest =
  /** `author`: who the token opened it as (`github-actions[bot]` for GITHUB_TOKEN). */
  | { ok: true; number: number; author: string | undefined }
  /** The branch is pushed but has no pull request: a headline and the details for the report. */
  | {
      ok: false;
      headline: string;
      detail: string;
      /** Links for the report: where to open the pull request by hand, the governing setting. */
      links: { label: string; url: string }[];
    };

/**
 * Opens the pull request for a pushed branch. A refusal is an outcome, not an exception: the
 * branch is on GitHub and the report says how to open the pull request by hand.
 */
export async function openPullRequest(
  octokit: Octokit,
  request: PullRequestRequest,
): Promise<OpenedPullRequest> {
  try {
    const { data } = await octokit.request('POST /repos/{owner}/{repo}/pulls', {
      owner: request.owner,
      repo: request.repo,
      head: request.branch,
      base: request.base,
      title: request.title.slice(0, 250),
      body: request.body,
    });
    return { ok: true, number: data.number, author: data.user?.login };
  } catch (error) {
    const { status, message } = requestFailure(error);
    const compare = `${request.serverUrl}/${request.owner}/${request.repo}/compare/${refInUrl(request.base)}...${refInUrl(request.branch)}?expand=1`;
    const pushed = `the branch \`${request.branch}\` was pushed, but GitHub refused to open the pull request`;
    if (status === 403 && ACTIONS_MAY_NOT_CREATE.test(message)) {
      const settings = `${request.serverUrl}/${request.owner}/${request.repo}/settings/actions`;
      return {
        ok: false,
        headline: `${pushed}: this repository does not let GitHub Actions create pull requests; turn on "${CREATE_PULL_REQUESTS_SETTING}" in ${CREATE_PULL_REQUESTS_PLACE}, or open it by hand`,
        detail: `GitHub answered 403 "${message}" The repository setting "${CREATE_PULL_REQUESTS_SETTING}" (${CREATE_PULL_REQUESTS_PLACE}, ${settings}) governs the job's GITHUB_TOKEN; in an organization's repository it is greyed out until the organization's own setting (the organization's ${CREATE_PULL_REQUESTS_PLACE}) allows it. A GitHub App token passed as github-token is not governed by it. Open the pull request by hand: ${compare}`,
        links: [
          { label: 'Open the pull request by hand', url: compare },
          { label: `the setting “${CREATE_PULL_REQUESTS_SETTING}”`, url: settings },
        ],
      };
    }
    const advice = permissionRefusal(error, [[{ name: 'pull-requests', level: 'write' }]]);
    if (advice) {
      return {
        ok: false,
        headline: `${pushed}: ${advice}`,
        detail: `GitHub answered 403 "${message}": ${advice}. Open the pull request by hand: ${compare}`,
        links: [{ label: 'Open the pull request by hand', url: compare }],
      };
    }
    return {
      ok: false,
      headline: `the branch \`${request.branch}\` was pushed, but the pull request could not be opened (${status === undefined ? '' : `${status} `}${message})`,
      detail: `Open the pull request by hand: ${compare}`,
      links: [{ label: 'Open the pull request by hand', url: compare }],
    };
  }
}

/** A branch name in a URL path: `/` stays (GitHub's compare links keep it), `#`, `?`, `%` are escaped. */
function refInUrl(ref: string): string {
  return encodeURIComponent(ref).replaceAll('%2F', '/');
}

/** The status and GitHub's message of a failed request (Octokit's RequestError), or the error's text. */
function requestFailure(error: unknown): { status: number | undefined; message: string } {
  const failure = error as {
    status?: unknown;
    message?: unknown;
    response?: { data?: { message?: unknown } };
  } | null;
  const status = typeof failure?.status === 'number' ? failure.status : undefined;
  const given = failure?.response?.data?.message;
  const message = typeof given === 'string' ? given : errorMessage(error);
  return { status, message };
}

/** A request written by a person, for the pull request: the first line, at most `max` characters. */
function requestTitle(instruction: string, max = 72): string {
  const line = instruction.split('\n').find((text) => text.trim() !== '') ?? instruction;
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Text shown as it was written: in a fence longer than any run of backticks inside it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

export interface PullRequestSource {
  serverUrl: string;
  owner: string;
  repo: string;
  runId: number;
  runUrl: string;
}

/**
 * The title and body of the pull request a run opens: what it answers (the issue it closes, or
 * the comment that asked for it), the model's summary, and the run. The issue's own text stays
 * out: GitHub shows the referenced issue, and its text is not ours to render.
 */
export function pullRequestText(
  task: Task,
  source: PullRequestSource,
  summary: string,
): { title: string; body: string } {
  const footer = `---\nOpened by ci-agent from [this run](${source.runUrl}).`;
  const text = summary.slice(0, 10_000);
  if (task.kind === 'issue') {
    return {
      title: `Fix #${task.issueNumber}: ${task.title}`,
      body: `Closes #${task.issueNumber}.\n\n${text}\n\n${footer}`,
    };
  }
  if (task.kind === 'comment-command') {
    const comment = `${source.serverUrl}/${source.owner}/${source.repo}/issues/${task.issueNumber}#issuecomment-${task.commentId}`;
    const request = task.instruction.slice(0, 5_000);
    return {
      title: requestTitle(task.instruction),
      body: `Requested by @${task.commentAuthor} in [this comment](${comment}) on #${task.issueNumber}:\n\n${fenced(request)}\n\n${text}\n\n${footer}`,
    };
  }
  return { title: `ci-agent: run ${source.runId}`, body: `${text}\n\n${footer}` };
}
