/**
 * The example workflows run green exactly as written, with the example policy, against the
 * loopback GitHub, and each is denied without that policy. For every examples/*.yml that uses
 * ci-agent:
 *
 * 1. the file is read as the runner reads it (workflow-file.ts): its `on:` event and types must
 *    take the fixture's payload, the job's `if:` must let it run, and every `${{ }}` in the file
 *    must be one the evaluator knows (it throws on any other);
 * 2. the token carries exactly the workflow's `permissions:`, and fetches and pushes go over the
 *    loopback's git HTTP with it (the checkout must say `persist-credentials: false`, so the
 *    clone has no credentials of its own, as on the runner);
 * 3. the steps before ci-agent's are checkout (the harness's clone, on the `ref` it names),
 *    setup-node (the test's own Node) and `npm ci` (the fixture has no dependencies): any other
 *    step fails the test, since it would not have run;
 * 4. the step's inputs are action.yml's defaults under the `with:` as written, its environment
 *    the workflow's, the job's and the step's `env:`, each `${{ }}` evaluated against the payload,
 *    the secret ANTHROPIC_API_KEY and the job's token;
 * 5. examples/ci-agent.yml is .github/ci-agent.yml of a repository whose `npm test` fails, and the
 *    replayed session reads the code, edits it and runs `npm test`, all in the sandbox.
 *
 * The audit example's audit step (the action's audit mode) then verifies an artifact those runs
 * uploaded, and a tampered copy, served by the loopback GitHub by run id; its shell steps run as
 * bash runs them on the runner.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { strToU8, zipSync } from 'fflate';
import { parse } from 'yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startArtifactService } from '../../testkit/github-server/index.js';
import type { GitHubSeed, StoredArtifact } from '../../testkit/github-server/index.js';
import { webhookExample } from '../github/webhook-examples.js';
import { renderGfm, visibleText } from '../helpers/gfm.js';
import {
  API_KEY,
  FULL_NAME,
  OWNER,
  RUN_ID,
  TOKEN,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import type { ActionHarness, ActionRun } from '../helpers/action-harness.js';
import {
  agentStep,
  evaluateAll,
  evaluateCondition,
  interpolate,
  interpolateAll,
  permissionsOf,
  readWorkflow,
} from '../helpers/workflow-file.js';
import type { ExpressionContext, Workflow, WorkflowStep } from '../helpers/workflow-file.js';
import {
  BROKEN,
  CHECK,
  FIXED,
  HEAD,
  ISSUE,
  PR,
  expectClean,
  issueLabeled,
  pullRequestOpened,
  repositoryOf,
} from './trigger-fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');
const POLICY = readFileSync(join(EXAMPLES, 'ci-agent.yml'), 'utf8');
const PACKAGE_JSON = `${JSON.stringify(
  { name: 'stats', private: true, type: 'module', scripts: { test: 'node check.mjs' } },
  null,
  2,
)}\n`;
const RUN_ID_OF_CI = 30433642;

/** The repository: `npm test` fails on mean(); the workflow itself, and the policy when asked. */
function repositoryFiles(example: string, policy: boolean): Record<string, string> {
  return {
    'package.json': PACKAGE_JSON,
    'src/stats.js': BROKEN,
    'check.mjs': CHECK,
    [`.github/workflows/${example}`]: readFileSync(join(EXAMPLES, example), 'utf8'),
    ...(policy ? { '.github/ci-agent.yml': POLICY } : {}),
  };
}

/** Read the code, fix the loop, run the tests, say so. */
function session(root: string) {
  return [
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
        input: {
          file_path: `${root}/src/stats.js`,
          old_string: 'let i = 1',
          new_string: 'let i = 0',
        },
      },
    ],
    [{ type: 'tool_use' as const, id: 'toolu_03', name: 'Bash', input: { command: 'npm test' } }],
    [{ type: 'text' as const, text: 'mean() skipped the first value; npm test passes now.' }],
  ];
}

