/**
 * The GitHub settings adopters trip over (docs/GITHUB.md), as the built action meets them on the
 * loopback GitHub, whose token carries a workflow's `permissions:` block and whose git over HTTP
 * refuses a push as GitHub does: each refusal is named in the report and the step's error with
 * what to change, nothing done is lost, and a push made with GITHUB_TOKEN says that CI will not
 * run on it (an App token's does not, and opens its pull request whatever the Actions setting).
 */
import { describe, expect, it } from 'vitest';
import { webhookExample } from '../github/webhook-examples.js';
import { linkTargets, renderGfm, visibleText } from '../helpers/gfm.js';
import {
  FULL_NAME,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import type { ActionSetup } from '../helpers/action-harness.js';
import {
  FILES,
  HEAD,
  ISSUE,
  PR,
  expectClean,
  fixTurns,
  issueLabeled,
  repositoryOf,
} from './trigger-fixtures.js';

const ISSUE_PERMISSIONS = {
  contents: 'write',
  'pull-requests': 'write',
  issues: 'write',
} as const;

/** A labelled issue fixed by the replayed session, on a repository set up as `setup` says. */
async function labelledIssueRun(setup: Partial<ActionSetup>) {
  const harness = await startActionHarness({
    files: FILES,
    seed: { issues: [ISSUE] },
    gitOverHttp: true,
    ...setup,
  });
  const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
  const run = await runBuiltAction(harness, model, {
    payload: issueLabeled('ci-agent'),
    eventName: 'issues',
  });
  return { harness, run };
}

describe('the GitHub Action (dist/index.js) and the settings GitHub enforces', () => {
  describe('when "Allow GitHub Actions to create and approve pull requests" is off', () => {
    it('names the setting and its place in the step’s error, with the branch pushed', async () => {
      const { harness, run } = await labelledIssueRun({
        tokenPermissions: ISSUE_PERMISSIONS,
        actionsCanCreatePullRequests: false,
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toMatch(
        /^::error::ci-agent: failed: the branch `ci-agent\/issue-1` was pushed, but GitHub refused to open the pull request: .*turn on "Allow GitHub Actions to create and approve pull requests" in Settings → Actions → General → Workflow permissions, or open it by hand$/m,
      );
      expect((await harness.origin.branches())['ci-agent/issue-1']).toBe(run.outputs['commit-sha']);
      const body = reportComments(harness.github)[0]!.body;
      expect(linkTargets(renderGfm(body, 'remark'))).toContain(
        `${harness.serverUrl}/${FULL_NAME}/compare/main...ci-agent/issue-1?expand=1`,
      );
      expectClean(harness);
    });

    it('opens the pull request all the same with a GitHub App’s token, and notes nothing', async () => {
      const { harness, run } = await labelledIssueRun({
        tokenActor: 'ci-agent-app[bot]',
        actionsCanCreatePullRequests: false,
      });

      expect(run.code, run.stdout).toBe(0);
      expect(harness.github.state.pulls.map((pull) => pull.user)).toEqual(['ci-agent-app[bot]']);
      const shown = visibleText(renderGfm(reportComments(harness.github)[0]!.body, 'remark'));
      expect(shown).not.toContain('GITHUB_TOKEN');
      expectClean(harness);
    });
  });

  describe('when the job’s permissions: block leaves out what a step needs', () => {
    it('names pull-requests: write when the pull request cannot be opened', async () => {
      const { harness, run } = await labelledIssueRun({
        tokenPermissions: { contents: 'write', issues: 'write' },
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.branch).toBe('ci-agent/issue-1');
      expect(run.stdout).toContain(
        "::error::ci-agent: failed: the branch `ci-agent/issue-1` was pushed, but GitHub refused to open the pull request: the token lacks the permission: add `pull-requests: write` to the job's `permissions:`",
      );
      expect(harness.github.state.pulls).toHaveLength(0);
      expectClean(harness);
    });

    it('names contents: write when the push is refused, and keeps the work as a patch', async () => {
      const { harness, run } = await labelledIssueRun({
        tokenPermissions: { contents: 'read', 'pull-requests': 'write', issues: 'write' },
      });

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.branch).toBe('');
      expect(Object.keys(await harness.origin.branches())).toEqual(['main']);
      expect(run.stdout).toMatch(
        /^::error::ci-agent: failed: the work is done but the push was refused: GitHub refused the push \(403\): the token may not write to the repository; add `contents: write` to the job's `permissions:`/m,
      );
      const shown = visibleText(renderGfm(reportComments(harness.github)[0]!.body, 'remark'));
      expect(shown).toContain("add contents: write to the job's permissions:");
      // git's own words stay in the report, below the headline.
      expect(shown).toContain(
        'remote: Permission to Codertocat/Hello-World.git denied to github-actions[bot].',
      );
      expect(shown).toContain('+  for (let i = 0; i < values.length; i++)');
      expectClean(harness);
    });

    it('names issues: write when the report comment cannot be posted, and still opens the PR', async () => {
      const { harness, run } = await labelledIssueRun({
        tokenPermissions: { contents: 'write', 'pull-requests': 'write' },
      });

      expect(run.code, run.stdout).toBe(0);
      expect(harness.github.state.pulls).toHaveLength(1);
      expect(reportComments(harness.github)).toHaveLength(0);
      expect(run.stdout).toMatch(
        /^::warning::could not post the report comment: Resource not accessible by integration.*; the token lacks the permission: add `issues: write` to the job's `permissions:`/m,
      );
      expect(run.summary).toContain('add `issues: write`');
      expectClean(harness);
    });

    it('names actions: read when the failed jobs’ logs cannot be read', async () => {
      const harness = await startActionHarness({
        files: FILES,
        branches: { [HEAD]: { 'notes.md': 'A change.\n' } },
        gitOverHttp: true,
        tokenPermissions: ISSUE_PERMISSIONS,
        seed: {
          pulls: [{ repo: FULL_NAME, number: PR, title: 'Notes', head: HEAD, base: 'main' }],
          runs: [
            {
              repo: FULL_NAME,
              id: 30433642,
              name: 'ci',
              headBranch: HEAD,
              conclusion: 'failure',
              pullRequests: [PR],
              jobs: [{ name: 'test', conclusion: 'failure', log: 'mean ok? no\n' }],
            },
          ],
        },
      });
      const payload = failedRun((await harness.origin.branches())[HEAD]!);
      const model = await startModel({ turns: [] });
      const run = await runBuiltAction(harness, model, { payload, eventName: 'workflow_run' });

      expect(run.code, run.stdout).toBe(1);
      expect(model.requests).toHaveLength(0);
      expect(run.stdout).toContain(
        "the token lacks the permission: add `actions: read` to the job's `permissions:`",
      );
      expectClean(harness);
    });
  });

  describe('when the push is made with GITHUB_TOKEN', () => {
    it('notes that CI will not run on it, and how to have it run', async () => {
      const { harness, run } = await labelledIssueRun({ tokenPermissions: ISSUE_PERMISSIONS });

      expect(run.code, run.stdout).toBe(0);
      const shown = visibleText(renderGfm(reportComments(harness.github)[0]!.body, 'remark'));
      expect(shown).toContain(
        "The push to ci-agent/issue-1 and its pull request were made with the job's GITHUB_TOKEN, so GitHub starts no workflow for them: CI will not run on this commit",
      );
      expect(shown).toContain('actions/create-github-app-token');
      expectClean(harness);
    });
  });
});

/** A failed run of `ci` on PR #2's branch, as workflow_run delivers it. */
function failedRun(headSha: string) {
  const payload = repositoryOf(
    webhookExample(
      'workflow_run',
      (example) => example.action === 'completed' && example.workflow_run.pull_requests.length > 0,
    ),
  );
  const run = payload.workflow_run;
  run.id = 30433642;
  run.conclusion = 'failure';
  run.head_branch = HEAD;
  run.head_sha = headSha;
  run.head_repository.full_name = FULL_NAME;
  run.repository.full_name = FULL_NAME;
  const pull = run.pull_requests[0]!;
  pull.number = PR;
  pull.head.ref = HEAD;
  pull.head.sha = headSha;
  pull.base.ref = 'main';
  return payload;
}
