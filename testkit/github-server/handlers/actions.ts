/**
 * Workflow runs, their jobs, job logs and artifacts. GitHub answers a log or artifact download
 * with a 302 to a short-lived storage URL that takes no token; here that URL is another path of
 * the same server.
 */
import { createHash } from 'node:crypto';
import type { HandlerContext, Reply, Route } from '../http.js';
import { intParam, json, notFound, paginate } from '../http.js';
import type { Urls } from '../render.js';
import { renderRepo, renderUser } from '../render.js';
import type { FakeArtifact, FakeJob, FakeRun } from '../state.js';
import { sameName } from '../state.js';
import type { GitHubStore } from '../store.js';
import { repoOf } from './repo-context.js';
import { needs } from '../token-access.js';

/** Outside the API's namespace: no route of GitHub's starts with it, and it needs no token. */
export const JOB_LOG_PREFIX = '/_fake-storage/job-logs/';
/** Where an artifact's zip is served (no token), as the download's 302 says. */
export const ARTIFACT_PREFIX = '/_fake-storage/artifacts/';

const RUN = '/repos/{owner}/{repo}/actions/runs/{run_id}';
const JOB = '/repos/{owner}/{repo}/actions/jobs/{job_id}';

function runOf(context: HandlerContext): FakeRun {
  const run = context.store.run(repoOf(context).name, intParam(context, 'run_id'));
  if (run === undefined) throw notFound();
  return run;
}

function jobOf(context: HandlerContext): FakeJob {
  const job = context.store.job(repoOf(context).name, intParam(context, 'job_id'));
  if (job === undefined) throw notFound();
  return job;
}

function renderRun(run: FakeRun, store: GitHubStore, urls: Urls): Record<string, unknown> {
  const api = `${urls.api}/repos/${run.repo}/actions/runs/${run.id}`;
  const repo = store.repo(run.repo);
  const repoJson = repo === undefined ? null : renderRepo(repo, store, urls, false);
  return {
    id: run.id,
    name: run.name,
    node_id: Buffer.from(`04:WorkflowRun${run.id}`).toString('base64'),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.workflowPath,
    display_title: run.name,
    run_number: run.runNumber,
    run_attempt: run.runAttempt,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: 1,
    url: api,
    html_url: `${urls.web}/${run.repo}/actions/runs/${run.id}`,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    pull_requests: run.pullRequests.map((number) => {
      const pull = store.pull(run.repo, number);
      return {
        id: pull?.id ?? number,
        number,
        url: `${urls.api}/repos/${run.repo}/pulls/${number}`,
        head: {
          ref: pull?.head.ref ?? run.headBranch,
          sha: run.headSha,
          repo: {
            id: repo?.id ?? 0,
            url: `${urls.api}/repos/${run.repo}`,
            name: repo?.name ?? run.repo,
          },
        },
        base: {
          ref: pull?.base.ref ?? 'main',
          sha: run.headSha,
          repo: {
            id: repo?.id ?? 0,
            url: `${urls.api}/repos/${run.repo}`,
            name: repo?.name ?? run.repo,
          },
        },
      };
    }),
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    run_started_at: run.createdAt,
    actor: renderUser('octocat', urls),
    repository: repoJson,
    head_repository: repoJson,
  };
}

function renderJob(job: FakeJob, run: FakeRun | undefined, urls: Urls): Record<string, unknown> {
  return {
    id: job.id,
    run_id: job.runId,
    run_url: `${urls.api}/repos/${job.repo}/actions/runs/${job.runId}`,
    run_attempt: run?.runAttempt ?? 1,
    node_id: Buffer.from(`04:CheckRun${job.id}`).toString('base64'),
    head_sha: run?.headSha ?? '',
    head_branch: run?.headBranch ?? null,
    url: `${urls.api}/repos/${job.repo}/actions/jobs/${job.id}`,
    html_url: `${urls.web}/${job.repo}/actions/runs/${job.runId}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: job.startedAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    name: job.name,
    steps: job.steps.map((step) => ({
      name: step.name,
      status: step.status,
      conclusion: step.conclusion,
      number: step.number,
      started_at: job.startedAt,
      completed_at: job.completedAt,
    })),
    check_run_url: `${urls.api}/repos/${job.repo}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: null,
    runner_name: null,
    runner_group_id: null,
    runner_group_name: null,
    workflow_name: run?.name ?? null,
  };
}