/** A webhook payload: an object, with `action` for most events. */
type Payload = object & { action?: string };

interface Trigger {
  eventName: string;
  payload: Payload;
}

interface Example {
  file: string;
  eventName: string;
  seed: Omit<GitHubSeed, 'repos'>;
  branches?: Record<string, Record<string, string>>;
  /** The event's payload, given the pull request's head once the repository exists. */
  payload: (headSha: string) => Payload;
  /** What a green run leaves on GitHub. */
  expectGreen: (harness: ActionHarness, run: ActionRun) => Promise<void>;
}

const PR_BRANCH = { [HEAD]: { 'notes.md': 'A change under review.\n' } };
const PR_SEED = {
  pulls: [{ repo: FULL_NAME, number: PR, title: 'Notes', head: HEAD, base: 'main' }],
};

function commentCreated(body: string) {
  const payload = repositoryOf(
    webhookExample('issue_comment', (example) => example.action === 'created'),
  );
  payload.issue.number = ISSUE.number;
  payload.issue.title = ISSUE.title;
  payload.issue.body = ISSUE.body;
  payload.comment.body = body;
  payload.comment.user.login = OWNER;
  payload.sender.login = OWNER;
  payload.sender.type = 'User';
  return payload;
}

function failedCiRun(headSha: string) {
  const payload = repositoryOf(
    webhookExample(
      'workflow_run',
      (example) => example.action === 'completed' && example.workflow_run.pull_requests.length > 0,
    ),
  );
  const run = payload.workflow_run;
  Object.assign(run, { id: RUN_ID_OF_CI, name: 'ci', conclusion: 'failure' });
  Object.assign(run, { head_branch: HEAD, head_sha: headSha });
  run.head_repository.full_name = FULL_NAME;
  run.repository.full_name = FULL_NAME;
  const pull = run.pull_requests[0]!;
  pull.number = PR;
  pull.head.ref = HEAD;
  pull.head.sha = headSha;
  pull.base.ref = 'main';
  return payload;
}

function dispatched(prompt: string) {
  const payload = repositoryOf(webhookExample('workflow_dispatch'));
  payload.sender.login = OWNER;
  payload.sender.type = 'User';
  payload.inputs = { prompt };
  return payload;
}

async function fixedOn(harness: ActionHarness, branch: string): Promise<void> {
  const head = (await harness.origin.branches())[branch];
  expect(await harness.origin.git(['show', `${head}:src/stats.js`], harness.origin.bare)).toBe(
    FIXED,
  );
}

function commentsOn(harness: ActionHarness): number[] {
  return reportComments(harness.github).map((comment) => comment.issueNumber);
}

