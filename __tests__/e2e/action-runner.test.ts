/**
 * The built action's exchange with the runner (issue 13, item 1: @actions/core), read back as the
 * runner reads it: the step's stdout (annotations with their file and line, groups around the long
 * phases, `::error::` and the exit code), the GITHUB_OUTPUT file in its heredoc form and the
 * GITHUB_STEP_SUMMARY file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltAction, startActionHarness, startModel } from '../helpers/action-harness.js';
import {
  FILES,
  FIXED,
  ISSUE,
  TEST_COMMAND,
  expectClean,
  fixTurns,
  issueLabeled,
  prHarness,
  pullRequestOpened,
} from './trigger-fixtures.js';

/** A settings file with a misspelt key on line 2, column 3: a warning, not an error. */
const SETTINGS = '{\n  "permision": { "deny": ["Bash"] }\n}\n';

/** The lines between `::group::<name>` and the next `::endgroup::`; undefined without the group. */
function groupLines(stdout: string, name: string): string[] | undefined {
  const lines = stdout.split('\n');
  const start = lines.indexOf(`::group::${name}`);
  if (start < 0) return undefined;
  const end = lines.indexOf('::endgroup::', start);
  return end < 0 ? undefined : lines.slice(start + 1, end);
}

describe('the GitHub Action (dist/index.js) and the runner', () => {
  it('annotates a policy warning on its file and line, and groups the agent and the push', async () => {
    const harness = await startActionHarness({
      files: { ...FILES, '.claude/settings.json': SETTINGS },
      seed: { issues: [ISSUE] },
    });
    const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled(),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(
      /^::warning title=ci-agent policy,file=\.claude\/settings\.json,line=2,col=3::\.claude\/settings\.json:2:3: .*permision/m,
    );
    expect(groupLines(run.stdout, 'ci-agent: the agent at work')).toBeDefined();
    expect(groupLines(run.stdout, 'ci-agent: pushing ci-agent/issue-1')).toBeDefined();
    // Groups do not nest in the step log: each closes before the next opens.
    const markers = run.stdout.split('\n').filter((line) => /^::(end)?group::/.test(line));
    expect(markers).toEqual([
      '::group::ci-agent: the agent at work',
      '::endgroup::',
      '::group::ci-agent: pushing ci-agent/issue-1',
      '::endgroup::',
    ]);
    expectClean(harness);
  });

  it('writes every output in the heredoc form with a fresh delimiter, and the report to the summary', async () => {
    const harness = await startActionHarness({ files: FILES, seed: { issues: [ISSUE] } });
    const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled(),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(0);
    const raw = readFileSync(join(run.runnerTemp, 'output'), 'utf8');
    const blocks = [...raw.matchAll(/^([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})\n([\s\S]*?)\n\2\n/gm)];
    expect(blocks.map((block) => block[0]).join('')).toBe(raw);
    expect(blocks.map((block) => block[1])).toEqual([
      'conclusion',
      'branch',
      'pr-number',
      'commit-sha',
      'comment-url',
      'diff-path',
      'log-path',
      'log-hash',
      'turns',
      'cost-usd',
    ]);
    expect(new Set(blocks.map((block) => block[2])).size).toBe(blocks.length);
    expect(run.outputs).toMatchObject({ conclusion: 'success', branch: 'ci-agent/issue-1' });
    expect(run.summary).toMatch(/^### ✅ ci-agent: the agent made changes/m);
    expect(run.summary.endsWith('\n')).toBe(true);
    expectClean(harness);
  });

  it("waits out GitHub's rate limit on the permission check, with a warning, and goes on", async () => {
    const path = '/repos/Codertocat/Hello-World/collaborators/Codertocat/permission';
    const harness = await startActionHarness({
      files: FILES,
      seed: { issues: [ISSUE] },
      faults: [
        {
          method: 'GET',
          path,
          status: 403,
          body: { message: 'API rate limit exceeded for installation ID 1.' },
          // Reset now: the retry comes after a second at most.
          headers: {
            'x-ratelimit-limit': '5000',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)),
          },
          times: 1,
        },
      ],
    });
    const model = await startModel({ turns: fixTurns(harness.origin.checkout) });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled(),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('success');
    expect(run.stdout).toMatch(
      /^::warning::GitHub's rate limit for GET \/repos\/\{owner\}\/\{repo\}\/collaborators\/\{username\}\/permission: retrying in \d+ s \(retry 1 of 2\)$/m,
    );
    expect(harness.github.requests.filter((request) => request.path === path)).toHaveLength(2);
    expectClean(harness);
  });

  it('groups the test command, and marks the step failed with one error annotation', async () => {
    const harness = await prHarness({ headFiles: { 'src/stats.js': FIXED } });
    const model = await startModel({ turns: [] });
    const run = await runBuiltAction(harness, model, {
      payload: pullRequestOpened(harness.headSha),
      eventName: 'pull_request',
      inputs: { 'TEST-COMMAND': TEST_COMMAND },
    });
    expect(run.code, run.stdout).toBe(0);
    expect(groupLines(run.stdout, `ci-agent: running ${TEST_COMMAND}`)).toBeDefined();

    const failing = await prHarness();
    const refused = await runBuiltAction(failing, await startModel({ turns: [] }), {
      payload: pullRequestOpened(failing.headSha),
      eventName: 'pull_request',
      inputs: { 'TEST-COMMAND': TEST_COMMAND, 'MAX-TURNS': 'ten' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout.match(/^::error::.*$/gm)).toEqual([
      '::error::ci-agent: max-turns: expected a positive integer, got "ten"',
    ]);
  });
});
