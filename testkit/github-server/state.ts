/**
 * What the fake GitHub knows: plain arrays a test can seed, read and change. Repositories are
 * named `owner/name`; issues and pull requests share one number sequence per repository, as on
 * GitHub, but live in separate arrays (a pull request is not also listed in `issues`).
 */

export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';
export type ItemState = 'open' | 'closed';

export interface FakeRepo {
  id: number;
  owner: string;
  name: string;
  defaultBranch: string;
  private: boolean;
  fork: boolean;
  /** `owner/name` of the repository this one was forked from. */
  parent?: string;
  /** A bare git repository whose refs are this repository's branches (see createOriginRepo). */
  origin?: string;
  /** Branch → commit sha, for repositories without an origin. */
  branches: Record<string, string>;
  /** Login → permission; anyone not listed has none. */
  permissions: Record<string, Permission>;
  /** Whether the workflow's token (github-actions[bot]) may open pull requests. */
  actionsCanCreatePullRequests: boolean;
}

export interface FakeLabel {
  id: number;
  repo: string;
  name: string;
  color: string;
  description: string | null;
}

interface FakeItem {
  id: number;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  state: ItemState;
  user: string;
  labels: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export type FakeIssue = FakeItem;

export interface FakePull extends FakeItem {
  head: { repo: string; ref: string; sha?: string };
  base: { ref: string };
  draft: boolean;
  merged: boolean;
  maintainerCanModify: boolean;
}

export interface FakeComment {
  id: number;
  repo: string;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export type RunStatus = 'queued' | 'in_progress' | 'completed';
export type RunConclusion =
  | 'success'
  | 'failure'
  | 'cancelled'
  | 'skipped'
  | 'timed_out'
  | 'action_required'
  | 'neutral'
  | null;

export interface FakeStep {
  name: string;
  number: number;
  status: RunStatus;
  conclusion: RunConclusion;
}

export interface FakeRun {
  id: number;
  repo: string;
  name: string;
  workflowPath: string;
  event: string;
  headBranch: string;
  headSha: string;
  status: RunStatus;
  conclusion: RunConclusion;
  runNumber: number;
  runAttempt: number;
  /** Numbers of the pull requests the run belongs to. */
  pullRequests: number[];
  createdAt: string;
  updatedAt: string;
}

export interface FakeJob {
  id: number;
  runId: number;
  repo: string;
  name: string;
  status: RunStatus;
  conclusion: RunConclusion;
  steps: FakeStep[];
  /** Served as text/plain behind the logs redirect; `null` answers 404 as for expired logs. */
  log: string | null;
  startedAt: string;
  completedAt: string | null;
}

/** A workflow run's artifact, as the REST API lists it and serves its zip. */
export interface FakeArtifact {
  id: number;
  repo: string;
  runId: number;
  name: string;
  /** The archive, as upload-artifact stored it. */
  zip: Buffer;
  createdAt: string;
  /** Answered 410 Gone on download, as GitHub does after the retention period. */
  expired: boolean;
}

export interface GitHubState {
  repos: FakeRepo[];
  labels: FakeLabel[];
  issues: FakeIssue[];
  pulls: FakePull[];
  comments: FakeComment[];
  runs: FakeRun[];
  jobs: FakeJob[];
  artifacts: FakeArtifact[];
}

export function fullName(repo: Pick<FakeRepo, 'owner' | 'name'>): string {
  return `${repo.owner}/${repo.name}`;
}

/** GitHub treats owner and repository names case-insensitively. */
export function sameName(left: string, right: string): boolean {
  return left.toLowerCase() === right.toLowerCase();
}

/** Timestamps as GitHub writes them: seconds, UTC, no fraction. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