const EXAMPLE_RUNS: Example[] = [
  {
    file: 'issue-label.yml',
    eventName: 'issues',
    seed: { issues: [ISSUE] },
    payload: () => issueLabeled('ci-agent'),
    async expectGreen(harness, run) {
      expect(run.outputs.branch).toBe('ci-agent/issue-1');
      await fixedOn(harness, 'ci-agent/issue-1');
      expect(harness.github.state.pulls.map((pull) => pull.body)).toEqual([
        expect.stringContaining('Closes #1.'),
      ]);
      expect(commentsOn(harness)).toEqual([1]);
    },
  },
  {
    file: 'pull-request.yml',
    eventName: 'pull_request',
    seed: PR_SEED,
    branches: PR_BRANCH,
    payload: (headSha) => pullRequestOpened(headSha),
    async expectGreen(harness, run) {
      expect(run.outputs.branch).toBe(HEAD);
      await fixedOn(harness, HEAD);
      expect(commentsOn(harness)).toEqual([PR]);
    },
  },
  {
    file: 'failing-tests.yml',
    eventName: 'workflow_run',
    branches: PR_BRANCH,
    seed: {
      ...PR_SEED,
      runs: [
        {
          repo: FULL_NAME,
          id: RUN_ID_OF_CI,
          name: 'ci',
          headBranch: HEAD,
          conclusion: 'failure',
          pullRequests: [PR],
          jobs: [
            {
              name: 'test',
              conclusion: 'failure',
              log: '> npm test\nmean([1, 2, 3]): expected 2, got 1.6666666666666667\n##[error]Process completed with exit code 1.\n',
            },
          ],
        },
      ],
    },
    payload: (headSha) => failedCiRun(headSha),
    async expectGreen(harness, run) {
      expect(run.outputs.branch).toBe(HEAD);
      await fixedOn(harness, HEAD);
      expect(commentsOn(harness)).toEqual([PR]);
    },
  },
  {
    file: 'comment.yml',
    eventName: 'issue_comment',
    seed: { issues: [ISSUE] },
    payload: () => commentCreated('/ci-agent mean() skips the first value: fix it'),
    async expectGreen(harness, run) {
      expect(run.outputs.branch).toMatch(/^ci-agent\/run-/);
      await fixedOn(harness, run.outputs.branch!);
      expect(harness.github.state.pulls).toHaveLength(1);
      expect(commentsOn(harness)).toEqual([1]);
    },
  },
  {
    file: 'dispatch.yml',
    eventName: 'workflow_dispatch',
    seed: {},
    payload: () => dispatched('mean() in src/stats.js skips the first value: fix it.'),
    async expectGreen(harness, run) {
      expect(run.outputs.branch).toMatch(/^ci-agent\/run-/);
      await fixedOn(harness, run.outputs.branch!);
      expect(harness.github.state.pulls).toHaveLength(1);
      expect(run.summary).toContain('ci-agent: the agent made changes');
    },
  },
];

/** The context the runner evaluates the file's expressions in, for this event. */
function contextFor(trigger: Trigger): ExpressionContext {
  return {
    github: {
      event: trigger.payload,
      event_name: trigger.eventName,
      repository: FULL_NAME,
      repository_owner: OWNER,
      token: TOKEN,
    },
    secrets: { ANTHROPIC_API_KEY: API_KEY, GITHUB_TOKEN: TOKEN },
    inputs: ('inputs' in trigger.payload ? trigger.payload.inputs : undefined) ?? {},
    env: {},
  };
}

/** The inputs the runner gives the step: action.yml's defaults under the `with:` as written. */
function stepInputs(workflow: Workflow, context: ExpressionContext): Record<string, string> {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
  };
  const defaults = Object.fromEntries(
    Object.entries(action.inputs).flatMap(([name, input]) =>
      input.default === undefined ? [] : [[name, input.default]],
    ),
  );
  const { step } = agentStep(workflow);
  for (const name of Object.keys(step.with ?? {})) {
    expect(
      Object.hasOwn(action.inputs, name),
      `${workflow.file}: with.${name} is no input of action.yml`,
    ).toBe(true);
  }
  const values = interpolateAll({ ...defaults, ...step.with }, context, workflow.file);
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name.replaceAll(' ', '_').toUpperCase(), value]),
  );
}

/** The steps before ci-agent's, each one the harness stands in for; the checkout's `ref`. */
function checkoutOf(workflow: Workflow, context: ExpressionContext): { ref: string | undefined } {
  const { job, step } = agentStep(workflow);
  const before = job.steps.slice(0, job.steps.indexOf(step));
  const checkout = before.find((candidate) => candidate.uses?.startsWith('actions/checkout@'));
  expect(checkout, `${workflow.file}: a checkout before ci-agent`).toBeDefined();
  expect(checkout!.with?.['persist-credentials'], `${workflow.file}: persist-credentials`).toBe(
    false,
  );
  for (const other of before) {
    const known =
      other === checkout ||
      other.uses?.startsWith('actions/setup-node@') ||
      other.run?.trim() === 'npm ci';
    expect(
      known,
      `${workflow.file}: a step the test does not stand in for: ${JSON.stringify(other)}`,
    ).toBe(true);
  }
  const ref = checkout!.with?.ref;
  if (ref !== undefined && typeof ref !== 'string') throw new Error(`${workflow.file}: ref`);
  return { ref: ref === undefined ? undefined : interpolate(ref, context, workflow.file) };
}

