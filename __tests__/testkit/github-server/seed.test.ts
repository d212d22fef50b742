import { describe, expect, it } from 'vitest';
import { Sequences, seedState } from '../../../testkit/github-server/seed.js';

const NOW = new Date('2024-05-01T12:00:00.500Z');

describe('seedState', () => {
  it('fills in what a seed leaves out', () => {
    const state = seedState(
      {
        repos: [{ owner: 'octo', name: 'app', defaultBranch: 'trunk' }],
        issues: [{ repo: 'octo/app', title: 'Bug' }],
        pulls: [{ repo: 'octo/app', title: 'Fix', head: 'fix' }],
      },
      new Sequences(),
      NOW,
    );
    expect(state.repos[0]).toMatchObject({
      private: false,
      fork: false,
      branches: {},
      permissions: {},
    });
    expect(state.issues[0]).toMatchObject({
      number: 1,
      user: 'octocat',
      state: 'open',
      body: null,
      labels: [],
      createdAt: '2024-05-01T12:00:00Z',
      closedAt: null,
    });
    expect(state.pulls[0]).toMatchObject({
      number: 2,
      head: { repo: 'octo/app', ref: 'fix' },
      base: { ref: 'trunk' },
      draft: false,
    });
  });

  it('marks a repository with a parent as a fork', () => {
    const state = seedState(
      { repos: [{ owner: 'me', name: 'app', parent: 'octo/app' }] },
      new Sequences(),
      NOW,
    );
    expect(state.repos[0]).toMatchObject({ fork: true, parent: 'octo/app' });
  });

  it('numbers issues and pull requests per repository, after the explicit numbers', () => {
    const state = seedState(
      {
        issues: [
          { repo: 'octo/app', title: 'a' },
          { repo: 'octo/app', number: 10, title: 'b' },
          { repo: 'octo/other', title: 'c' },
        ],
        pulls: [{ repo: 'octo/app', title: 'd', head: 'x' }],
      },
      new Sequences(),
      NOW,
    );
    expect(state.issues.map((issue) => issue.number)).toEqual([11, 10, 1]);
    expect(state.pulls[0]?.number).toBe(12);
  });

  it('never hands out an id a seed chose explicitly', () => {
    const sequences = new Sequences();
    const state = seedState(
      {
        repos: [{ owner: 'octo', name: 'app' }],
        comments: [{ repo: 'octo/app', issueNumber: 1, body: 'x', id: 1001 }],
        runs: [{ repo: 'octo/app', id: 1002, jobs: [{ id: 1003, name: 'test' }] }],
      },
      sequences,
      NOW,
    );
    expect(state.repos[0]?.id).toBe(1004);
    expect(sequences.nextId()).toBe(1005);
  });

  it('gives a run and its jobs defaults: one step per job carrying the job conclusion', () => {
    const state = seedState(
      {
        runs: [
          { repo: 'octo/app', jobs: [{ name: 'test', conclusion: 'failure' }, { name: 'lint' }] },
        ],
      },
      new Sequences(),
      NOW,
    );
    expect(state.runs[0]).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      runAttempt: 1,
      headBranch: 'main',
    });
    expect(state.jobs.map((job) => [job.name, job.conclusion, job.steps, job.log])).toEqual([
      [
        'test',
        'failure',
        [{ name: 'Run', number: 1, status: 'completed', conclusion: 'failure' }],
        '',
      ],
      [
        'lint',
        'success',
        [{ name: 'Run', number: 1, status: 'completed', conclusion: 'success' }],
        '',
      ],
    ]);
    expect(state.jobs[0]?.runId).toBe(state.runs[0]?.id);
  });
});
