/**
 * The built action (dist/index.js) publishing its tool log's final hash, and auditing a finished
 * run's artifact in audit mode (`audit-run-id`): the artifact is uploaded with the real
 * @actions/artifact client to the loopback results service, then served by the loopback GitHub's
 * REST API (list a run's artifacts, download behind a 302) for the real client to download.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it, onTestFinished } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startArtifactService } from '../../testkit/github-server/index.js';
import { webhookExample } from '../github/webhook-examples.js';
import {
  OWNER,
  REPO,
  RUN_ID,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import type { ActionHarness } from '../helpers/action-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

const ARTIFACT = 'ci-agent-issue-1';

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
      runs: [
        { repo: `${OWNER}/${REPO}`, id: Number(RUN_ID), event: 'issues', conclusion: 'success' },
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

const turns = (root: string) => [
  [
    {
      type: 'tool_use' as const,
      id: 'toolu_01',
      name: 'Read',
      input: { file_path: `${root}/src/stats.js` },
    },
  ],
  [
    {
      type: 'tool_use' as const,
      id: 'toolu_02',
      name: 'Edit',
      input: { file_path: `${root}/src/stats.js`, old_string: '[1]', new_string: '[0]' },
    },
  ],
  [{ type: 'text' as const, text: 'first() reads index 0 now.' }],
];

/** One run of the action on the issue that uploads its artifact; the artifact's zip. */
async function agentRun(harness: ActionHarness, extraInputs: Record<string, string> = {}) {
  const model = await startModel({ turns: turns(harness.origin.checkout) });
  const service = await startArtifactService();
  onTestFinished(() => service.close());
  const run = await runBuiltAction(harness, model, {
    payload: issueLabeled(),
    eventName: 'issues',
    inputs: { 'UPLOAD-ARTIFACT': 'true', 'ARTIFACT-NAME': ARTIFACT, ...extraInputs },
    env: service.env,
  });
  expect(run.code, run.stdout).toBe(0);
  expect(service.violations()).toEqual([]);
  return { run, zip: service.artifacts[0]!.blob };
}

async function auditCli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: ['audit', ...args],
    env: {},
    cwd: process.cwd(),
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(undefined),
  });
  return { code, stdout, stderr };
}

/** The zip with its tool log's lines changed by `change`. */
function tamperedZip(zip: Uint8Array, change: (lines: string[]) => void): Uint8Array {
  const files = unzipSync(zip);
  const lines = strFromU8(files['tool-log.jsonl']!).split('\n');
  change(lines);
  return zipSync({ ...files, 'tool-log.jsonl': strToU8(lines.join('\n')) });
}

describe('the GitHub Action and the tool log hash', () => {
  it('publishes the final hash in the report, the summary and log-hash; the artifact verifies against it', async () => {
    const harness = await setup();
    const { run, zip } = await agentRun(harness);
    const hash = run.outputs['log-hash']!;
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readFileSync(join(run.artifactsDir, 'report.md'), 'utf8')).toContain(
      `Tool log hash: \`${hash}\``,
    );
    expect(run.summary).toContain(`Tool log hash: \`${hash}\``);

    const dir = makeWorkspace('ci-agent-artifact-');
    onTestFinished(() => dir.cleanup());
    const path = dir.path('artifact.zip');
    await dir.write('artifact.zip', zip);
    const clean = await auditCli(path, '--expect-hash', hash);
    expect(clean.code, clean.stdout).toBe(0);

    // An edited permission decision inside the downloaded zip: exit 2, the line named.
    let edited = 0;
    await dir.write(
      'edited.zip',
      Buffer.from(
        tamperedZip(zip, (lines) => {
          edited = lines.findIndex((line) => line.includes('"behavior":"allow"'));
          lines[edited] = lines[edited]!.replace('"behavior":"allow"', '"behavior":"deny"');
        }),
      ),
    );
    const tampered = await auditCli(dir.path('edited.zip'), '--expect-hash', hash);
    expect(tampered.code).toBe(2);
    expect(tampered.stdout).toContain(`failure chain-broken line ${edited + 1}:`);
    // Its tail cut, against the hash its own report published: truncated.
    await dir.write('cut.zip', Buffer.from(tamperedZip(zip, (lines) => lines.splice(-3, 2))));
    const cut = await auditCli(dir.path('cut.zip'));
    expect(cut.code).toBe(2);
    expect(cut.stdout).toContain('failure truncated');
  });

  it('reports why the artifact is not attested when the job has no id-token permission', async () => {
    const harness = await setup();
    const { run, zip } = await agentRun(harness, { ATTEST: 'true' });
    expect(run.stdout).toContain(
      '::warning::The artifact is not attested: the job has no OIDC token',
    );
    expect(readFileSync(join(run.artifactsDir, 'report.md'), 'utf8')).toContain(
      'The artifact is not attested',
    );
    expect(Object.keys(unzipSync(zip))).not.toContain('attestation.sigstore.json');
  });
});

describe('the GitHub Action in audit mode (audit-run-id)', () => {
  async function auditRun(harness: ActionHarness) {
    const model = await startModel({ turns: [] });
    return runBuiltAction(harness, model, {
      payload: { inputs: {} },
      eventName: 'workflow_dispatch',
      inputs: { 'AUDIT-RUN-ID': RUN_ID, 'ARTIFACT-NAME': ARTIFACT },
    });
  }

  it("downloads a finished run's artifact by run id and verifies it", async () => {
    const harness = await setup();
    const { run: agent, zip } = await agentRun(harness);
    harness.github.addArtifact({
      repo: `${OWNER}/${REPO}`,
      runId: Number(RUN_ID),
      name: ARTIFACT,
      zip,
    });
    const audit = await auditRun(harness);
    expect(audit.code, audit.stdout).toBe(0);
    expect(audit.outputs['audit-result']).toBe('verified');
    expect(audit.outputs['log-hash']).toBe(agent.outputs['log-hash']);
    expect(audit.summary).toContain('ci-agent audit: verified');
    expect(harness.github.violations()).toEqual([]);
    const paths = harness.github.requests.map((request) => `${request.method} ${request.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        `GET /repos/${OWNER}/${REPO}/actions/runs/${RUN_ID}/artifacts`,
        expect.stringMatching(
          new RegExp(`^GET /repos/${OWNER}/${REPO}/actions/artifacts/\\d+/zip$`),
        ),
      ]),
    );
  });

  it('fails the step naming the line when the artifact was tampered with', async () => {
    const harness = await setup();
    const { zip } = await agentRun(harness);
    const swapped = tamperedZip(zip, (lines) => ([lines[1], lines[2]] = [lines[2]!, lines[1]!]));
    harness.github.addArtifact({
      repo: `${OWNER}/${REPO}`,
      runId: Number(RUN_ID),
      name: ARTIFACT,
      zip: swapped,
    });
    const audit = await auditRun(harness);
    expect(audit.code).not.toBe(0);
    expect(audit.outputs['audit-result']).toBe('failed');
    expect(audit.stdout).toContain('::error::ci-agent audit: tool-log.jsonl: line 2 is link 3');
    expect(audit.summary).toContain('broken at line 2 (reordered)');
  });

  it('fails the step when the run has no such artifact', async () => {
    const harness = await setup();
    const audit = await auditRun(harness);
    expect(audit.code).not.toBe(0);
    expect(audit.outputs['audit-result']).toBe('failed');
    expect(audit.stdout).toContain(`the audit of the ${ARTIFACT} artifact of run ${RUN_ID} failed`);
  });
});
