/**
 * The built action on each model provider, as a workflow sets it up (the use-* input, the
 * credentials aws-actions/configure-aws-credentials or google-github-actions/auth leave in the
 * job's environment), running the demo's recorded session end to end through the provider's own
 * SDK against a loopback server of its wire format: the fix is pushed and the pull request
 * opened, every request named the provider's model id, the log and the report say which
 * provider, and no credential is printed or committed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OWNER,
  reportComments,
  runBuiltAction,
  startActionHarness,
} from '../helpers/action-harness.js';
import { modelsRequested, PROVIDERS, SAMPLE_REPOSITORY, VERTEX } from './provider-fixtures.js';
import { ISSUE, issueLabeled } from './trigger-fixtures.js';

async function harness() {
  return startActionHarness({ files: SAMPLE_REPOSITORY, actor: OWNER, seed: { issues: [ISSUE] } });
}

describe.each(PROVIDERS)('the built action on $name', (provider) => {
  it('runs the recorded session through its SDK, pushes the fix and says which provider', async () => {
    const setup = await harness();
    const started = await provider.start(setup.origin.checkout);
    const { server, env, inputs, modelId, secrets, label } = started;
    const run = await runBuiltAction(setup, server, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
      inputs: { 'ANTHROPIC-API-KEY': '', ...inputs },
      env,
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('success');
    expect(modelsRequested(server)).toEqual(Array(5).fill(modelId));
    const fixed = await setup.origin.git(
      ['show', `${run.outputs['commit-sha']}:src/stats.js`],
      setup.origin.bare,
    );
    expect(fixed).toContain('for (let i = 0; i < values.length; i++)');
    // google-github-actions/auth's file stays where it was, out of the commit.
    const committed = await setup.origin.git(
      ['show', '--name-only', '--format=', run.outputs['commit-sha']!],
      setup.origin.bare,
    );
    expect(committed.trim()).toBe('src/stats.js');

    const log = readFileSync(join(run.artifactsDir, 'tool-log.jsonl'), 'utf8');
    const init = JSON.parse(log.split('\n')[0]!) as Record<string, unknown>;
    expect(init).toMatchObject({
      subtype: 'init',
      model: modelId,
      ci_agent_provider: started.provider,
    });
    const comment = reportComments(setup.github)[0]!.body;
    // The report escapes the text it shows (<wbr> where a reader could take it for a link).
    if (label) expect(comment.replaceAll('<wbr>', '')).toContain(`model ${modelId} on ${label}`);
    const printed = run.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::'));
    for (const secret of secrets) {
      // Registered with the runner when the job hands it over; a token the SDK gets at run time
      // (Google's) is never seen, and must never show.
      if ([...Object.values(env), ...Object.values(inputs)].includes(secret))
        expect(run.stdout).toContain(`::add-mask::${secret}`);
      expect(printed.join('\n')).not.toContain(secret);
      expect(log).not.toContain(secret);
      expect(comment).not.toContain(secret);
    }
  });
});

describe('the built action, set up wrong', () => {
  it('fails before any comment or request when Vertex AI has no project, naming the variable', async () => {
    const setup = await harness();
    const { server, env, inputs } = await VERTEX.start(setup.origin.checkout);
    const withoutProject = Object.fromEntries(
      Object.entries(env).filter(
        ([name]) =>
          ![
            'ANTHROPIC_VERTEX_PROJECT_ID',
            'GOOGLE_CLOUD_PROJECT',
            'CLOUDSDK_CORE_PROJECT',
          ].includes(name),
      ),
    );
    const run = await runBuiltAction(setup, server, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
      inputs: { 'ANTHROPIC-API-KEY': '', ...inputs },
      env: withoutProject,
    });
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toContain(
      '::error::ci-agent: Google Vertex AI needs a project: set ANTHROPIC_VERTEX_PROJECT_ID to a Google Cloud project id such as my-project-123',
    );
    expect(server.requests).toEqual([]);
    expect(setup.github.state.comments).toHaveLength(0);
  });

  it('fails when two providers are chosen, naming the inputs', async () => {
    const setup = await harness();
    const { server, env } = await VERTEX.start(setup.origin.checkout);
    const run = await runBuiltAction(setup, server, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
      inputs: { 'USE-VERTEX': 'true', 'USE-BEDROCK': 'true' },
      env,
    });
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toContain(
      '::error::ci-agent: the use-bedrock input and the use-vertex input each choose a model provider: choose one',
    );
    expect(server.requests).toEqual([]);
  });
});
