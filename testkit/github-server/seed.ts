/**
 * Seeds: the short form a test writes (`{ repo: 'octo/app', title: 'Bug' }`), filled in with ids,
 * numbers, users and timestamps into the state the server keeps.
 */
import type {
  FakeArtifact,
  FakeComment,
  FakeIssue,
  FakeJob,
  FakeLabel,
  FakePull,
  FakeRepo,
  FakeRun,
  FakeStep,
  GitHubState,
  ItemState,
  Permission,
  RunConclusion,
  RunStatus,
} from './state.js';
import { timestamp } from './state.js';

export const DEFAULT_USER = 'octocat';

export interface RepoSeed {
  owner: string;
  name: string;
  defaultBranch?: string;
  private?: boolean;
  /** `owner/name` of the parent; makes the repository a fork. */
  parent?: string;
  origin?: string;
  branches?: Record<string, string>;
  permissions?: Record<string, Permission>;
  /**
   * Settings → Actions → General, "Allow GitHub Actions to create and approve pull requests";
   * true when unset (GitHub's default for new repositories is false, most tests want a PR).
   */
  actionsCanCreatePullRequests?: boolean;
}

export interface IssueSeed {
  repo: string;
  number?: number;
  title: string;
  body?: string | null;
  user?: string;
  labels?: string[];
  state?: ItemState;
}

export interface PullSeed extends IssueSeed {
  /** A branch of `repo`, or `{ repo: 'fork-owner/name', ref }` for a pull request from a fork. */
  head: string | { repo?: string; ref: string; sha?: string };
  /** Defaults to the repository's default branch. */
  base?: string;
  draft?: boolean;
  merged?: boolean;
  maintainerCanModify?: boolean;
}

export interface CommentSeed {
  repo: string;
  issueNumber: number;
  body: string;
  user?: string;
  id?: number;
}

export interface LabelSeed {
  repo: string;
  name: string;
  color?: string;
  description?: string | null;
}

export interface JobSeed {
  id?: number;
  name: string;
  status?: RunStatus;
  conclusion?: RunConclusion;
  steps?: Array<{ name: string; conclusion?: RunConclusion }>;
  log?: string | null;
}

export interface RunSeed {
  repo: string;
  id?: number;
  name?: string;
  workflowPath?: string;
  event?: string;
  headBranch?: string;
  headSha?: string;
  status?: RunStatus;
  conclusion?: RunConclusion;
  pullRequests?: number[];
  runAttempt?: number;
  jobs?: JobSeed[];
}

export interface ArtifactSeed {
  repo: string;
  runId: number;
  name: string;
  zip: Uint8Array;
  id?: number;
  expired?: boolean;
}

export interface GitHubSeed {
  repos?: RepoSeed[];
  labels?: LabelSeed[];
  issues?: IssueSeed[];
  pulls?: PullSeed[];
  comments?: CommentSeed[];
  runs?: RunSeed[];
  artifacts?: ArtifactSeed[];
}

/** Hands out ids and numbers above every seeded one. */
export class Sequences {
  private id = 1000;
  private readonly numbers = new Map<string, number>();

  nextId(explicit?: number): number {
    if (explicit !== undefined) {
      this.id = Math.max(this.id, explicit);
      return explicit;
    }
    return ++this.id;
  }

  nextNumber(repo: string, explicit?: number): number {
    const key = repo.toLowerCase();
    const current = this.numbers.get(key) ?? 0;
    const number = explicit ?? current + 1;
    this.numbers.set(key, Math.max(current, number));
    return number;
  }
}

