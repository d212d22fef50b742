/**
 * The event that started the job → the task for this run, or a skip with its reason.
 *
 * 1. readEventContext: @actions/github's Context (the runner's GITHUB_* variables and the payload
 *    file at GITHUB_EVENT_PATH), checked
 * 2. deriveTask (pure): the `prompt` input wins on any event; otherwise the event decides — a
 *    labelled issue, a pull request's tests, a failed workflow run on a PR, a `/ci-agent` comment
 *    An event the workflow cannot have meant to do nothing on (workflow_dispatch without a prompt,
 *    pull_request without a test command) is an InputError: the step fails instead of a skip
 * 3. the caller logs a skip, and checks the actor (authorization.ts) only for a task, so a skip
 *    costs no API call
 */
import { context as jobContext } from '@actions/github';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import {
  commonPayload,
  issueCommentPayload,
  issuesPayload,
  parsePayload,
  pullRequestPayload,
  workflowRunPayload,
} from './event-payloads.js';
import { subjectOf } from './subject.js';
import { InputError } from './inputs.js';
import type { ActionInputs } from './inputs.js';
import type { Skip, Task } from './task.js';
import { COMMIT_TRAILER, isCiAgentCommit } from './git.js';
import { withRunnerEnv } from './runner-env.js';

export interface Actor {
  login: string;
  /** `User`, `Bot`, `Organization` as the payload's sender says; undefined without a sender. */
  type: string | undefined;
}

export interface GitHubEvent {
  name: string;
  /** The webhook payload as parsed JSON; deriveTask validates the parts it reads. */
  payload: unknown;
  owner: string;
  repo: string;
  /** The payload's repository.default_branch; for events without one (schedule), GITHUB_REF's branch. */
  defaultBranch: string | undefined;
  actor: Actor;
  runId: number;
  runUrl: string;
  serverUrl: string;
  apiUrl: string;
  sha: string;
  ref: string;
}

export type Environment = Readonly<Record<string, string | undefined>>;

type Context = typeof jobContext;
/** The package exports its Context instance, built from process.env at load, but not the class. */
const ContextOf = jobContext.constructor as new () => Context;

/** The job's environment lacks what every Actions runner provides. */
export class RunnerEnvironmentError extends Error {
  override readonly name = 'RunnerEnvironmentError';
}

function required(env: Environment, name: string): string {
  const value = env[name];
  if (!value) {
    throw new RunnerEnvironmentError(
      `${name} is not set: ci-agent's action runs as a step of a GitHub Actions job (elsewhere, use the ci-agent CLI)`,
    );
  }
  return value;
}

/**
 * Reads the runner's description of the event with @actions/github's Context, for `env` (see
 * withRunnerEnv); throws RunnerEnvironmentError when it is incomplete. Context leaves a missing
 * event file at an empty payload with a line on stdout; here it is an error that names the file.
 */
export async function readEventContext(env: Environment = process.env): Promise<GitHubEvent> {
  required(env, 'GITHUB_EVENT_NAME');
  const eventPath = required(env, 'GITHUB_EVENT_PATH');
  const repository = required(env, 'GITHUB_REPOSITORY');
  // Context splits owner/name without checking it; a job's GITHUB_REPOSITORY is exactly that.
  const parts = repository.split('/');
  if (parts.length !== 2 || parts.some((part) => part === '')) {
    throw new RunnerEnvironmentError(
      `GITHUB_REPOSITORY: expected owner/name, got ${JSON.stringify(repository)}`,
    );
  }
  let context: Context;
  let owner: string;
  let repo: string;
  try {
    await access(eventPath, constants.R_OK);
    // `repo` reads GITHUB_REPOSITORY when asked, so it is asked inside the same call.
    ({ context, owner, repo } = withRunnerEnv(env, () => {
      const built = new ContextOf();
      return { context: built, ...built.repo };
    }));
  } catch (error) {
    const why = error instanceof SyntaxError ? 'it is not JSON' : 'it cannot be read';
    throw new RunnerEnvironmentError(
      `GITHUB_EVENT_PATH: ${why} (${eventPath}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const name = context.eventName;
  const payload: unknown = context.payload;
  const common = parsePayload(name, commonPayload, payload);
  const ref = context.ref ?? '';
  const serverUrl = (context.serverUrl || 'https://github.com').replace(/\/+$/, '');
  const runId = context.runId;
  if (!Number.isSafeInteger(runId) || runId <= 0) {
    throw new RunnerEnvironmentError(
      `GITHUB_RUN_ID: expected the run's number, got ${JSON.stringify(env.GITHUB_RUN_ID ?? '')}`,
    );
  }
  return {
    name,
    payload,
    owner,
    repo,
    defaultBranch:
      common.repository?.default_branch ??
      (ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined),
    actor: {
      login: common.sender?.login ?? (context.actor || required(env, 'GITHUB_ACTOR')),
      type: common.sender?.type,
    },
    runId,
    runUrl: `${serverUrl}/${owner}/${repo}/actions/runs/${runId}`,
    serverUrl,
    apiUrl: (context.apiUrl || 'https://api.github.com').replace(/\/+$/, ''),
    sha: context.sha ?? '',
    ref,
  };
}

