/**
 * The built action on the triggers other than a labelled issue or a comment (action-comments.test.ts),
 * and on the ways a run goes wrong:
 * a fork PR, a report too large for a comment, GitHub failing to take the comment, and a run
 * killed mid-way. Payloads are the real examples from @octokit/webhooks-examples, pointed at the
 * seeded repository.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { webhookExample } from '../github/webhook-examples.js';
import {
  ACTION,
  FULL_NAME,
  OWNER,
  RUN_ID,
  firstPrompt,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import {
  CHECK,
  FILES,
  FIXED,
  HEAD,
  ISSUE,
  POLICY,
  PR,
  TEST_COMMAND,
  expectClean,
  fixTurns,
  issueLabeled,
  prHarness,
  pullRequestOpened,
  repositoryOf,
} from './trigger-fixtures.js';

describe('the GitHub Action (dist/index.js) on its other triggers', () => {
  describe('when a pull request is opened and test-command is set', () => {
    it('says the tests pass and stops, without asking the model', async () => {
      expect(existsSync(ACTION), 'run "npm run build" first').toBe(true);
      const harness = await prHarness({ headFiles: { 'src/stats.js': FIXED } });
      const model = await startModel({ turns: [] });
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(harness.headSha),
        eventName: 'pull_request',
        inputs: { 'TEST-COMMAND': TEST_COMMAND },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('tests-pass');
      expect(model.requests).toHaveLength(0);
      const comments = reportComments(harness.github);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.issueNumber).toBe(PR);
      expect(comments[0]!.body).toContain('`node check.mjs` passes on this pull request');
      expect((await harness.origin.branches())[HEAD]).toBe(harness.headSha);
      expectClean(harness);
    });

    it("puts back the hook a passing test command planted, unsandboxed, before the workflow's next step", async () => {
      const planting =
        "import { writeFileSync } from 'node:fs';\n" +
        "writeFileSync('.git/hooks/post-checkout', '#!/bin/sh\\ntouch ../planted-hook-ran\\n', { mode: 0o755 });\n";
      const harness = await startActionHarness({
        files: { ...FILES, '.github/ci-agent.yml': `${POLICY}sandbox: off\n` },
        branches: { [HEAD]: { 'src/stats.js': FIXED, 'check.mjs': `${planting}${CHECK}` } },
        seed: {
          pulls: [{ repo: FULL_NAME, number: PR, title: 'Plant', head: HEAD, base: 'main' }],
        },
      });
      const headSha = (await harness.origin.branches())[HEAD]!;
      const model = await startModel({ turns: [] });
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(headSha),
        eventName: 'pull_request',
        inputs: { 'TEST-COMMAND': TEST_COMMAND },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('tests-pass');
      const checkout = harness.origin.checkout;
      expect(existsSync(join(checkout, '.git/hooks/post-checkout'))).toBe(false);
      await harness.origin.git(['checkout', '-q', '--detach'], checkout);
      expect(existsSync(join(checkout, '..', 'planted-hook-ran'))).toBe(false);
      expect(run.stdout).toContain(
        "::warning::The agent changed git's configuration (.git/hooks/post-checkout); it was put back before the workflow's next step",
      );
    });

    it('gives the failing output to the model and pushes the fix to the PR branch', async () => {
      const harness = await prHarness();
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(harness.headSha),
        eventName: 'pull_request',
        inputs: { 'TEST-COMMAND': TEST_COMMAND },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(firstPrompt(model)).toContain('mean([1, 2, 3]): expected 2, got 1.6666666666666667');
      const head = (await harness.origin.branches())[HEAD];
      expect(head).toBe(run.outputs['commit-sha']);
      expect(head).not.toBe(harness.headSha);
      const committed = await harness.origin.git(
        ['show', `${head}:src/stats.js`],
        harness.origin.bare,
      );
      expect(committed).toBe(FIXED);
      expect(harness.github.state.pulls).toHaveLength(1);
      const comments = reportComments(harness.github);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.issueNumber).toBe(PR);
      expect(comments[0]!.body).toContain('+  for (let i = 0; i < values.length; i++)');
      expectClean(harness);
    });
  });

  describe('when a workflow run on a pull request fails', () => {
    it("gives the failed job's log to the model and pushes the fix to the PR branch", async () => {
      const payload = repositoryOf(
        webhookExample(
          'workflow_run',
          (example) =>
            example.action === 'completed' && example.workflow_run.pull_requests.length > 0,
        ),
      );
      const run = payload.workflow_run;
      const harness = await prHarness({
        runs: [
          {
            repo: FULL_NAME,
            id: run.id,
            name: 'CI',
            headBranch: HEAD,
            conclusion: 'failure',
            pullRequests: [PR],
            jobs: [
              { name: 'lint', conclusion: 'success', log: 'lint passed\n' },
              {
                name: 'test',
                conclusion: 'failure',
                log: '> node check.mjs\nmean([1, 2, 3]): expected 2, got 1.6666666666666667\n##[error]Process completed with exit code 1.\n',
              },
            ],
          },
        ],
      });
      run.conclusion = 'failure';
      run.head_branch = HEAD;
      run.head_sha = harness.headSha;
      run.head_repository.full_name = FULL_NAME;
      run.repository.full_name = FULL_NAME;
      const pull = run.pull_requests[0]!;
      pull.number = PR;
      pull.head.ref = HEAD;
      pull.head.sha = harness.headSha;
      pull.base.ref = 'main';
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const action = await runBuiltAction(harness, model, { payload, eventName: 'workflow_run' });

      expect(action.code, action.stdout).toBe(0);
      expect(action.outputs.conclusion).toBe('success');
      const prompt = firstPrompt(model);
      expect(prompt).toContain('== job "test" (failed)');
      expect(prompt).toContain('mean([1, 2, 3]): expected 2, got 1.6666666666666667');
      expect(prompt).not.toContain('lint passed');
      const head = (await harness.origin.branches())[HEAD];
      expect(head).toBe(action.outputs['commit-sha']);
      expect(await harness.origin.git(['show', `${head}:src/stats.js`], harness.origin.bare)).toBe(
        FIXED,
      );
      expect(reportComments(harness.github).map((comment) => comment.issueNumber)).toEqual([PR]);
      expectClean(harness);
    });
  });

  describe('when a workflow is dispatched with a prompt', () => {
    it('runs the prompt on a new branch and opens a pull request', async () => {
      const harness = await startActionHarness({ files: FILES });
      const payload = repositoryOf(webhookExample('workflow_dispatch'));
      payload.sender.login = OWNER;
      payload.sender.type = 'User';
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const prompt = 'mean() in src/stats.js skips the first value: fix it.';
      const run = await runBuiltAction(harness, model, {
        payload,
        eventName: 'workflow_dispatch',
        inputs: { PROMPT: prompt },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(firstPrompt(model)).toContain(prompt);
      expect(run.outputs.branch).toBe(`ci-agent/run-${RUN_ID}`);
      expect((await harness.origin.branches())[run.outputs.branch!]).toBe(
        run.outputs['commit-sha'],
      );
      expect(harness.github.state.pulls.map((pull) => pull.number)).toEqual([
        Number(run.outputs['pr-number']),
      ]);
      expect(run.summary).toContain('ci-agent: the agent made changes');
      expectClean(harness);
    });
  });

  describe('when the pull request comes from a fork', () => {
    it('pushes nothing and puts the patch in the comment', async () => {
      const harness = await prHarness({ fork: true });
      const before = await harness.origin.branches();
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(harness.headSha, 'drive-by/Hello-World'),
        eventName: 'pull_request',
        inputs: { 'TEST-COMMAND': TEST_COMMAND },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(run.outputs.branch).toBe('');
      expect(await harness.origin.branches()).toEqual(before);
      const comments = reportComments(harness.github);
      expect(comments.map((comment) => comment.issueNumber)).toEqual([PR]);
      expect(comments[0]!.body).toContain('comes from a fork, so nothing was pushed');
      expect(comments[0]!.body).toContain('+  for (let i = 0; i < values.length; i++)');
      expect(readFileSync(run.outputs['diff-path']!, 'utf8')).toContain('+  for (let i = 0;');
      expectClean(harness);
    });
  });

  describe('when the report is larger than a GitHub comment', () => {
    it('cuts the comment to fit and says the rest is in the artifact', async () => {
      const harness = await startActionHarness({
        files: { ...FILES, '.github/ci-agent.yml': `${POLICY}      Write: allow\n` },
        seed: { issues: [ISSUE] },
      });
      const root = harness.origin.checkout;
      const huge = Array.from({ length: 3000 }, (_, line) => `row ${line}: ${'x'.repeat(40)}`).join(
        '\n',
      );
      // Big chunks: the Write input streams in a few events instead of thousands.
      const model = await startModel({
        jsonChunkSize: 200_000,
        turns: [
          [
            {
              type: 'tool_use',
              id: 'toolu_01',
              name: 'Write',
              input: { file_path: `${root}/data.txt`, content: huge },
            },
          ],
          [{ type: 'text', text: 'Wrote the data.' }],
        ],
      });
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled(),
        eventName: 'issues',
        inputs: { 'UPLOAD-ARTIFACT': 'true', 'ARTIFACT-NAME': 'ci-agent-everything' },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(readFileSync(run.outputs['diff-path']!, 'utf8').length).toBeGreaterThan(100_000);
      const comments = reportComments(harness.github);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body.length).toBeLessThanOrEqual(65_536);
      expect(comments[0]!.body).toMatch(/the whole patch is in the `ci-agent-everything` artifact/);
      expectClean(harness);
    });
  });

  describe('when GitHub fails to take the comment', () => {
    // A 5xx is retried by the client (the retry plugin, seconds of back-off); a 4xx is final.
    it.each([
      { status: 422, times: undefined, posted: 0, warned: true, label: 'refused for good' },
      { status: 502, times: 1, posted: 1, warned: false, label: 'failed once, then retried' },
    ])(
      'still pushes the work and writes the report to the job summary ($label)',
      async ({ status, times, posted, warned }) => {
        const path = '/repos/Codertocat/Hello-World/issues/1/comments';
        const harness = await startActionHarness({
          files: FILES,
          seed: { issues: [ISSUE] },
          faults: [{ method: 'POST', path, status, ...(times ? { times } : {}) }],
        });
        const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
        const run = await runBuiltAction(harness, model, {
          payload: issueLabeled(),
          eventName: 'issues',
        });

        expect(run.code, run.stdout).toBe(0);
        expect(run.outputs.conclusion).toBe('success');
        expect((await harness.origin.branches())['ci-agent/issue-1']).toBe(
          run.outputs['commit-sha'],
        );
        const warning = new RegExp(
          `^::warning::could not post the report comment: .*${status}`,
          'm',
        );
        if (warned) expect(run.stdout).toMatch(warning);
        else expect(run.stdout).not.toMatch(warning);
        expect(run.summary).toContain('ci-agent: the agent made changes');
        expect(reportComments(harness.github)).toHaveLength(posted);
        const posts = harness.github.requests.filter(
          (request) => request.method === 'POST' && request.path === path,
        );
        // Refused: the working comment and the report each tried once; failed once: retried.
        expect(posts).toHaveLength(2);
        expectClean(harness);
      },
    );
  });

  describe('when the run is killed mid-way', () => {
    it('leaves the tool log, a partial report and an updated comment, and fails the step', async () => {
      const { harness, model } = await sleepingRun();
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled(),
        eventName: 'issues',
        started: (child, artifactsDir) => {
          void stopWhenToolRuns(child, join(artifactsDir, 'tool-log.jsonl'));
        },
      });

      expect(run.code, run.stdout).not.toBe(0);
      expect(run.code).not.toBeNull();
      expect(run.outputs.conclusion, run.stdout).toBe('cancelled');
      expect(model.requests).toHaveLength(1);
      expect(Object.keys(await harness.origin.branches())).toEqual(['main']);
      const lines = readFileSync(join(run.artifactsDir, 'tool-log.jsonl'), 'utf8')
        .trim()
        .split('\n');
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(JSON.stringify(entries)).toContain('sleep 30');
      const report = readFileSync(join(run.artifactsDir, 'report.md'), 'utf8');
      expect(report).toContain('The run was stopped before it finished');
      const comments = reportComments(harness.github);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toContain('The run was stopped before it finished');
      expectClean(harness);
    });
  });

  describe('when the run reaches its time limit', () => {
    it("stops the tool, ends as 'limit', says which limit and fails the step", async () => {
      const { harness, model } = await sleepingRun();
      const started = Date.now();
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled(),
        eventName: 'issues',
        // 0.05 minutes: three seconds.
        inputs: { 'TIMEOUT-MINUTES': '0.05' },
      });

      expect(Date.now() - started).toBeLessThan(20_000);
      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.conclusion, run.stdout).toBe('limit');
      expect(model.requests).toHaveLength(1);
      const comments = reportComments(harness.github);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toMatch(/time limit/);
      const report = readFileSync(join(run.artifactsDir, 'report.md'), 'utf8');
      expect(report).toMatch(/time limit/);
      expectClean(harness);
    });
  });
});

/** A labelled issue whose model first asks for a 30 s `sleep` the policy allows. */
async function sleepingRun() {
  const harness = await startActionHarness({
    files: { ...FILES, '.github/ci-agent.yml': 'permissions:\n  allow:\n    - Bash(sleep:*)\n' },
    seed: { issues: [ISSUE] },
  });
  const sleep = { command: 'sleep 30', description: 'Wait' };
  const model = await startModel({
    turns: [
      [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: sleep }],
      [{ type: 'text', text: 'unreachable' }],
    ],
  });
  return { harness, model };
}

/** SIGTERM as soon as the tool log shows the Bash call allowed, i.e. the tool is starting. */
async function stopWhenToolRuns(child: ChildProcess, logPath: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const log = existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
    if (/permission_decision[^\n]*"Bash"/.test(log)) {
      child.kill('SIGTERM');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