interface ExampleRun {
  harness: ActionHarness;
  run: ActionRun;
  artifacts: StoredArtifact[];
  toolLog: Record<string, unknown>[];
}

async function runExample(example: Example, policy: boolean): Promise<ExampleRun> {
  const workflow = readWorkflow(join(EXAMPLES, example.file));
  // 1. the trigger, the job's condition and every expression of the file (the head sha is
  //    known once the repository is made; nothing here reads it)
  const probe: Trigger = { eventName: example.eventName, payload: example.payload('0'.repeat(40)) };
  const on = workflow.on[example.eventName];
  expect(on, `${example.file}: on.${example.eventName}`).toBeDefined();
  const types = (on?.types as string[] | undefined) ?? [];
  if (types.length > 0) expect(types).toContain(probe.payload.action);
  evaluateAll(workflow, contextFor(probe));
  const { job, step } = agentStep(workflow);
  expect(
    evaluateCondition(job.if ?? 'true', contextFor(probe), workflow.file),
    `${example.file}: the job's if:`,
  ).toBe(true);
  // 2. and 3. the token's permissions, git over HTTP, the checkout
  const { ref } = checkoutOf(workflow, contextFor(probe));
  const harness = await startActionHarness({
    files: repositoryFiles(example.file, policy),
    ...(example.branches ? { branches: example.branches } : {}),
    seed: example.seed,
    tokenPermissions: permissionsOf(workflow, job),
    gitOverHttp: true,
    ...(ref ? { checkoutBranch: ref } : {}),
  });
  const headSha = (await harness.origin.branches())[HEAD] ?? '';
  const trigger: Trigger = { eventName: example.eventName, payload: example.payload(headSha) };
  // 4. the inputs and the environment as written
  const context = contextFor(trigger);
  const env = interpolateAll({ ...workflow.env, ...job.env, ...step.env }, context, workflow.file);
  const service = await startArtifactService();
  onTestFinished(() => service.close());
  const model = await startModel({ turns: session(harness.origin.checkout) });
  const run = await runBuiltAction(harness, model, {
    payload: trigger.payload,
    eventName: trigger.eventName,
    inputs: stepInputs(workflow, context),
    onlyTheseInputs: true,
    env: { ...env, ...service.env },
  });
  expect(service.violations()).toEqual([]);
  const toolLog = readFileSync(join(run.artifactsDir, 'tool-log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { harness, run, artifacts: service.artifacts, toolLog };
}

/** The end of each of the session's calls, by tool. */
function callEnds(toolLog: Record<string, unknown>[]) {
  return toolLog
    .filter((line) => line.subtype === 'tool_call_end')
    .map((line) => ({ tool: line.tool_name, decision: line.decision, error: line.is_error }));
}

/** Each run's uploaded artifact, for the audit at the end. */
const uploaded: { example: string; policy: boolean; files: Record<string, string> }[] = [];

describe('the example workflows, as written, with examples/ci-agent.yml', () => {
  describe.each(EXAMPLE_RUNS)('$file', (example) => {
    it('runs green: the agent edits, runs npm test in the sandbox, and the fix reaches GitHub', async () => {
      const { harness, run, artifacts, toolLog } = await runExample(example, true);

      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.conclusion).toBe('success');
      expect(callEnds(toolLog)).toEqual([
        { tool: 'Read', decision: 'allow', error: false },
        { tool: 'Edit', decision: 'allow', error: false },
        { tool: 'Bash', decision: 'allow', error: false },
      ]);
      const npmTest = toolLog.find(
        (line) => line.type === 'user' && JSON.stringify(line).includes('toolu_03'),
      );
      expect(JSON.stringify(npmTest)).toContain('mean ok');
      await example.expectGreen(harness, run);
      expect(artifacts.map((artifact) => artifact.name)).toEqual(['ci-agent-log']);
      uploaded.push({ example: example.file, policy: true, files: artifacts[0]!.files });
      expectClean(harness);
    });

    it('is denied without the example policy, and pushes nothing', async () => {
      const { harness, run, artifacts } = await runExample(example, false);

      expect(run.code, run.stdout).toBe(1);
      expect(run.outputs.conclusion).toBe('denied');
      expect(run.outputs.branch).toBe('');
      expect(harness.github.state.pulls.filter((pull) => pull.number !== PR)).toHaveLength(0);
      const shown = visibleText(
        renderGfm(readFileSync(join(run.artifactsDir, 'report.md'), 'utf8'), 'remark'),
      );
      expect(shown).toContain('the policy denied');
      uploaded.push({ example: example.file, policy: false, files: artifacts[0]!.files });
      expectClean(harness);
    });
  });
});

describe('examples/audit-artifact.yml', () => {
  const workflow = readWorkflow(join(EXAMPLES, 'audit-artifact.yml'));
  const job = workflow.jobs.audit!;
  const download = job.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'))!;
  const nothing = job.steps.find((step) => step.name === 'Nothing to audit')!;
  const result = job.steps.find((step) => step.name === "The audit's result")!;
  const { step: audit } = agentStep(workflow);

  /** What the expressions see: the finished run, and what the job's steps did so far. */
  const contextOf = (
    conclusion: string,
    steps: Record<string, unknown> = {},
    id: number = Number(RUN_ID),
  ): ExpressionContext => ({
    github: { event: { workflow_run: { conclusion, id } }, token: TOKEN },
    steps,
    env: {},
  });

  it('follows every example workflow that uses ci-agent, by its name', () => {
    const names = readdirSync(EXAMPLES)
      .filter(
        (file) => file.endsWith('.yml') && file !== 'ci-agent.yml' && file !== 'audit-artifact.yml',
      )
      .map((file) => readWorkflow(join(EXAMPLES, file)).name);
    expect(new Set(workflow.on.workflow_run?.workflows as string[])).toEqual(new Set(names));
    expect(permissionsOf(workflow, job)).toEqual({ actions: 'read' });
  });

  it('skips a run whose job was skipped, and audits one that failed', () => {
    evaluateAll(workflow, contextOf('failure', { download: { outcome: 'success' } }));
    expect(evaluateCondition(job.if!, contextOf('skipped'))).toBe(false);
    expect(evaluateCondition(job.if!, contextOf('failure'))).toBe(true);
    expect(evaluateCondition(job.if!, contextOf('success'))).toBe(true);
  });

  it("audits with the action's audit mode only when the run left an artifact", () => {
    expect(download.with).toMatchObject({ name: 'ci-agent-log' });
    expect(download['continue-on-error']).toBe(true);
    const found = contextOf('failure', { download: { outcome: 'success' } });
    const none = contextOf('failure', { download: { outcome: 'failure' } });
    expect(evaluateCondition(audit.if!, found)).toBe(true);
    expect(evaluateCondition(nothing.if!, found)).toBe(false);
    expect(evaluateCondition(audit.if!, none)).toBe(false);
    expect(evaluateCondition(nothing.if!, none)).toBe(true);
    // The artifact audited is the one the download looked for, of the run that finished.
    const inputs = stepInputs(workflow, contextOf('failure', {}, 4242));
    expect(inputs['AUDIT-RUN-ID']).toBe('4242');
    expect(inputs['ARTIFACT-NAME']).toBe(download.with!.name);
  });

  /** A shell step as the runner runs `shell: bash`, in an empty workspace. */
  async function runShellStep(step: WorkflowStep, context: ExpressionContext) {
    const workspace = mkdtempSync(join(tmpdir(), 'ci-agent-audit-'));
    onTestFinished(() => rmSync(workspace, { recursive: true, force: true }));
    expect(step.shell).toBe('bash');
    const script = join(workspace, '..', `${workspace.split('/').pop()}.sh`);
    writeFileSync(script, interpolate(step.run!, context));
    onTestFinished(() => rmSync(script, { force: true }));
    return execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: workspace,
      env: interpolateAll(step.env, context),
      reject: false,
    });
  }

  it('passes, saying there is nothing to audit, when no artifact was downloaded', async () => {
    const shown = await runShellStep(nothing, contextOf('failure', {}, 4242));
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toBe('No ci-agent-log artifact on run 4242: nothing to audit.');
  });

  /** The built action run as the audit step is written, on a GitHub holding `files` as the run's artifact. */
  async function auditStep(files: Record<string, string>) {
    const harness = await startActionHarness({
      files: { 'README.md': 'audits\n' },
      tokenPermissions: permissionsOf(workflow, job),
      seed: {
        runs: [{ repo: FULL_NAME, id: Number(RUN_ID), event: 'issues', conclusion: 'success' }],
      },
    });
    harness.github.addArtifact({
      repo: FULL_NAME,
      runId: Number(RUN_ID),
      name: download.with!.name as string,
      zip: zipSync(
        Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])),
      ),
    });
    const context = contextOf('failure', { download: { outcome: 'success' } });
    const model = await startModel({ turns: [] });
    const run = await runBuiltAction(harness, model, {
      payload: { inputs: {} },
      eventName: 'workflow_run',
      inputs: stepInputs(workflow, context),
      onlyTheseInputs: true,
    });
    expect(harness.github.violations()).toEqual([]);
    return run;
  }

  it("verifies a green run's uploaded artifact, and the result step prints it", async () => {
    const green = uploaded.find((entry) => entry.example === 'issue-label.yml' && entry.policy);
    expect(green, 'the example runs above uploaded their artifacts').toBeTruthy();
    const run = await auditStep(green!.files);
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs['audit-result']).toBe('verified');
    expect(run.outputs['log-hash']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(run.summary).toContain('ci-agent audit: verified');

    const context = contextOf('success', {
      download: { outcome: 'success' },
      audit: { outcome: 'success', outputs: run.outputs },
    });
    expect(evaluateCondition(result.if!, context)).toBe(true);
    const shown = await runShellStep(result, context);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(
      `Run ${RUN_ID}'s tool log: verified (final hash ${run.outputs['log-hash']})`,
    );
  });

  it('fails the job, naming the line, when the artifact was tampered with', async () => {
    const denied = uploaded.find((entry) => entry.example === 'issue-label.yml' && !entry.policy);
    expect(denied, 'the example runs above uploaded their artifacts').toBeTruthy();
    // The denial of the Edit turned into an allow, to hide it.
    const lines = denied!.files['tool-log.jsonl']!.split('\n');
    const index = lines.findIndex((line) => line.includes('"behavior":"deny"'));
    lines[index] = lines[index]!.replace('"behavior":"deny"', '"behavior":"allow"');
    const run = await auditStep({ ...denied!.files, 'tool-log.jsonl': lines.join('\n') });
    expect(run.code).not.toBe(0);
    expect(run.outputs['audit-result']).toBe('failed');
    expect(run.stdout).toContain(
      `::error::ci-agent audit: tool-log.jsonl: line ${index + 1} was edited`,
    );
    // The result step does not run after a failed audit step: the job is red.
    const context = contextOf('success', {
      download: { outcome: 'success' },
      audit: { outcome: 'failure', outputs: run.outputs },
    });
    expect(evaluateCondition(result.if!, context)).toBe(false);
  });
});