export type TaskInputs = Pick<
  ActionInputs,
  'prompt' | 'triggerLabel' | 'testCommand' | 'branchPrefix'
>;

/** The command a comment must start with, followed by the instruction. */
export const COMMENT_COMMAND = '/ci-agent';

const PULL_REQUEST_ACTIONS = ['opened', 'synchronize', 'reopened'];

const skip = (reason: string): Skip => ({ kind: 'skip', reason });

/**
 * The task the event asks for, or why there is none. Throws EventPayloadError on a bad payload,
 * and InputError when the inputs cannot give the event a task (the step fails, naming the input).
 */
export function deriveTask(event: GitHubEvent, inputs: TaskInputs): Task | Skip {
  if (inputs.prompt !== undefined) {
    const subject = subjectOf(event.name, event.payload);
    return {
      kind: 'prompt',
      prompt: inputs.prompt,
      subject: subject?.subject,
      baseRef: subject?.baseRef,
      defaultBranch: defaultBranchOf(event),
    };
  }
  switch (event.name) {
    case 'issues':
      return issueTask(event, inputs);
    case 'pull_request':
      return pullRequestTask(event, inputs);
    case 'workflow_run':
      return failedRunTask(event);
    case 'issue_comment':
      return commentTask(event);
    case 'workflow_dispatch':
      // A run started by hand that does nothing is a broken workflow, not an event to let pass.
      throw new InputError([
        'prompt: a workflow_dispatch run needs the prompt input, e.g. prompt: ${{ inputs.prompt }}; got nothing',
      ]);
    default:
      return skip(
        `the ${event.name} event is not one ci-agent acts on by itself (issues, pull_request, workflow_run, issue_comment); set the prompt input to run on it`,
      );
  }
}

function defaultBranchOf(event: GitHubEvent): string {
  if (event.defaultBranch) return event.defaultBranch;
  throw new RunnerEnvironmentError(
    `cannot tell the default branch: the ${event.name} payload has no repository.default_branch and GITHUB_REF (${JSON.stringify(event.ref)}) is not a branch`,
  );
}

function issueTask(event: GitHubEvent, inputs: TaskInputs): Task | Skip {
  const payload = parsePayload(event.name, issuesPayload, event.payload);
  const { issue } = payload;
  if (payload.action !== 'labeled') {
    return skip(
      `issues event "${payload.action}" on #${issue.number}: ci-agent starts on "labeled" with the label "${inputs.triggerLabel}"`,
    );
  }
  const label = payload.label?.name ?? '';
  // GitHub label names are unique regardless of case, so "CI-Agent" is the same label.
  if (label.toLowerCase() !== inputs.triggerLabel.toLowerCase()) {
    return skip(`label "${label}" is not the trigger label "${inputs.triggerLabel}"`);
  }
  const base = payload.repository.default_branch;
  return {
    kind: 'issue',
    issueNumber: issue.number,
    title: issue.title,
    body: issue.body ?? '',
    author: issue.user?.login ?? '',
    branch: `${inputs.branchPrefix}issue-${issue.number}`,
    base,
    defaultBranch: base,
  };
}

function pullRequestTask(event: GitHubEvent, inputs: TaskInputs): Task | Skip {
  const payload = parsePayload(event.name, pullRequestPayload, event.payload);
  const pr = payload.pull_request;
  if (!PULL_REQUEST_ACTIONS.includes(payload.action)) {
    return skip(
      `pull_request event "${payload.action}" on #${pr.number}: ci-agent runs the tests on ${PULL_REQUEST_ACTIONS.join(', ')}`,
    );
  }
  if (inputs.testCommand === undefined) {
    // On a pull request the action does nothing else: without a command the workflow is wrong.
    throw new InputError([
      `test-command: a pull_request run (#${pr.number}) needs the test-command input, a shell command such as "npm test" (or set prompt); got nothing`,
    ]);
  }
  const headRepoFullName = pr.head.repo?.full_name ?? '';
  return {
    kind: 'pr-tests',
    prNumber: pr.number,
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    headRepoFullName,
    baseRef: pr.base.ref,
    isFork: !sameRepository(headRepoFullName, pr.base.repo?.full_name ?? ''),
    testCommand: inputs.testCommand,
    defaultBranch: payload.repository.default_branch,
  };
}