export function seedState(seed: GitHubSeed, sequences: Sequences, now: Date): GitHubState {
  const at = timestamp(now);
  // Explicit numbers and ids first, so generated ones never collide with them.
  for (const item of [...(seed.issues ?? []), ...(seed.pulls ?? [])]) {
    if (item.number !== undefined) sequences.nextNumber(item.repo, item.number);
  }
  const explicitIds = [
    ...(seed.comments ?? []).map((comment) => comment.id),
    ...(seed.runs ?? []).flatMap((run) => [run.id, ...(run.jobs ?? []).map((job) => job.id)]),
  ];
  for (const id of explicitIds) if (id !== undefined) sequences.nextId(id);
  const repos = (seed.repos ?? []).map((repo): FakeRepo => ({
    id: sequences.nextId(),
    owner: repo.owner,
    name: repo.name,
    defaultBranch: repo.defaultBranch ?? 'main',
    private: repo.private ?? false,
    fork: repo.parent !== undefined,
    ...(repo.parent === undefined ? {} : { parent: repo.parent }),
    ...(repo.origin === undefined ? {} : { origin: repo.origin }),
    branches: { ...repo.branches },
    permissions: { ...repo.permissions },
    actionsCanCreatePullRequests: repo.actionsCanCreatePullRequests ?? true,
  }));
  const defaultBranchOf = (name: string): string =>
    repos.find((repo) => `${repo.owner}/${repo.name}`.toLowerCase() === name.toLowerCase())
      ?.defaultBranch ?? 'main';
  const item = (entry: IssueSeed): FakeIssue => ({
    id: sequences.nextId(),
    repo: entry.repo,
    number: entry.number ?? sequences.nextNumber(entry.repo),
    title: entry.title,
    body: entry.body ?? null,
    state: entry.state ?? 'open',
    user: entry.user ?? DEFAULT_USER,
    labels: [...(entry.labels ?? [])],
    createdAt: at,
    updatedAt: at,
    closedAt: entry.state === 'closed' ? at : null,
  });
  const issues = (seed.issues ?? []).map(item);
  const pulls = (seed.pulls ?? []).map((entry): FakePull => {
    const head = typeof entry.head === 'string' ? { ref: entry.head } : entry.head;
    return {
      ...item(entry),
      head: { ...head, repo: head.repo ?? entry.repo },
      base: { ref: entry.base ?? defaultBranchOf(entry.repo) },
      draft: entry.draft ?? false,
      merged: entry.merged ?? false,
      maintainerCanModify: entry.maintainerCanModify ?? false,
    };
  });
  const runs: FakeRun[] = [];
  const jobs: FakeJob[] = [];
  for (const run of seed.runs ?? []) {
    const id = sequences.nextId(run.id);
    runs.push({
      id,
      repo: run.repo,
      name: run.name ?? 'CI',
      workflowPath: run.workflowPath ?? '.github/workflows/ci.yml',
      event: run.event ?? 'pull_request',
      headBranch: run.headBranch ?? defaultBranchOf(run.repo),
      headSha: run.headSha ?? '0'.repeat(40),
      status: run.status ?? 'completed',
      conclusion: run.conclusion ?? 'failure',
      runNumber: runs.length + 1,
      runAttempt: run.runAttempt ?? 1,
      pullRequests: [...(run.pullRequests ?? [])],
      createdAt: at,
      updatedAt: at,
    });
    for (const job of run.jobs ?? []) jobs.push(seedJob(job, id, run.repo, sequences, at));
  }
  return {
    repos,
    labels: (seed.labels ?? []).map((label): FakeLabel => ({
      id: sequences.nextId(),
      repo: label.repo,
      name: label.name,
      color: label.color ?? 'ededed',
      description: label.description ?? null,
    })),
    issues,
    pulls,
    comments: (seed.comments ?? []).map((comment): FakeComment => ({
      id: sequences.nextId(comment.id),
      repo: comment.repo,
      issueNumber: comment.issueNumber,
      body: comment.body,
      user: comment.user ?? DEFAULT_USER,
      createdAt: at,
      updatedAt: at,
    })),
    runs,
    jobs,
    artifacts: (seed.artifacts ?? []).map((artifact) => seedArtifact(artifact, sequences, now)),
  };
}

export function seedArtifact(seed: ArtifactSeed, sequences: Sequences, now: Date): FakeArtifact {
  return {
    id: sequences.nextId(seed.id),
    repo: seed.repo,
    runId: seed.runId,
    name: seed.name,
    zip: Buffer.from(seed.zip),
    createdAt: timestamp(now),
    expired: seed.expired ?? false,
  };
}

function seedJob(
  job: JobSeed,
  runId: number,
  repo: string,
  sequences: Sequences,
  at: string,
): FakeJob {
  const status = job.status ?? 'completed';
  const conclusion = job.conclusion === undefined ? 'success' : job.conclusion;
  const steps = (job.steps ?? [{ name: 'Run', conclusion }]).map((step, index): FakeStep => ({
    name: step.name,
    number: index + 1,
    status,
    conclusion: step.conclusion === undefined ? conclusion : step.conclusion,
  }));
  return {
    id: sequences.nextId(job.id),
    runId,
    repo,
    name: job.name,
    status,
    conclusion,
    steps,
    log: job.log === undefined ? '' : job.log,
    startedAt: at,
    completedAt: status === 'completed' ? at : null,
  };
}
