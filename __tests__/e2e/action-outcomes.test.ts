/**
 * The built action says what happened, and pushes only what it may: a commit that changes CI is
 * held back unless the policy allows it, a pull request GitHub refuses is reported as that (the
 * branch is pushed), the `branch` output names only a pushed branch, a bad policy file ends the
 * run before it starts with its problems in a code block, a misconfigured trigger fails the step,
 * and a `/ci-agent` comment's pull request says who asked for what, where.
 */
import { linkTargets, renderGfm } from '../helpers/gfm.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startArtifactService } from '../../testkit/github-server/index.js';
import { webhookExample } from '../github/webhook-examples.js';
import {
  FULL_NAME,
  OWNER,
  RUN_ID,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import {
  FILES,
  HEAD,
  ISSUE,
  PR,
  POLICY,
  TEST_COMMAND,
  expectClean,
  fixTurns,
  issueLabeled,
  prHarness,
  pullRequestOpened,
  repositoryOf,
} from './trigger-fixtures.js';

const WORKFLOW = '.github/workflows/x.yml';

/** Fix the loop, and (as a build or test script might) write a workflow with Bash. */
function ciWritingTurns(root: string) {
  const [read, edit] = fixTurns(root);
  return [
    read!,
    edit!,
    [
      {
        type: 'tool_use' as const,
        id: 'toolu_03',
        name: 'Bash',
        input: {
          // Code the agent runs, naming the folder where no rule reads it: the Bash floor
          // refuses a command that names a judge, and the sandbox keeps an absent judge absent,
          // so this reaches the commit only unsandboxed (BASH_POLICY) — the check at the push.
          command:
            "node -e \"const d = ['.git', 'hub/workflows'].join(''); require('fs').mkdirSync(d, {recursive: true}); require('fs').writeFileSync(d + '/x.yml', 'on: push\\n')\"",
        },
      },
    ],
    [{ type: 'text' as const, text: 'Fixed the loop.' }],
  ];
}

const BASH_POLICY = `${POLICY}      Bash: allow\nsandbox: off\n`;

describe('the GitHub Action (dist/index.js): honest outcomes', () => {
  describe('when the commit changes CI', () => {
    it('pushes nothing without the policy’s say-so, and the report says what was held back', async () => {
      const harness = await startActionHarness({
        files: { ...FILES, '.github/ci-agent.yml': BASH_POLICY },
        seed: { issues: [ISSUE] },
      });
      const before = await harness.origin.branches();
      const model = await startModel({ turns: ciWritingTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled('ci-agent'),
        eventName: 'issues',
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.conclusion).toBe('failed');
      expect(run.outputs.branch).toBe('');
      expect(run.outputs['commit-sha']).toBe('');
      expect(await harness.origin.branches()).toEqual(before);
      expect(harness.github.state.pulls).toHaveLength(0);
      const patch = readFileSync(run.outputs['diff-path']!, 'utf8');
      expect(patch).toContain(`+++ b/${WORKFLOW}`);
      expect(patch).toContain('+  for (let i = 0;');
      const body = reportComments(harness.github)[0]!.body;
      expect(body).toContain(
        'nothing was pushed: the commit changes CI files, which the policy does not allow',
      );
      expect(body).toContain(`Held back: the commit changes ${WORKFLOW}.`);
      expect(body).toContain('push.allowCiChanges: true in .github/ci-agent.yml');
      expect(body).not.toContain('branch `ci-agent/issue-1`');
      expect(body).not.toMatch(/commit [0-9a-f]{7}/);
      expect(run.stdout).toContain(`::warning::Held back: the commit changes ${WORKFLOW}.`);
      expectClean(harness);
    });

    it('pushes it when the policy sets push.allowCiChanges', async () => {
      const harness = await startActionHarness({
        files: {
          ...FILES,
          '.github/ci-agent.yml': `${BASH_POLICY}push:\n  allowCiChanges: true\n`,
        },
        seed: { issues: [ISSUE] },
      });
      const model = await startModel({ turns: ciWritingTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled('ci-agent'),
        eventName: 'issues',
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(run.outputs.branch).toBe('ci-agent/issue-1');
      const head = (await harness.origin.branches())['ci-agent/issue-1'];
      expect(head).toBe(run.outputs['commit-sha']);
      expect(await harness.origin.git(['show', `${head}:${WORKFLOW}`], harness.origin.bare)).toBe(
        'on: push\n',
      );
      expect(harness.github.state.pulls).toHaveLength(1);
      expectClean(harness);
    });
  });

  describe('when a pull request’s own policy allows CI changes', () => {
    it('holds them back all the same: the base branch’s policy decides', async () => {
      const harness = await startActionHarness({
        files: { ...FILES, '.github/ci-agent.yml': BASH_POLICY },
        branches: {
          [HEAD]: {
            'notes.md': 'A change.\n',
            '.github/ci-agent.yml': `${BASH_POLICY}push:\n  allowCiChanges: true\n`,
          },
        },
        seed: {
          pulls: [{ repo: FULL_NAME, number: PR, title: 'Notes', head: HEAD, base: 'main' }],
        },
      });
      const headSha = (await harness.origin.branches())[HEAD]!;
      const model = await startModel({ turns: ciWritingTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(headSha),
        eventName: 'pull_request',
        inputs: { 'TEST-COMMAND': TEST_COMMAND },
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.conclusion).toBe('failed');
      expect(run.outputs.branch).toBe('');
      expect((await harness.origin.branches())[HEAD]).toBe(headSha);
      const body = reportComments(harness.github)[0]!.body;
      expect(body).toContain(`Held back: the commit changes ${WORKFLOW}.`);
      expectClean(harness);
    });
  });

  describe('when GitHub refuses to open the pull request', () => {
    it('reports the pushed branch, the setting that governs it and a compare link', async () => {
      const harness = await startActionHarness({
        files: FILES,
        seed: { issues: [ISSUE] },
        actionsCanCreatePullRequests: false,
      });
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled('ci-agent'),
        eventName: 'issues',
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.conclusion).toBe('failed');
      expect(run.outputs.branch).toBe('ci-agent/issue-1');
      expect(run.outputs['pr-number']).toBe('');
      expect((await harness.origin.branches())['ci-agent/issue-1']).toBe(run.outputs['commit-sha']);
      expect(harness.github.state.pulls).toHaveLength(0);
      const body = reportComments(harness.github)[0]!.body;
      expect(body).toContain(
        '### ❌ ci-agent: the branch `ci-agent/issue-1` was pushed, but GitHub refused to open the pull request',
      );
      expect(body).toContain('branch `ci-agent/issue-1`');
      expect(body).toContain(
        '"Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General',
      );
      // The compare link and the setting's page are links a reviewer can click.
      expect(linkTargets(renderGfm(body, 'remark'))).toEqual(
        expect.arrayContaining([
          `https://github.com/${FULL_NAME}/compare/main...ci-agent/issue-1?expand=1`,
          `https://github.com/${FULL_NAME}/settings/actions`,
        ]),
      );
      expect(body).not.toContain('push failed');
      expect(run.stdout).toContain(
        '::error::ci-agent: failed: the branch `ci-agent/issue-1` was pushed',
      );
      expectClean(harness);
    });
  });

  describe('the branch output and the report’s branch line', () => {
    it('and the commit are empty when the push failed', async () => {
      const harness = await startActionHarness({ files: FILES, seed: { issues: [ISSUE] } });
      await harness.origin.setRejectPushes('pushes are closed today');
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled('ci-agent'),
        eventName: 'issues',
      });
      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.branch).toBe('');
      expect(run.outputs['commit-sha']).toBe('');
      const body = reportComments(harness.github)[0]!.body;
      expect(body).toContain('the push failed');
      expect(body).not.toContain('branch `ci-agent/issue-1`');
      expect(body).not.toMatch(/commit [0-9a-f]{7}/);
    });

    it('are empty when there was nothing to push', async () => {
      const harness = await startActionHarness({ files: FILES });
      const payload = repositoryOf(webhookExample('workflow_dispatch'));
      payload.sender.login = OWNER;
      payload.sender.type = 'User';
      const model = await startModel({ turns: [[{ type: 'text', text: 'Nothing to do.' }]] });
      const run = await runBuiltAction(harness, model, {
        payload,
        eventName: 'workflow_dispatch',
        inputs: { PROMPT: 'Look around.' },
      });
      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(run.outputs.branch).toBe('');
      expect(Object.keys(await harness.origin.branches())).not.toContain(`ci-agent/run-${RUN_ID}`);
      expect(run.summary).not.toContain(`branch \`ci-agent/run-${RUN_ID}\``);
    });
  });

  describe('when the policy file is not valid', () => {
    it('says so in a short headline, lists the problems in a code block, and uploads what exists', async () => {
      const harness = await startActionHarness({
        files: { ...FILES, '.github/ci-agent.yml': 'permissions:\n  allow: Bash\n' },
        seed: { issues: [ISSUE] },
      });
      const service = await startArtifactService();
      onTestFinished(() => service.close());
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled('ci-agent'),
        eventName: 'issues',
        inputs: { 'UPLOAD-ARTIFACT': 'true' },
        env: service.env,
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.conclusion).toBe('failed');
      expect(model.requests.filter((request) => request.path === '/v1/messages')).toHaveLength(0);
      const body = reportComments(harness.github)[0]!.body;
      expect(body).toContain(
        '### ❌ ci-agent: the policy is not valid (.github/ci-agent.yml): the run did not start',
      );
      expect(body).toMatch(
        /```text\n\.github\/ci-agent\.yml:2:\d+: permissions\.allow: expected a list of permission rule strings, got "Bash"\n```/,
      );
      expect(body).not.toContain('stopped before it finished');
      expect(run.stdout).not.toContain('the artifact could not be uploaded');
      const files = Object.keys(service.artifacts[0]!.files).sort();
      expect(files).toEqual(['audit.html', 'report.md', 'tool-log.jsonl']);
      expect(body).toContain('the `ci-agent-log` artifact: tool-log.jsonl, report.md, audit.html');
    });
  });

  describe('when the artifact cannot be uploaded', () => {
    it('the report does not point to it', async () => {
      const harness = await startActionHarness({ files: FILES, seed: { issues: [ISSUE] } });
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      // No ACTIONS_RUNTIME_TOKEN: the runner gave the step no artifact service.
      const run = await runBuiltAction(harness, model, {
        payload: issueLabeled('ci-agent'),
        eventName: 'issues',
        inputs: { 'UPLOAD-ARTIFACT': 'true' },
      });
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toContain('::warning::the artifact could not be uploaded');
      const body = reportComments(harness.github)[0]!.body;
      expect(body).toContain('no artifact was uploaded: the step log says why');
      expect(body).not.toContain('`ci-agent-log` artifact');
      expect(run.summary).toContain('no artifact was uploaded');
    });
  });

  describe('when the workflow is misconfigured', () => {
    it('fails the step on workflow_dispatch without a prompt, naming the input', async () => {
      const harness = await startActionHarness({ files: FILES });
      const model = await startModel({ turns: [] });
      const run = await runBuiltAction(harness, model, {
        payload: repositoryOf(webhookExample('workflow_dispatch')),
        eventName: 'workflow_dispatch',
      });
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toContain(
        '::error::ci-agent: prompt: a workflow_dispatch run needs the prompt input, e.g. prompt: ${{ inputs.prompt }}; got nothing',
      );
      expect(run.outputs.conclusion).not.toBe('skipped');
      expect(model.requests).toHaveLength(0);
    });

    it('fails the step on pull_request without test-command, naming the input', async () => {
      const harness = await prHarness();
      const model = await startModel({ turns: [] });
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(harness.headSha),
        eventName: 'pull_request',
      });
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toContain(
        '::error::ci-agent: test-command: a pull_request run (#2) needs the test-command input, a shell command such as "npm test" (or set prompt); got nothing',
      );
      expect(run.outputs.conclusion).not.toBe('skipped');
      expect(model.requests).toHaveLength(0);
    });
  });

  describe('when a "/ci-agent" comment on an issue asks for a change', () => {
    it('opens a pull request titled after the request that names the requester, the comment and the issue', async () => {
      const harness = await startActionHarness({
        files: FILES,
        seed: { issues: [{ ...ISSUE, body: '<img src=x onerror=alert(1)> the issue says' }] },
      });
      const payload = repositoryOf(
        webhookExample('issue_comment', (example) => example.action === 'created'),
      );
      payload.issue.number = 1;
      payload.issue.title = ISSUE.title;
      payload.issue.body = '<img src=x onerror=alert(1)> the issue says';
      payload.issue.pull_request = undefined;
      payload.comment.body = '/ci-agent fix mean() <b>now</b>\n\nIt skips the first value.';
      payload.comment.user.login = OWNER;
      payload.sender.login = OWNER;
      payload.sender.type = 'User';
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, { payload, eventName: 'issue_comment' });

      expect(run.code, run.stdout).toBe(0);
      const [pull] = harness.github.state.pulls;
      expect(pull?.title).toBe('fix mean() <b>now</b>');
      expect(pull?.body).toContain(
        `Requested by @${OWNER} in [this comment](https://github.com/${FULL_NAME}/issues/1#issuecomment-${payload.comment.id}) on #1:`,
      );
      expect(pull?.body).toContain(
        '```text\nfix mean() <b>now</b>\n\nIt skips the first value.\n```',
      );
      expect(pull?.body).not.toContain('onerror');
      expectClean(harness);
    });
  });
});
