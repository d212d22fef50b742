/**
 * What one run of the action is asked to do, derived from the event (see context.ts). Text that
 * came from the event (titles, bodies, comments) is untrusted: it reaches the model only through
 * buildTaskPrompt, quoted.
 */

/** The issue or pull request an event is about: where the report comment goes. */
export interface TaskSubject {
  number: number;
  isPullRequest: boolean;
  /** Its title and body when the payload has them (a workflow_run payload has neither). */
  content: SubjectContent | undefined;
}

export interface SubjectContent {
  title: string;
  body: string;
  /** Login of whoever wrote the title and body: not necessarily the actor who started the run. */
  author: string;
}

/** An issue labelled with the trigger label: work on it on a new branch, open a PR that closes it. */
export interface IssueTask {
  kind: 'issue';
  issueNumber: number;
  title: string;
  body: string;
  author: string;
  /** `<branch-prefix>issue-<n>`. */
  branch: string;
  /** The branch to start from and to open the PR against: the default branch. */
  base: string;
  defaultBranch: string;
}

/** A pull request opened or pushed to: run the test command; fix what fails. */
export interface PullRequestTestsTask {
  kind: 'pr-tests';
  prNumber: number;
  headRef: string;
  headSha: string;
  /** `owner/name`; for a fork whose repository was deleted, `''`. */
  headRepoFullName: string;
  baseRef: string;
  /** Nothing is pushed to a fork: the report carries the patch. */
  isFork: boolean;
  testCommand: string;
  defaultBranch: string;
}

/** A workflow run that failed on a pull request's branch: read the failed jobs' logs, fix. */
export interface FailedRunTask {
  kind: 'pr-fix-failed-run';
  runId: number;
  runAttempt: number;
  workflowName: string;
  runUrl: string;
  prNumber: number;
  headRef: string;
  /** The commit the run failed on. */
  headSha: string;
  headRepoFullName: string;
  baseRef: string;
  isFork: boolean;
  defaultBranch: string;
}

/** The `prompt` input, on workflow_dispatch or any other event. */
export interface PromptTask {
  kind: 'prompt';
  /** From the workflow file: written by the maintainers. */
  prompt: string;
  /** The event's issue or pull request, if any: quoted context and the report comment's home. */
  subject: TaskSubject | undefined;
  /** Set when the event was a pull request (its base branch holds the policy). */
  baseRef: string | undefined;
  defaultBranch: string;
}

/** A comment `/ci-agent <instruction>` on an issue or a pull request. */
export interface CommentCommandTask {
  kind: 'comment-command';
  instruction: string;
  commentId: number;
  commentAuthor: string;
  issueNumber: number;
  isPullRequest: boolean;
  /** The issue or pull request commented on (its title and body are quoted context). */
  subject: TaskSubject;
  defaultBranch: string;
}

export type Task =
  IssueTask | PullRequestTestsTask | FailedRunTask | PromptTask | CommentCommandTask;

export type TaskKind = Task['kind'];

/** Not a task for ci-agent: logged and shown in the job summary, and the step succeeds. */
export interface Skip {
  kind: 'skip';
  reason: string;
}