function sameRepository(a: string, b: string): boolean {
  return a !== '' && a.toLowerCase() === b.toLowerCase();
}

function failedRunTask(event: GitHubEvent): Task | Skip {
  const payload = parsePayload(event.name, workflowRunPayload, event.payload);
  const run = payload.workflow_run;
  const workflowName = run.name || payload.workflow?.name || `run ${run.id}`;
  if (payload.action !== 'completed') {
    return skip(
      `workflow_run event "${payload.action}" for "${workflowName}": ci-agent acts when a run has completed with a failure`,
    );
  }
  if (run.conclusion !== 'failure') {
    return skip(
      `workflow run "${workflowName}" (${run.id}) concluded ${run.conclusion ?? 'with no conclusion'}: ci-agent fixes failed runs only`,
    );
  }
  if (run.head_commit && isCiAgentCommit(run.head_commit.message)) {
    return skip(
      `workflow run "${workflowName}" (${run.id}) failed on a commit ci-agent made (${COMMIT_TRAILER}): it does not fix its own fix again, which could loop; the failure needs a person`,
    );
  }
  // GitHub fills pull_requests only with PRs whose head is in this repository: runs on a fork's
  // branch come with an empty list, as do runs on a branch without an open PR.
  const pr =
    run.pull_requests.find((candidate) => candidate.head.sha === run.head_sha) ??
    run.pull_requests[0];
  if (!pr) {
    return skip(
      `workflow run "${workflowName}" (${run.id}) failed on ${run.head_branch ?? run.head_sha}, which is not the head of a pull request in this repository (GitHub does not list pull requests from forks on workflow_run)`,
    );
  }
  const headRepoFullName = run.head_repository?.full_name ?? '';
  return {
    kind: 'pr-fix-failed-run',
    runId: run.id,
    runAttempt: run.run_attempt ?? 1,
    workflowName,
    runUrl: run.html_url,
    prNumber: pr.number,
    headRef: pr.head.ref,
    headSha: run.head_sha,
    headRepoFullName,
    baseRef: pr.base.ref,
    isFork:
      pr.head.repo.id !== pr.base.repo.id ||
      !sameRepository(headRepoFullName, run.repository.full_name),
    defaultBranch: payload.repository.default_branch,
  };
}

function commentTask(event: GitHubEvent): Task | Skip {
  const payload = parsePayload(event.name, issueCommentPayload, event.payload);
  const { issue, comment } = payload;
  if (payload.action !== 'created') {
    // An edit must not start a run: the permission check was about the comment as first written.
    return skip(
      `issue_comment event "${payload.action}" on #${issue.number}: only new comments start a run`,
    );
  }
  const match = /^\/ci-agent(?:\s+([\s\S]*))?$/.exec(comment.body.trimStart());
  if (!match) {
    return skip(`the comment on #${issue.number} does not start with "${COMMENT_COMMAND} "`);
  }
  const instruction = (match[1] ?? '').trim();
  if (instruction === '') {
    return skip(
      `the comment on #${issue.number} gives no instruction after "${COMMENT_COMMAND}" (write "${COMMENT_COMMAND} <what to do>")`,
    );
  }
  const isPullRequest = issue.pull_request !== undefined && issue.pull_request !== null;
  return {
    kind: 'comment-command',
    instruction,
    commentId: comment.id,
    commentAuthor: comment.user.login,
    issueNumber: issue.number,
    isPullRequest,
    subject: {
      number: issue.number,
      isPullRequest,
      content: { title: issue.title, body: issue.body ?? '', author: issue.user?.login ?? '' },
    },
    defaultBranch: payload.repository.default_branch,
  };
}

export interface PolicySource {
  /** A branch name: where the policy, hooks, `.claude/`, `.mcp.json` and CLAUDE.md are read from. */
  ref: string;
  from: 'base-branch' | 'default-branch';
}

/**
 * Where the repository's configuration comes from: on a pull request, its base branch, so that a PR
 * author cannot grant the agent tools or change its hooks; otherwise the default branch. A comment
 * on a PR uses the default branch: the payload does not name the PR's base, and the job runs the
 * default branch's workflow anyway.
 */
export function policyRef(task: Task): PolicySource {
  switch (task.kind) {
    case 'pr-tests':
    case 'pr-fix-failed-run':
      return { ref: task.baseRef, from: 'base-branch' };
    case 'prompt':
      return task.baseRef === undefined
        ? { ref: task.defaultBranch, from: 'default-branch' }
        : { ref: task.baseRef, from: 'base-branch' };
    case 'issue':
    case 'comment-command':
      return { ref: task.defaultBranch, from: 'default-branch' };
  }
}
