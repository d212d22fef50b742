/**
 * The state with the lookups the handlers share. Names compare case-insensitively, as GitHub's do.
 */
import { branchStoreFor } from './branches.js';
import type { BranchStore } from './branches.js';
import type { ArtifactSeed, Sequences } from './seed.js';
import { seedArtifact } from './seed.js';
import type {
  FakeArtifact,
  FakeComment,
  FakeIssue,
  FakeJob,
  FakeLabel,
  FakePull,
  FakeRepo,
  FakeRun,
  GitHubState,
  Permission,
} from './state.js';
import { fullName, sameName, timestamp } from './state.js';

export class GitHubStore {
  constructor(
    readonly state: GitHubState,
    readonly sequences: Sequences,
    private readonly clock: () => Date,
  ) {}

  now(): string {
    return timestamp(this.clock());
  }

  repo(name: string): FakeRepo | undefined {
    return this.state.repos.find((repo) => sameName(fullName(repo), name));
  }

  /** An issue or a pull request: they share numbers. */
  item(repo: string, number: number): FakeIssue | FakePull | undefined {
    return this.issue(repo, number) ?? this.pull(repo, number);
  }

  issue(repo: string, number: number): FakeIssue | undefined {
    return this.state.issues.find((issue) => sameName(issue.repo, repo) && issue.number === number);
  }

  pull(repo: string, number: number): FakePull | undefined {
    return this.state.pulls.find((pull) => sameName(pull.repo, repo) && pull.number === number);
  }

  comment(repo: string, id: number): FakeComment | undefined {
    return this.state.comments.find((comment) => sameName(comment.repo, repo) && comment.id === id);
  }

  commentsOn(repo: string, number: number): FakeComment[] {
    return this.state.comments.filter(
      (comment) => sameName(comment.repo, repo) && comment.issueNumber === number,
    );
  }

  label(repo: string, name: string): FakeLabel | undefined {
    return this.state.labels.find(
      (label) => sameName(label.repo, repo) && sameName(label.name, name),
    );
  }

  /** GitHub creates a label that an issue is given but the repository does not have yet. */
  ensureLabel(repo: string, name: string): FakeLabel {
    const existing = this.label(repo, name);
    if (existing !== undefined) return existing;
    const label: FakeLabel = {
      id: this.sequences.nextId(),
      repo,
      name,
      color: 'ededed',
      description: null,
    };
    this.state.labels.push(label);
    return label;
  }

  permission(repo: FakeRepo, login: string): Permission {
    const entry = Object.entries(repo.permissions).find(([name]) => sameName(name, login));
    return entry?.[1] ?? 'none';
  }

  branches(repo: FakeRepo): BranchStore {
    return branchStoreFor(repo);
  }

  run(repo: string, id: number): FakeRun | undefined {
    return this.state.runs.find((run) => sameName(run.repo, repo) && run.id === id);
  }

  job(repo: string, id: number): FakeJob | undefined {
    return this.state.jobs.find((job) => sameName(job.repo, repo) && job.id === id);
  }

  jobById(id: number): FakeJob | undefined {
    return this.state.jobs.find((job) => job.id === id);
  }

  artifact(repo: string, id: number): FakeArtifact | undefined {
    return this.state.artifacts.find((item) => sameName(item.repo, repo) && item.id === id);
  }

  artifactById(id: number): FakeArtifact | undefined {
    return this.state.artifacts.find((item) => item.id === id);
  }

  /** A run's artifact, added while the server runs (as a job that uploads one would). */
  addArtifact(seed: ArtifactSeed): FakeArtifact {
    const artifact = seedArtifact(seed, this.sequences, this.clock());
    this.state.artifacts.push(artifact);
    return artifact;
  }
}
