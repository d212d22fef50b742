/**
 * The CI self-test (`.github/workflows/ci.yml`, job `action`) as it runs there: the built action on
 * the workflow's own events (push, and a pull request from the same repository) with a prompt,
 * against the recorded model of scripts/self-test-model.ts. If the recorded session or its check
 * drifted from what the action does, the CI job would fail on GitHub where nobody can debug it;
 * here it fails first.
 */
import { onTestFinished } from 'vitest';
import { describe, expect, it } from 'vitest';
import {
  selfTestProblems,
  SELF_TEST_ANSWER,
  SELF_TEST_API_KEY,
  startSelfTestModel,
} from '../../scripts/self-test-model.js';
import { webhookExample } from '../github/webhook-examples.js';
import { FULL_NAME, OWNER, runBuiltAction, startActionHarness } from '../helpers/action-harness.js';
import { expectClean, HEAD, PR, pullRequestOpened, repositoryOf } from './trigger-fixtures.js';

const PACKAGE_JSON = '{\n  "name": "self-test-sample",\n  "private": true\n}\n';
const FILES = { 'package.json': PACKAGE_JSON, 'README.md': '# sample\n' };
const INPUTS = {
  PROMPT: 'Read package.json and say what the package is called.',
  'ANTHROPIC-API-KEY': SELF_TEST_API_KEY,
  COMMENT: 'false',
};

function pushEvent() {
  const payload = repositoryOf(webhookExample('push'));
  payload.ref = 'refs/heads/main';
  payload.sender.login = OWNER;
  payload.sender.type = 'User';
  return payload;
}

async function selfTestModel(workspace: string) {
  const model = await startSelfTestModel(workspace);
  onTestFinished(() => model.close());
  return model;
}

describe('the CI self-test of the action', () => {
  describe('when a push runs it', () => {
    it('makes the recorded run: one Read, the answer, success, nothing pushed', async () => {
      const harness = await startActionHarness({ files: FILES });
      const before = await harness.origin.branches();
      const model = await selfTestModel(harness.origin.checkout);
      const run = await runBuiltAction(harness, model, {
        payload: pushEvent(),
        eventName: 'push',
        inputs: INPUTS,
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(run.outputs.turns).toBe('2');
      expect(run.summary).toContain(SELF_TEST_ANSWER);
      expect(selfTestProblems(model.requests, harness.origin.checkout)).toEqual([]);
      expect(await harness.origin.branches()).toEqual(before);
      expect(harness.github.state.comments).toEqual([]);
      expectClean(harness);
    });
  });

  describe('when a pull request from the same repository runs it', () => {
    it('makes the same run', async () => {
      const harness = await startActionHarness({
        files: FILES,
        branches: { [HEAD]: { 'notes.md': 'A change under review.\n' } },
        seed: {
          pulls: [{ repo: FULL_NAME, number: PR, title: 'Notes', head: HEAD, base: 'main' }],
        },
      });
      const headSha = (await harness.origin.branches())[HEAD]!;
      const model = await selfTestModel(harness.origin.checkout);
      const run = await runBuiltAction(harness, model, {
        payload: pullRequestOpened(headSha),
        eventName: 'pull_request',
        inputs: INPUTS,
      });

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(selfTestProblems(model.requests, harness.origin.checkout)).toEqual([]);
      expectClean(harness);
    });
  });

  describe('when the action sends another key than the step gave it', () => {
    it('fails the step, and the check names the key', async () => {
      const harness = await startActionHarness({ files: FILES });
      const model = await selfTestModel(harness.origin.checkout);
      const run = await runBuiltAction(harness, model, {
        payload: pushEvent(),
        eventName: 'push',
        inputs: { ...INPUTS, 'ANTHROPIC-API-KEY': 'sk-ant-another-key' },
      });

      expect(run.code).not.toBe(0);
      expect(selfTestProblems(model.requests, harness.origin.checkout)).toContain(
        "1 request(s) to /v1/messages carried another API key than the step's anthropic-api-key input",
      );
    });
  });
});