async function getRun(context: HandlerContext): Promise<Reply> {
  return json(200, renderRun(runOf(context), context.store, context.urls));
}

async function listJobs(context: HandlerContext): Promise<Reply> {
  const run = runOf(context);
  const jobs = context.store.state.jobs.filter(
    (job) => sameName(job.repo, run.repo) && job.runId === run.id,
  );
  const { page, headers } = paginate(context, jobs);
  return {
    status: 200,
    body: { total_count: jobs.length, jobs: page.map((job) => renderJob(job, run, context.urls)) },
    headers,
  };
}

async function getJob(context: HandlerContext): Promise<Reply> {
  const job = jobOf(context);
  return json(200, renderJob(job, context.store.run(job.repo, job.runId), context.urls));
}

async function redirectToLog(context: HandlerContext): Promise<Reply> {
  const job = jobOf(context);
  if (job.log === null) throw notFound();
  return { status: 302, headers: { location: `${context.urls.api}${JOB_LOG_PREFIX}${job.id}` } };
}

function renderArtifact(artifact: FakeArtifact, context: HandlerContext): Record<string, unknown> {
  const api = `${context.urls.api}/repos/${artifact.repo}/actions/artifacts/${artifact.id}`;
  const run = context.store.run(artifact.repo, artifact.runId);
  const repoId = context.store.repo(artifact.repo)?.id ?? 0;
  return {
    id: artifact.id,
    node_id: Buffer.from(`04:Artifact${artifact.id}`).toString('base64'),
    name: artifact.name,
    size_in_bytes: artifact.zip.length,
    url: api,
    archive_download_url: `${api}/zip`,
    expired: artifact.expired,
    created_at: artifact.createdAt,
    updated_at: artifact.createdAt,
    expires_at: artifact.createdAt,
    digest: `sha256:${createHash('sha256').update(artifact.zip).digest('hex')}`,
    workflow_run: {
      id: artifact.runId,
      repository_id: repoId,
      head_repository_id: repoId,
      head_branch: run?.headBranch ?? null,
      head_sha: run?.headSha ?? null,
    },
  };
}

/** `?name=` filters by the exact name, as GitHub's does; newest first. */
async function listRunArtifacts(context: HandlerContext): Promise<Reply> {
  const run = runOf(context);
  const name = context.query.get('name') ?? undefined;
  const artifacts = context.store.state.artifacts
    .filter((item) => sameName(item.repo, run.repo) && item.runId === run.id)
    .filter((item) => name === undefined || item.name === name)
    .sort((left, right) => right.id - left.id);
  const { page, headers } = paginate(context, artifacts);
  return {
    status: 200,
    body: {
      total_count: artifacts.length,
      artifacts: page.map((item) => renderArtifact(item, context)),
    },
    headers,
  };
}

async function redirectToArtifact(context: HandlerContext): Promise<Reply> {
  const artifact = context.store.artifact(repoOf(context).name, intParam(context, 'artifact_id'));
  if (artifact === undefined || context.params.archive_format !== 'zip') throw notFound();
  if (artifact.expired) {
    return json(410, { message: 'Artifact has expired', documentation_url: DOCS, status: '410' });
  }
  return {
    status: 302,
    headers: { location: `${context.urls.api}${ARTIFACT_PREFIX}${artifact.id}.zip?sig=fake` },
  };
}

const DOCS = 'https://docs.github.com/rest/actions/artifacts#download-an-artifact';
const READ_ACTIONS = needs('actions', 'read');

export const actionsRoutes: Route[] = [
  { method: 'GET', template: RUN, handle: getRun, access: READ_ACTIONS },
  { method: 'GET', template: `${RUN}/jobs`, handle: listJobs, access: READ_ACTIONS },
  { method: 'GET', template: JOB, handle: getJob, access: READ_ACTIONS },
  { method: 'GET', template: `${JOB}/logs`, handle: redirectToLog, access: READ_ACTIONS },
  { method: 'GET', template: `${RUN}/artifacts`, handle: listRunArtifacts, access: READ_ACTIONS },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
    handle: redirectToArtifact,
    access: READ_ACTIONS,
  },
];
