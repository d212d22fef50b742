/**
 * Workflow runs, their jobs and job logs. GitHub answers a log request with a 302 to a short-lived
 * storage URL that takes no token; here that URL is another path of the same server.
 */
import type { HandlerContext, Reply, Route } from '../http.js';
import { intParam, json, notFound, paginate } from '../http.js';
import type { Urls } from '../render.js';
import { renderRepo, renderUser } from '../render.js';
import type { FakeJob, FakeRun } from '../state.js';
import { sameName } from '../state.js';
import type { GitHubStore } from '../store.js';
import { repoOf } from './repo-context.js';
import { needs } from '../token-access.js';

/** Outside the API's namespace: no route of GitHub's starts with it, and it needs no token. */
export const JOB_LOG_PREFIX = '/_fake-storage/job-logs/';

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

const READ_ACTIONS = needs('actions', 'read');

export const actionsRoutes: Route[] = [
  { method: 'GET', template: RUN, handle: getRun, access: READ_ACTIONS },
  { method: 'GET', template: `${RUN}/jobs`, handle: listJobs, access: READ_ACTIONS },
  { method: 'GET', template: JOB, handle: getJob, access: READ_ACTIONS },
  { method: 'GET', template: `${JOB}/logs`, handle: redirectToLog, access: READ_ACTIONS },
];
