import { afterEach, describe, expect, it } from 'vitest';
import { JOB_LOG_PREFIX } from '../../../../testkit/github-server/index.js';
import { REPO, expectNoViolations, failure, startFake } from '../fixture.js';
import type { Fake } from '../fixture.js';

const LOG = '2024-05-01T12:00:00Z FAIL test/stats.test.js\n  expected 6, got 5\n';

const seed = {
  repos: [{ owner: 'octo', name: 'app' }],
  pulls: [{ repo: 'octo/app', number: 12, title: 'Add stats', head: 'stats' }],
  runs: [
    {
      repo: 'octo/app',
      id: 900,
      name: 'CI',
      event: 'pull_request',
      headBranch: 'stats',
      headSha: 'd'.repeat(40),
      conclusion: 'failure' as const,
      pullRequests: [12],
      jobs: [
        { id: 901, name: 'lint', conclusion: 'success' as const, log: 'ok\n' },
        {
          id: 902,
          name: 'test',
          conclusion: 'failure' as const,
          log: LOG,
          steps: [{ name: 'Checkout', conclusion: 'success' as const }, { name: 'npm test' }],
        },
        { id: 903, name: 'old', conclusion: 'failure' as const, log: null },
      ],
    },
  ],
};

let fake: Fake;

afterEach(async () => {
  await fake.server.close();
});

describe('actions routes', () => {
  it('returns a workflow run with its conclusion and pull requests', async () => {
    fake = await startFake({ seed });
    const { data } = await fake.octokit.rest.actions.getWorkflowRun({ ...REPO, run_id: 900 });
    expect(data).toMatchObject({
      id: 900,
      name: 'CI',
      event: 'pull_request',
      status: 'completed',
      conclusion: 'failure',
      head_branch: 'stats',
      head_sha: 'd'.repeat(40),
      html_url: 'https://github.com/octo/app/actions/runs/900',
      pull_requests: [{ number: 12, head: { ref: 'stats' }, base: { ref: 'main' } }],
      repository: { full_name: 'octo/app' },
    });
    expectNoViolations(fake.server);
  });

  it('lists the jobs of a run with their conclusions and steps', async () => {
    fake = await startFake({ seed });
    const { data } = await fake.octokit.rest.actions.listJobsForWorkflowRun({
      ...REPO,
      run_id: 900,
      filter: 'latest',
    });
    expect(data.total_count).toBe(3);
    expect(data.jobs.map((job) => [job.name, job.conclusion])).toEqual([
      ['lint', 'success'],
      ['test', 'failure'],
      ['old', 'failure'],
    ]);
    expect(data.jobs[1]?.steps).toMatchObject([
      { name: 'Checkout', number: 1, conclusion: 'success' },
      { name: 'npm test', number: 2, conclusion: 'failure' },
    ]);
    expectNoViolations(fake.server);
  });

  it('pages the jobs so paginate collects them all', async () => {
    fake = await startFake({ seed });
    const jobs = await fake.octokit.paginate(fake.octokit.rest.actions.listJobsForWorkflowRun, {
      ...REPO,
      run_id: 900,
      per_page: 1,
    });
    expect(jobs.map((job) => job.id)).toEqual([901, 902, 903]);
  });

  it('returns one job', async () => {
    fake = await startFake({ seed });
    const { data } = await fake.octokit.rest.actions.getJobForWorkflowRun({ ...REPO, job_id: 902 });
    expect(data).toMatchObject({ id: 902, run_id: 900, name: 'test', conclusion: 'failure' });
  });

  describe('job logs', () => {
    it('redirects, and Octokit follows the redirect to the plain-text log', async () => {
      fake = await startFake({ seed });
      const response = await fake.octokit.rest.actions.downloadJobLogsForWorkflowRun({
        ...REPO,
        job_id: 902,
      });
      expect(response.status).toBe(200);
      expect(response.data).toBe(LOG);
      expect(response.url).toBe(`${fake.server.url}${JOB_LOG_PREFIX}902`);
      expect(fake.server.requests.map((request) => [request.path, request.status])).toEqual([
        ['/repos/octo/app/actions/jobs/902/logs', 302],
        [`${JOB_LOG_PREFIX}902`, 200],
      ]);
      expectNoViolations(fake.server);
    });

    it('answers 302 with the log URL when the caller does not follow redirects', async () => {
      fake = await startFake({ seed });
      const response = await fake.octokit.rest.actions.downloadJobLogsForWorkflowRun({
        ...REPO,
        job_id: 902,
        request: { redirect: 'manual' },
      });
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(`${fake.server.url}${JOB_LOG_PREFIX}902`);
      const log = await fetch(response.headers.location ?? '');
      expect(log.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await log.text()).toBe(LOG);
    });

    it('answers 404 for a job whose logs are gone', async () => {
      fake = await startFake({ seed });
      expect(
        await failure(
          fake.octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...REPO, job_id: 903 }),
        ),
      ).toMatchObject({ status: 404 });
      expect((await fetch(`${fake.server.url}${JOB_LOG_PREFIX}903`)).status).toBe(404);
    });
  });

  it('answers 404 for an unknown run or job', async () => {
    fake = await startFake({ seed });
    expect(
      await failure(fake.octokit.rest.actions.getWorkflowRun({ ...REPO, run_id: 1 })),
    ).toMatchObject({ status: 404 });
    expect(
      await failure(fake.octokit.rest.actions.listJobsForWorkflowRun({ ...REPO, run_id: 1 })),
    ).toMatchObject({ status: 404 });
    expect(
      await failure(fake.octokit.rest.actions.getJobForWorkflowRun({ ...REPO, job_id: 1 })),
    ).toMatchObject({ status: 404 });
    expectNoViolations(fake.server);
  });
});
