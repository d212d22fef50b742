/**
 * The built action on `/ci-agent <instruction>` comments: on an issue it works on a new branch and
 * opens a pull request; on a pull request it works on that pull request's branch — pushing to it
 * when it lives in this repository, never when it comes from a fork — under the base branch's
 * policy, whatever the pull request's head says.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { webhookExample } from '../github/webhook-examples.js';
import {
  FULL_NAME,
  OWNER,
  firstPrompt,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import {
  FILES,
  FIXED,
  HEAD,
  ISSUE,
  PR,
  expectClean,
  fixTurns,
  prHarness,
  repositoryOf,
} from './trigger-fixtures.js';

/** A new comment `body` by the repository's owner on issue (or pull request) `number`. */
function commentCreated(number: number, body: string, options: { onPullRequest?: boolean } = {}) {
  const payload = repositoryOf(
    webhookExample('issue_comment', (example) => example.action === 'created'),
  );
  payload.issue.number = number;
  payload.issue.title = ISSUE.title;
  payload.issue.body = ISSUE.body;
  if (options.onPullRequest) {
    // What GitHub adds to the issue of a pull request: links only, not the branches.
    Object.assign(payload.issue, {
      pull_request: {
        url: `https://api.github.com/repos/${FULL_NAME}/pulls/${number}`,
        html_url: `https://github.com/${FULL_NAME}/pull/${number}`,
        diff_url: `https://github.com/${FULL_NAME}/pull/${number}.diff`,
        patch_url: `https://github.com/${FULL_NAME}/pull/${number}.patch`,
      },
    });
  }
  payload.comment.body = body;
  payload.comment.user.login = OWNER;
  payload.sender.login = OWNER;
  payload.sender.type = 'User';
  return payload;
}

describe('the GitHub Action (dist/index.js) on a "/ci-agent" comment', () => {
  describe('when the comment is on an issue', () => {
    it('gives the instruction to the model, quoted, works on a new branch and reports on the issue', async () => {
      const harness = await startActionHarness({ files: FILES, seed: { issues: [ISSUE] } });
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: commentCreated(1, '/ci-agent fix the typo'),
        eventName: 'issue_comment',
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(firstPrompt(model)).toContain('```request\nfix the typo\n```');
      expect(run.outputs.branch).toMatch(/^ci-agent\/run-/);
      expect((await harness.origin.branches())[run.outputs.branch!]).toBe(
        run.outputs['commit-sha'],
      );
      expect(harness.github.state.pulls).toHaveLength(1);
      expect(reportComments(harness.github).map((comment) => comment.issueNumber)).toEqual([1]);
      expectClean(harness);
    });
  });

  describe('when the comment is on a pull request from this repository', () => {
    it("pushes the fix to the pull request's branch, under the base branch's policy", async () => {
      // The head's policy would refuse the edit; the base branch's allows it.
      const headPolicy = 'permissions:\n  deny:\n    - Edit\n';
      const harness = await prHarness({
        headFiles: { 'notes.md': 'A change.\n', '.github/ci-agent.yml': headPolicy },
      });
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: commentCreated(PR, '/ci-agent fix mean()', { onPullRequest: true }),
        eventName: 'issue_comment',
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(run.outputs.branch).toBe(HEAD);
      expect(run.outputs['pr-number']).toBe(String(PR));
      const head = (await harness.origin.branches())[HEAD];
      expect(head).toBe(run.outputs['commit-sha']);
      expect(await harness.origin.git(['rev-parse', `${head}~1`], harness.origin.bare)).toBe(
        `${harness.headSha}\n`,
      );
      const show = (path: string) =>
        harness.origin.git(['show', `${head}:${path}`], harness.origin.bare);
      expect(await show('src/stats.js')).toBe(FIXED);
      // The commit carries the agent's work, not the trusted policy it ran under.
      expect(await show('.github/ci-agent.yml')).toBe(headPolicy);
      expect(harness.github.state.pulls).toHaveLength(1);
      expect(reportComments(harness.github).map((comment) => comment.issueNumber)).toEqual([PR]);
      expectClean(harness);
    });
  });

  describe('when the comment is on a pull request from a fork', () => {
    it("works on the fork's code, pushes nothing and puts the patch in the comment", async () => {
      const harness = await prHarness({
        fork: true,
        headFiles: { 'notes.md': 'From a fork.\n' },
      });
      // GitHub keeps a fork's commits in the base repository as refs/pull/<n>/head.
      await harness.origin.git(
        ['update-ref', `refs/pull/${PR}/head`, harness.headSha],
        harness.origin.bare,
      );
      const before = await harness.origin.branches();
      const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
      const run = await runBuiltAction(harness, model, {
        payload: commentCreated(PR, '/ci-agent fix mean()', { onPullRequest: true }),
        eventName: 'issue_comment',
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(run.outputs.branch).toBe('');
      expect(await harness.origin.branches()).toEqual(before);
      expect(readFileSync(`${harness.origin.checkout}/notes.md`, 'utf8')).toBe('From a fork.\n');
      const comments = reportComments(harness.github);
      expect(comments.map((comment) => comment.issueNumber)).toEqual([PR]);
      expect(comments[0]!.body).toContain('comes from a fork, so nothing was pushed');
      expect(readFileSync(run.outputs['diff-path']!, 'utf8')).toContain('+  for (let i = 0;');
      expectClean(harness);
    });
  });
});
