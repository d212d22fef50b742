/**
 * The built action (dist/index.js) uploading its artifact with the real @actions/artifact client
 * to the loopback results service and blob storage (testkit/github-server/artifact-service.ts), as a
 * runner would give it ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { renderAuditHtml } from '../../src/audit/html.js';
import { readAuditRun } from '../../src/audit/records.js';
import { verifyLogText } from '../../src/audit/verify.js';
import { startArtifactService } from '../../testkit/github-server/index.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import { webhookExample } from '../github/webhook-examples.js';
import {
  ACTION,
  API_KEY,
  OWNER,
  REPO,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import type { ActionHarness } from '../helpers/action-harness.js';

const FILES = ['tool-log.jsonl', 'transcript.jsonl', 'changes.patch', 'report.md', 'audit.html'];

function setup(): Promise<ActionHarness> {
  return startActionHarness({
    files: {
      'src/stats.js': 'export const first = (values) => values[1];\n',
      '.github/ci-agent.yml':
        'permissions:\n  onAsk:\n    default: deny\n    tools:\n      Edit: allow\n',
    },
    seed: {
      issues: [
        {
          repo: `${OWNER}/${REPO}`,
          number: 1,
          title: 'first() is off by one',
          labels: ['ci-agent'],
        },
      ],
    },
  });
}

function issueLabeled() {
  const payload = webhookExample('issues', (example) => example.action === 'labeled');
  payload.issue.number = 1;
  payload.issue.title = 'first() is off by one';
  if (payload.label) payload.label.name = 'ci-agent';
  payload.sender.login = OWNER;
  payload.sender.type = 'User';
  payload.repository.name = REPO;
  payload.repository.full_name = `${OWNER}/${REPO}`;
  payload.repository.owner.login = OWNER;
  payload.repository.default_branch = 'main';
  return payload;
}

function model(root: string): Promise<ReplayServer> {
  return startModel({
    turns: [
      [
        {
          type: 'tool_use',
          id: 'toolu_01',
          name: 'Read',
          input: { file_path: `${root}/src/stats.js` },
        },
      ],
      [
        {
          type: 'tool_use',
          id: 'toolu_02',
          name: 'Edit',
          input: { file_path: `${root}/src/stats.js`, old_string: '[1]', new_string: '[0]' },
        },
      ],
      [{ type: 'text', text: 'first() read the second value; it reads index 0 now.' }],
    ],
  });
}

describe('the GitHub Action (dist/index.js) with upload-artifact', () => {
  it('uploads the tool log, transcript, patch and report as one artifact', async () => {
    expect(existsSync(ACTION), 'run "npm run build" first').toBe(true);
    const harness = await setup();
    const replay = await model(harness.origin.checkout);
    const service = await startArtifactService();
    onTestFinished(() => service.close());

    const run = await runBuiltAction(harness, replay, {
      payload: issueLabeled(),
      eventName: 'issues',
      inputs: { 'UPLOAD-ARTIFACT': 'true', 'ARTIFACT-NAME': 'ci-agent-issue-1' },
      env: service.env,
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).not.toContain('the artifact could not be uploaded');
    expect(service.violations()).toEqual([]);
    expect(service.artifacts.map((artifact) => artifact.name)).toEqual(['ci-agent-issue-1']);
    const { files } = service.artifacts[0]!;
    expect(Object.keys(files).sort()).toEqual([...FILES].sort());
    for (const file of FILES) {
      expect(files[file], file).toBe(readFileSync(join(run.artifactsDir, file), 'utf8'));
    }
    expect(files['changes.patch']).toContain('+export const first = (values) => values[0];');
    expect(files['report.md']).toContain('ci-agent-issue-1');
    expect(files['tool-log.jsonl']).toContain('"subtype":"success"');
    expect(files['transcript.jsonl']).toContain('toolu_02');
    expect(files['tool-log.jsonl']).not.toContain(API_KEY);
    // The audit page is the uploaded log and patch, rendered: both calls, the diff.
    const page = files['audit.html'] ?? '';
    const lines = (files['tool-log.jsonl'] ?? '')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const title = /<title>(.*)<\/title>/.exec(page)?.[1] ?? '';
    expect(title).toMatch(/^ci-agent run \d+$/);
    // Its chain verified against the hash the run published, and of this run's session.
    const logHash = run.outputs['log-hash'] ?? '';
    const verdict = verifyLogText(files['tool-log.jsonl'] ?? '', {
      expectedHash: logHash,
      expectedSessionId: title.replace('ci-agent run ', ''),
    });
    expect(verdict.status).toBe('verified');
    expect(page).toBe(
      renderAuditHtml({
        run: readAuditRun(lines),
        verification: { verdict, checkedAgainst: { hash: logHash, from: 'log-hash' } },
        patch: files['changes.patch'] ?? '',
        title,
      }),
    );
    expect(page).toContain('<strong id="chain-status">Tool log chain: Verified</strong>');
    expect(page.match(/<li id="call-\d+"/g)).toHaveLength(2);
    expect(page).toContain('Content-Security-Policy');
    expect(page).toContain('+export const first = (values) =&gt; values[0];');
    expect(files['report.md']).toContain('audit.html');
  });

  it('warns and still succeeds when the runner gives no artifact service', async () => {
    const harness = await setup();
    const replay = await model(harness.origin.checkout);
    const run = await runBuiltAction(harness, replay, {
      payload: issueLabeled(),
      eventName: 'issues',
      inputs: { 'UPLOAD-ARTIFACT': 'true' },
    });
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('success');
    expect(run.stdout).toContain(
      `::warning::the artifact could not be uploaded (Unable to get the ACTIONS_RUNTIME_TOKEN env variable); the files are in ${run.artifactsDir}`,
    );
    for (const file of FILES) expect(existsSync(join(run.artifactsDir, file)), file).toBe(true);
  });
});
