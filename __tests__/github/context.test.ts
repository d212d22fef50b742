import { writeFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import type {
  IssueCommentCreatedEvent,
  IssuesLabeledEvent,
  IssuesOpenedEvent,
  PullRequestClosedEvent,
  PullRequestOpenedEvent,
  PullRequestReopenedEvent,
  PullRequestSynchronizeEvent,
  WorkflowRunCompletedEvent,
  WorkflowRunRequestedEvent,
} from '@octokit/webhooks-types';
import {
  deriveTask,
  policyRef,
  readEventContext,
  RunnerEnvironmentError,
} from '../../src/github/context.js';
import type { GitHubEvent, TaskInputs } from '../../src/github/context.js';
import { EventPayloadError } from '../../src/github/event-payloads.js';
import { InputError } from '../../src/github/inputs.js';
import type { Task } from '../../src/github/task.js';
import { runnerEnvironment, webhookExample } from './webhook-examples.js';

const INPUTS: TaskInputs = {
  prompt: undefined,
  triggerLabel: 'ci-agent',
  testCommand: 'npm test',
  branchPrefix: 'ci-agent/',
};

async function eventOf(
  eventName: string,
  payload: unknown,
  env: Record<string, string> = {},
): Promise<GitHubEvent> {
  return readEventContext(await runnerEnvironment({ eventName, payload, env }));
}

async function taskOf(eventName: string, payload: unknown, inputs: Partial<TaskInputs> = {}) {
  return deriveTask(await eventOf(eventName, payload), { ...INPUTS, ...inputs });
}

const labeled = (label: string) => {
  const payload = webhookExample('issues', (p): p is IssuesLabeledEvent => p.action === 'labeled');
  if (payload.label) payload.label.name = label;
  return payload;
};

const pullRequest = () =>
  webhookExample('pull_request', (p): p is PullRequestOpenedEvent => p.action === 'opened');

function failedRun() {
  const payload = webhookExample(
    'workflow_run',
    (p): p is WorkflowRunCompletedEvent =>
      p.action === 'completed' && p.workflow_run.pull_requests.length > 0,
  );
  payload.workflow_run.conclusion = 'failure';
  return payload;
}

function comment(body: string) {
  const payload = webhookExample(
    'issue_comment',
    (p): p is IssueCommentCreatedEvent => p.action === 'created',
  );
  payload.comment.body = body;
  return payload;
}

describe('readEventContext', () => {
  it('reads the repository, the run and the sender of the event', async () => {
    const event = await eventOf('issues', labeled('ci-agent'));
    expect(event).toMatchObject({
      name: 'issues',
      owner: 'Codertocat',
      repo: 'Hello-World',
      defaultBranch: 'master',
      actor: { login: 'Codertocat', type: 'User' },
      runId: 1658821493,
      runUrl: 'https://github.com/Codertocat/Hello-World/actions/runs/1658821493',
      apiUrl: 'https://api.github.com',
      ref: 'refs/heads/master',
    });
  });

  describe('when the payload has no sender or repository (schedule)', () => {
    it("takes GITHUB_ACTOR and GITHUB_REF's branch", async () => {
      const event = await eventOf(
        'schedule',
        { schedule: '0 3 * * *' },
        { GITHUB_ACTOR: 'octocat', GITHUB_REF: 'refs/heads/main' },
      );
      expect(event.actor).toEqual({ login: 'octocat', type: undefined });
      expect(event.defaultBranch).toBe('main');
    });
  });

  describe('when the runner environment is incomplete', () => {
    it.each(['GITHUB_EVENT_NAME', 'GITHUB_EVENT_PATH', 'GITHUB_REPOSITORY'])(
      'names the missing %s',
      async (name) => {
        const env = await runnerEnvironment({ eventName: 'issues', payload: labeled('x') });
        delete env[name];
        await expect(readEventContext(env)).rejects.toThrow(
          new RunnerEnvironmentError(
            `${name} is not set: ci-agent's action runs as a step of a GitHub Actions job (elsewhere, use the ci-agent CLI)`,
          ),
        );
      },
    );

    it('rejects a GITHUB_REPOSITORY that is not owner/name', async () => {
      const env = await runnerEnvironment({ eventName: 'issues', payload: labeled('x') });
      await expect(readEventContext({ ...env, GITHUB_REPOSITORY: 'a/b/c' })).rejects.toThrow(
        'GITHUB_REPOSITORY: expected owner/name, got "a/b/c"',
      );
    });

    it('rejects a GITHUB_RUN_ID that is not a run number', async () => {
      const env = await runnerEnvironment({ eventName: 'issues', payload: labeled('x') });
      await expect(readEventContext({ ...env, GITHUB_RUN_ID: 'latest' })).rejects.toThrow(
        `GITHUB_RUN_ID: expected the run's number, got "latest"`,
      );
    });

    it('reads the environment it is given, not the process environment', async () => {
      const env = await runnerEnvironment({ eventName: 'issues', payload: labeled('ci-agent') });
      vi.stubEnv('GITHUB_REPOSITORY', 'someone/else');
      vi.stubEnv('GITHUB_RUN_ID', '7');
      try {
        expect(await readEventContext(env)).toMatchObject({
          owner: 'Codertocat',
          runId: 1658821493,
        });
      } finally {
        vi.unstubAllEnvs();
      }
      expect(process.env.GITHUB_REPOSITORY).toBeUndefined();
    });

    it('says when the event file is not JSON', async () => {
      const env = await runnerEnvironment({ eventName: 'issues', payload: {} });
      await writeFile(env.GITHUB_EVENT_PATH ?? '', '{ not json');
      await expect(readEventContext(env)).rejects.toThrow(/^GITHUB_EVENT_PATH: it is not JSON/);
    });

    it('says when the event file cannot be read', async () => {
      const env = await runnerEnvironment({ eventName: 'issues', payload: {} });
      await expect(
        readEventContext({ ...env, GITHUB_EVENT_PATH: `${env.GITHUB_EVENT_PATH}.missing` }),
      ).rejects.toThrow(/^GITHUB_EVENT_PATH: it cannot be read/);
    });
  });
});

describe('deriveTask', () => {
  describe('when an issue is labelled', () => {
    it('works on the issue on a new branch from the default branch', async () => {
      expect(await taskOf('issues', labeled('ci-agent'))).toEqual({
        kind: 'issue',
        issueNumber: 1,
        title: 'Spelling error in the README file',
        body: "It looks like you accidently spelled 'commit' with two 't's.",
        author: 'Codertocat',
        branch: 'ci-agent/issue-1',
        base: 'master',
        defaultBranch: 'master',
      });
    });

    it('matches the trigger label regardless of case, as GitHub does', async () => {
      expect(await taskOf('issues', labeled('CI-Agent'), { branchPrefix: 'bot-' })).toMatchObject({
        kind: 'issue',
        branch: 'bot-issue-1',
      });
    });

    it('skips another label, naming both', async () => {
      expect(await taskOf('issues', labeled('bug'))).toEqual({
        kind: 'skip',
        reason: 'label "bug" is not the trigger label "ci-agent"',
      });
    });

    it('reads a missing body as empty', async () => {
      const payload = labeled('ci-agent');
      payload.issue.body = null;
      expect(await taskOf('issues', payload)).toMatchObject({ kind: 'issue', body: '' });
    });
  });

  describe('when an issue event is not a label', () => {
    it('skips it', async () => {
      const payload = webhookExample(
        'issues',
        (p): p is IssuesOpenedEvent => p.action === 'opened',
      );
      expect(await taskOf('issues', payload)).toEqual({
        kind: 'skip',
        reason: `issues event "opened" on #${payload.issue.number}: ci-agent starts on "labeled" with the label "ci-agent"`,
      });
    });
  });

  describe('when a pull request is opened or pushed to', () => {
    it('runs the tests of the same-repository PR', async () => {
      expect(await taskOf('pull_request', pullRequest())).toEqual({
        kind: 'pr-tests',
        prNumber: 2,
        headRef: 'changes',
        headSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
        headRepoFullName: 'Codertocat/Hello-World',
        baseRef: 'master',
        isFork: false,
        testCommand: 'npm test',
        defaultBranch: 'master',
      });
    });

    it.each(['synchronize', 'reopened'])('runs them on %s', async (action) => {
      const payload = webhookExample(
        'pull_request',
        (p): p is PullRequestSynchronizeEvent | PullRequestReopenedEvent => p.action === action,
      );
      expect(await taskOf('pull_request', payload)).toMatchObject({ kind: 'pr-tests' });
    });

    it('marks a PR from a fork', async () => {
      const payload = pullRequest();
      if (payload.pull_request.head.repo) {
        payload.pull_request.head.repo.full_name = 'contributor/Hello-World';
      }
      expect(await taskOf('pull_request', payload)).toMatchObject({
        kind: 'pr-tests',
        headRepoFullName: 'contributor/Hello-World',
        isFork: true,
      });
    });

    it('marks a PR whose fork was deleted as a fork', async () => {
      const payload = pullRequest();
      payload.pull_request.head.repo = null;
      expect(await taskOf('pull_request', payload)).toMatchObject({
        headRepoFullName: '',
        isFork: true,
      });
    });

    it('fails without a test command, naming the input and its expected form', async () => {
      await expect(
        taskOf('pull_request', pullRequest(), { testCommand: undefined }),
      ).rejects.toThrow(
        new InputError([
          'test-command: a pull_request run (#2) needs the test-command input, a shell command such as "npm test" (or set prompt); got nothing',
        ]),
      );
    });

    it('skips other pull request actions', async () => {
      const payload = webhookExample(
        'pull_request',
        (p): p is PullRequestClosedEvent => p.action === 'closed',
      );
      expect(await taskOf('pull_request', payload)).toMatchObject({
        kind: 'skip',
        reason: expect.stringMatching(/^pull_request event "closed" on #\d+/) as string,
      });
    });
  });

  describe('when a workflow run completes', () => {
    it('fixes a failed run on a pull request', async () => {
      expect(await taskOf('workflow_run', failedRun())).toEqual({
        kind: 'pr-fix-failed-run',
        runId: 289782451,
        runAttempt: 1,
        workflowName: 'test',
        runUrl: 'https://github.com/octo-org/octo-repo/actions/runs/289782451',
        prNumber: 2,
        headRef: 'changes',
        headSha: '3484a3fb816e0859fd6e1cea078d76385ff50625',
        headRepoFullName: 'octo-org/octo-repo',
        baseRef: 'master',
        isFork: false,
        defaultBranch: 'master',
      });
    });

    it('picks the pull request whose head is the failed commit', async () => {
      const payload = failedRun();
      const [first] = payload.workflow_run.pull_requests;
      if (!first) throw new Error('the example has a pull request');
      payload.workflow_run.pull_requests.push({
        ...structuredClone(first),
        number: 7,
        head: { ...first.head, sha: payload.workflow_run.head_sha },
      });
      expect(await taskOf('workflow_run', payload)).toMatchObject({ prNumber: 7 });
    });

    it('marks a run whose head repository is another as a fork', async () => {
      const payload = failedRun();
      payload.workflow_run.head_repository.full_name = 'contributor/octo-repo';
      expect(await taskOf('workflow_run', payload)).toMatchObject({ isFork: true });
    });

    it('skips a failed run that is not on a pull request', async () => {
      const payload = failedRun();
      payload.workflow_run.pull_requests = [];
      expect(await taskOf('workflow_run', payload)).toMatchObject({
        kind: 'skip',
        reason: expect.stringContaining('is not the head of a pull request') as string,
      });
    });

    it('skips a run that failed on a commit ci-agent made, so it never chases its own fixes', async () => {
      const payload = failedRun();
      Object.assign(payload.workflow_run.head_commit, {
        message: 'Fix failing tests of #7\n\nGenerated-by: ci-agent\n',
      });
      expect(await taskOf('workflow_run', payload)).toMatchObject({
        kind: 'skip',
        reason: expect.stringContaining('failed on a commit ci-agent made') as string,
      });
    });

    it('fixes a run whose head commit only mentions ci-agent in its text', async () => {
      const payload = failedRun();
      Object.assign(payload.workflow_run.head_commit, {
        message: 'Tune the tests\n\nSee Generated-by: ci-agent in the docs',
      });
      expect(await taskOf('workflow_run', payload)).toMatchObject({ kind: 'pr-fix-failed-run' });
    });

    it('skips a successful run', async () => {
      const payload = failedRun();
      payload.workflow_run.conclusion = 'success';
      expect(await taskOf('workflow_run', payload)).toEqual({
        kind: 'skip',
        reason:
          'workflow run "test" (289782451) concluded success: ci-agent fixes failed runs only',
      });
    });

    it('skips a run that has not completed', async () => {
      const payload = webhookExample(
        'workflow_run',
        (p): p is WorkflowRunRequestedEvent => p.action === 'requested',
      );
      expect(await taskOf('workflow_run', payload)).toMatchObject({
        kind: 'skip',
        reason: expect.stringMatching(/^workflow_run event "requested"/) as string,
      });
    });
  });

  describe('when the prompt input is set', () => {
    it('runs it on workflow_dispatch, with no subject', async () => {
      const task = await taskOf('workflow_dispatch', webhookExample('workflow_dispatch'), {
        prompt: 'Update the changelog',
      });
      expect(task).toEqual({
        kind: 'prompt',
        prompt: 'Update the changelog',
        subject: undefined,
        baseRef: undefined,
        defaultBranch: 'main',
      });
    });

    it("keeps an issue event's issue for the comment, whatever the label", async () => {
      expect(await taskOf('issues', labeled('bug'), { prompt: 'Triage this' })).toMatchObject({
        kind: 'prompt',
        subject: {
          number: 1,
          isPullRequest: false,
          content: { title: 'Spelling error in the README file', author: 'Codertocat' },
        },
        baseRef: undefined,
      });
    });

    it("keeps a pull request's number and base branch", async () => {
      expect(await taskOf('pull_request', pullRequest(), { prompt: 'Review this' })).toMatchObject({
        kind: 'prompt',
        subject: { number: 2, isPullRequest: true },
        baseRef: 'master',
      });
    });

    it("keeps a failed run's pull request, without content", async () => {
      expect(await taskOf('workflow_run', failedRun(), { prompt: 'Explain' })).toMatchObject({
        kind: 'prompt',
        subject: { number: 2, isPullRequest: true, content: undefined },
        baseRef: 'master',
      });
    });

    it('keeps a commented pull request as a pull request', async () => {
      const payload = comment('looks good');
      payload.issue.pull_request = { url: 'https://api.github.com/repos/o/r/pulls/1' };
      expect(await taskOf('issue_comment', payload, { prompt: 'Summarize' })).toMatchObject({
        subject: { number: 1, isPullRequest: true },
        baseRef: undefined,
      });
    });

    it('runs on an event ci-agent has no task for', async () => {
      expect(
        await taskOf(
          'push',
          { ref: 'refs/heads/master', repository: { default_branch: 'main' } },
          {
            prompt: 'Check the docs build',
          },
        ),
      ).toMatchObject({ kind: 'prompt', subject: undefined, defaultBranch: 'main' });
    });
  });

  describe('when workflow_dispatch has no prompt', () => {
    it('fails, saying how to pass one', async () => {
      await expect(
        taskOf('workflow_dispatch', webhookExample('workflow_dispatch')),
      ).rejects.toThrow(
        new InputError([
          'prompt: a workflow_dispatch run needs the prompt input, e.g. prompt: ${{ inputs.prompt }}; got nothing',
        ]),
      );
    });
  });

  describe('when a comment is created', () => {
    it('follows a /ci-agent instruction on an issue', async () => {
      expect(await taskOf('issue_comment', comment('/ci-agent fix the typo'))).toEqual({
        kind: 'comment-command',
        instruction: 'fix the typo',
        commentId: 492700400,
        commentAuthor: 'Codertocat',
        issueNumber: 1,
        isPullRequest: false,
        subject: {
          number: 1,
          isPullRequest: false,
          content: {
            title: 'Spelling error in the README file',
            body: "It looks like you accidently spelled 'commit' with two 't's.",
            author: 'Codertocat',
          },
        },
        defaultBranch: 'master',
      });
    });

    it('keeps a multi-line instruction and knows a pull request', async () => {
      const payload = comment('  /ci-agent\r\nrename foo\nand update the tests\n');
      payload.issue.pull_request = { url: 'https://api.github.com/repos/o/r/pulls/1' };
      expect(await taskOf('issue_comment', payload)).toMatchObject({
        instruction: 'rename foo\nand update the tests',
        isPullRequest: true,
      });
    });

    it.each([
      ['an ordinary comment', 'Thanks, /ci-agent fix it', 'does not start with "/ci-agent "'],
      ['a longer word', '/ci-agents fix it', 'does not start with "/ci-agent "'],
      ['no instruction', '/ci-agent   ', 'gives no instruction after "/ci-agent"'],
    ])('skips %s', async (_what, body, reason) => {
      expect(await taskOf('issue_comment', comment(body))).toMatchObject({
        kind: 'skip',
        reason: expect.stringContaining(reason) as string,
      });
    });

    it('skips an edited comment', async () => {
      const payload = { ...comment('/ci-agent fix it'), action: 'edited' };
      expect(await taskOf('issue_comment', payload)).toEqual({
        kind: 'skip',
        reason: 'issue_comment event "edited" on #1: only new comments start a run',
      });
    });
  });

  describe('when the event is unknown', () => {
    it('skips it, naming the events ci-agent acts on', async () => {
      expect(await taskOf('push', { ref: 'refs/heads/master' })).toEqual({
        kind: 'skip',
        reason:
          'the push event is not one ci-agent acts on by itself (issues, pull_request, workflow_run, issue_comment); set the prompt input to run on it',
      });
    });
  });

  describe('when the payload lacks a field the task needs', () => {
    it('throws naming the event and the field', async () => {
      const payload = { ...labeled('ci-agent'), issue: { title: 'no number' } };
      await expect(taskOf('issues', payload)).rejects.toThrow(EventPayloadError);
      await expect(taskOf('issues', payload)).rejects.toThrow(
        /^the issues event payload is not what GitHub sends: issue\.number: /,
      );
    });

    it('throws when no default branch can be told for a prompt', async () => {
      const event = await eventOf('schedule', { schedule: '0 3 * * *' }, { GITHUB_REF: '' });
      expect(() => deriveTask(event, { ...INPUTS, prompt: 'x' })).toThrow(RunnerEnvironmentError);
    });
  });
});

describe('policyRef', () => {
  const base = { defaultBranch: 'main' };
  const cases: [string, Task, ReturnType<typeof policyRef>][] = [
    [
      'an issue: the default branch',
      {
        ...base,
        kind: 'issue',
        issueNumber: 1,
        title: '',
        body: '',
        author: '',
        branch: 'b',
        base: 'main',
      },
      { ref: 'main', from: 'default-branch' },
    ],
    [
      'a PR: its base, never its head',
      {
        ...base,
        kind: 'pr-tests',
        prNumber: 2,
        headRef: 'feature',
        headSha: 'abc',
        headRepoFullName: 'o/r',
        baseRef: 'release',
        isFork: false,
        testCommand: 'npm test',
      },
      { ref: 'release', from: 'base-branch' },
    ],
    [
      'a failed run on a PR: its base',
      {
        ...base,
        kind: 'pr-fix-failed-run',
        runId: 1,
        runAttempt: 1,
        workflowName: 'CI',
        runUrl: '',
        prNumber: 2,
        headRef: 'feature',
        headSha: 'abc',
        headRepoFullName: 'o/r',
        baseRef: 'develop',
        isFork: true,
      },
      { ref: 'develop', from: 'base-branch' },
    ],
    [
      'a prompt on a PR: its base',
      { ...base, kind: 'prompt', prompt: 'x', subject: undefined, baseRef: 'develop' },
      { ref: 'develop', from: 'base-branch' },
    ],
    [
      'a prompt elsewhere: the default branch',
      { ...base, kind: 'prompt', prompt: 'x', subject: undefined, baseRef: undefined },
      { ref: 'main', from: 'default-branch' },
    ],
    [
      'a comment command: the default branch',
      {
        ...base,
        kind: 'comment-command',
        instruction: 'x',
        commentId: 1,
        commentAuthor: 'a',
        issueNumber: 3,
        isPullRequest: true,
        subject: { number: 3, isPullRequest: true, content: undefined },
      },
      { ref: 'main', from: 'default-branch' },
    ],
  ];

  it.each(cases)('reads the configuration of %s', (_what, task, expected) => {
    expect(policyRef(task)).toEqual(expected);
  });
});
