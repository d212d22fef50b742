/**
 * The built action (dist/index.js) run as the runner runs it: INPUT_* variables, the event payload
 * at GITHUB_EVENT_PATH (real examples from @octokit/webhooks-examples), GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, GITHUB_API_URL pointing at the loopback GitHub API (every request
 * checked against GitHub's OpenAPI description), a bare git repository as origin, and the replay
 * server as the model.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACTION,
  API_KEY,
  OWNER,
  TOKEN,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import type { ActionHarness } from '../helpers/action-harness.js';
import { FILES, ISSUE, fixTurns, issueLabeled } from './trigger-fixtures.js';

function setup(
  permission: 'write' | 'read' = 'write',
  actor = OWNER,
  files: Record<string, string> = FILES,
): Promise<ActionHarness> {
  return startActionHarness({ files, permission, actor, seed: { issues: [ISSUE] } });
}

describe('the GitHub Action (dist/index.js)', () => {
  it('works on a labelled issue: a branch, a commit, a PR that closes the issue, one report comment', async () => {
    expect(existsSync(ACTION), 'run "npm run build" first').toBe(true);
    const harness = await setup();
    const { origin, github } = harness;
    const model = await startModel({ turns: fixTurns(origin.checkout) });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('success');
    expect(run.outputs.branch).toBe('ci-agent/issue-1');
    const branches = await origin.branches();
    expect(branches['ci-agent/issue-1']).toBe(run.outputs['commit-sha']);
    const committed = await origin.git(
      ['show', `${run.outputs['commit-sha']}:src/stats.js`],
      origin.bare,
    );
    expect(committed).toContain('let i = 0');

    const pulls = github.state.pulls;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ number: Number(run.outputs['pr-number']) });
    expect(JSON.stringify(pulls[0])).toContain('Closes #1');

    const comments = reportComments(github);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toMatch(
      /### ✅ ci-agent: the agent made changes; pull request #\d+ is ready for review/,
    );
    expect(comments[0]!.body).toContain('+  for (let i = 0; i < values.length; i++)');
    expect(comments[0]!.body).toContain('Tool log (2 calls)');
    expect(run.summary).toContain('ci-agent: the agent made changes');
    expect(github.violations()).toEqual([]);

    const log = readFileSync(join(run.runnerTemp, 'ci-agent-1658821493', 'tool-log.jsonl'), 'utf8');
    expect(log).toContain('"subtype":"permission_decision"');
    expect(log).not.toContain(API_KEY);
    expect(log).not.toContain(TOKEN);
    // Only the runner's own mask registrations may name the secrets.
    const printed = run.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::'));
    expect(printed.join('\n')).not.toContain(API_KEY);
  });

  it('skips, visibly and successfully, when the label is not the trigger label', async () => {
    const harness = await setup();
    const { github } = harness;
    const model = await startModel({ turns: [] });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('bug'),
      eventName: 'issues',
    });
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('skipped');
    expect(run.summary).toContain('ci-agent skipped this event');
    expect(model.requests).toHaveLength(0);
    expect(github.state.comments).toHaveLength(0);
  });

  it('does not run for an actor without write permission', async () => {
    const harness = await setup('read', 'drive-by');
    const { github } = harness;
    const model = await startModel({ turns: [] });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent', 'drive-by'),
      eventName: 'issues',
    });
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('skipped');
    expect(run.summary).toMatch(/skipped[\s\S]*drive-by/);
    expect(model.requests).toHaveLength(0);
    expect(github.violations()).toEqual([]);
  });

  it('fails honestly when the push is rejected, and keeps the work as a patch', async () => {
    const harness = await setup();
    const { origin, github } = harness;
    await origin.setRejectPushes('pushes are closed today');
    const model = await startModel({ turns: fixTurns(origin.checkout) });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });
    expect(run.code, run.stdout).toBe(1);
    expect(run.outputs.conclusion).toBe('failed');
    const patch = readFileSync(run.outputs['diff-path']!, 'utf8');
    expect(patch).toContain('+  for (let i = 0; i < values.length; i++)');
    const comment = reportComments(github)[0];
    expect(comment?.body).toContain('the push failed');
    expect(github.state.pulls).toHaveLength(0);
  });

  it('keeps the agent from planting programs in git: the sandbox holds .git/config and .git/hooks read-only', async () => {
    const harness = await setup('write', OWNER, {
      ...FILES,
      '.github/ci-agent.yml': 'permissions:\n  defaultMode: bypassPermissions\n',
    });
    const { origin } = harness;
    const plant = [
      "printf '#!/bin/sh\\necho planted\\n' > .git/hooks/post-commit",
      "git config filter.planted.clean 'cat'",
    ].join('; ');
    const model = await startModel({
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: plant } }],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });
    expect(existsSync(join(origin.checkout, '.git/hooks/post-commit'))).toBe(false);
    expect(readFileSync(join(origin.checkout, '.git/config'), 'utf8')).not.toContain('planted');
    expect(JSON.stringify(model.requests[1]?.body)).toContain('Read-only file system');
    expect(run.outputs.conclusion).toBe('no-changes');
  });

  it('unsandboxed (sandbox: off), puts back the git configuration the agent changed, and runs none of what it planted', async () => {
    const harness = await setup('write', OWNER, {
      ...FILES,
      // bypassPermissions: the one mode in which the agent may write under .git/ at all.
      '.github/ci-agent.yml': 'permissions:\n  defaultMode: bypassPermissions\nsandbox: off\n',
    });
    const { origin, github } = harness;
    const canary = join(origin.checkout, '..', 'planted-program-ran');
    const plant = [
      `printf '#!/bin/sh\\ntouch ${canary}\\n' > .git/hooks/post-commit`,
      'chmod +x .git/hooks/post-commit',
      `git config filter.planted.clean 'touch ${canary}; cat'`,
      "echo '* filter=planted' > .gitattributes",
      "sed -i 's/let i = 1/let i = 0/' src/stats.js",
    ].join(' && ');
    const model = await startModel({
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: plant } }],
        [{ type: 'text', text: 'Fixed the loop.' }],
      ],
    });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('success');
    // Removed, not only skipped by ci-agent's own git: the workflow's later steps run hooks.
    expect(existsSync(join(origin.checkout, '.git/hooks/post-commit'))).toBe(false);
    expect(existsSync(canary)).toBe(false);
    expect(readFileSync(join(origin.checkout, '.git/config'), 'utf8')).not.toContain('planted');
    const branches = await origin.branches();
    expect(branches['ci-agent/issue-1']).toBe(run.outputs['commit-sha']);
    const comment = reportComments(github)[0];
    expect(comment?.body).toContain(
      "> ⚠️ The agent changed git's configuration (.git/config, .git/hooks/post-commit); it was put back before ci-agent ran git",
    );
    expect(run.stdout).toContain("::warning::The agent changed git's configuration");
    expect(comment?.body).toContain('**Unsandboxed**');
  });

  it('fails honestly when its branch cannot be created: no tool runs, nothing is pushed', async () => {
    const harness = await setup();
    const { origin, github } = harness;
    // A branch named `ci-agent` leaves no room for `ci-agent/issue-1` (git refs are paths).
    await origin.git(['branch', 'ci-agent']);
    const before = readFileSync(join(origin.checkout, 'src/stats.js'), 'utf8');
    const model = await startModel({ turns: fixTurns(origin.checkout) });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });
    expect(run.code, run.stdout).toBe(1);
    expect(run.outputs.conclusion).toBe('failed');
    expect(run.outputs['commit-sha']).toBe('');
    expect(readFileSync(join(origin.checkout, 'src/stats.js'), 'utf8')).toBe(before);
    expect(Object.keys(await origin.branches())).not.toContain('ci-agent/issue-1');
    expect(github.state.pulls).toHaveLength(0);
    const comment = reportComments(github)[0];
    expect(comment?.body).toMatch(/### ❌ ci-agent: the run failed: .*ci-agent\/issue-1/);
    expect(github.violations()).toEqual([]);
  });
});
