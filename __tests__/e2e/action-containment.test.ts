/**
 * What the controller itself keeps from the agent (issue 14), on the built action: the checkout's
 * persisted credentials are out of git's reach while the agent's tools run and back, byte for
 * byte, when the step ends; and a runner file a tool writes (`NODE_OPTIONS` appended to
 * $GITHUB_ENV) is put back and fails the run, naming the file. These are the controller's own
 * checks: the runner-file one is shown with `sandbox: off` (inside the sandbox the write cannot
 * happen at all, which the last test shows); and a submodule the agent planted, configured to run
 * a program when git looks into it, is never looked into by the action's own git, nor is any
 * repository of the agent's left for a later step's `git add -A && git status` to look into.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import { renderGfm, visibleText } from '../helpers/gfm.js';
import { FILES, ISSUE, POLICY, fixTurns, issueLabeled } from './trigger-fixtures.js';

const BASH_POLICY = `${POLICY}      Bash: allow\n`;
const CHECKOUT_TOKEN = 'ghs_checkoutPersisted0123456789abcd';
const HEADER = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${CHECKOUT_TOKEN}`).toString('base64')}`;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A Bash call, then the read-and-edit fix: the run has something to push. */
function bashThenFix(root: string, command: string) {
  return [
    [{ type: 'tool_use' as const, id: 'toolu_bash', name: 'Bash', input: { command } }],
    ...fixTurns(root),
  ];
}

/** What the model was given back for a tool call: what the agent saw. */
function toolResult(model: ReplayServer, toolUseId: string): string {
  type Block = { type: string; tool_use_id?: string; content?: string | { text?: string }[] };
  for (const request of model.requests) {
    const body = request.body as { messages?: { content: string | Block[] }[] } | undefined;
    for (const message of body?.messages ?? []) {
      if (typeof message.content === 'string') continue;
      const block = message.content.find(
        (item) => item.type === 'tool_result' && item.tool_use_id === toolUseId,
      );
      if (block === undefined) continue;
      const content = block.content ?? '';
      return typeof content === 'string' ? content : content.map((part) => part.text).join('');
    }
  }
  throw new Error(`no tool result for ${toolUseId} in the model's requests`);
}

describe('the GitHub Action (dist/index.js): what the controller keeps from the agent', () => {
  it('takes the checkout’s credentials out of git’s config while the agent works, and puts them back', async () => {
    const harness = await startActionHarness({
      files: { ...FILES, '.github/ci-agent.yml': BASH_POLICY },
      seed: { issues: [ISSUE] },
    });
    const { origin, github } = harness;
    const checkout = origin.checkout;
    // As actions/checkout v6 leaves it (and v4's header beside it, as an older step would).
    const credentials = join(
      tempDir('ci-agent-runner-temp-'),
      'git-credentials-0b6f2d1e-6a51-4c8e-9d43-7e2f1a5b9c80.config',
    );
    writeFileSync(credentials, `[http "https://github.com/"]\n\textraheader = ${HEADER}\n`);
    const gitIn = (...args: string[]) => execa('git', args, { cwd: checkout });
    await gitIn('config', `includeIf.gitdir:${checkout}/.git.path`, credentials);
    await gitIn('config', `includeIf.gitdir:${checkout}/.git/worktrees/*.path`, credentials);
    await gitIn('config', 'http.https://github.com/.extraheader', HEADER);
    const config = readFileSync(join(checkout, '.git/config'));
    const credentialsFile = readFileSync(credentials);
    const look = `git config --list --show-origin; cat '${credentials}' 2>&1; true`;
    const model = await startModel({ turns: bashThenFix(checkout, look) });

    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs.conclusion).toBe('success');
    const agentSaw = toolResult(model, 'toolu_bash');
    expect(agentSaw).toContain('remote.origin.url');
    expect(agentSaw).not.toMatch(/extraheader|includeif|AUTHORIZATION/i);
    expect(agentSaw).toContain(`cat: ${credentials}: No such file or directory`);
    // Back as checkout left them, for the workflow's later steps.
    expect(readFileSync(join(checkout, '.git/config')).equals(config)).toBe(true);
    expect(readFileSync(credentials).equals(credentialsFile)).toBe(true);
    expect((await origin.branches())['ci-agent/issue-1']).toBe(run.outputs['commit-sha']);
    const comment = visibleText(renderGfm(reportComments(github)[0]?.body ?? '', 'remark'));
    expect(comment).toContain(
      `ℹ️ The checkout's git credentials (includeif.gitdir:${checkout}/.git.path, includeif.gitdir:${checkout}/.git/worktrees/*.path, http.https://github.com/.extraheader) were taken out`,
    );
    expect(comment).not.toContain(CHECKOUT_TOKEN);
    expect(run.stdout).toContain("ci-agent: The checkout's git credentials (");
  });

  it('unsandboxed, puts back a GITHUB_ENV the agent wrote to, pushes nothing, and fails naming the file', async () => {
    const harness = await startActionHarness({
      files: { ...FILES, '.github/ci-agent.yml': `${BASH_POLICY}sandbox: off\n` },
      seed: { issues: [ISSUE] },
    });
    const { origin, github } = harness;
    const githubEnv = join(tempDir('ci-agent-file-commands-'), 'set_env_5f0c');
    writeFileSync(githubEnv, 'EARLIER_STEP=1\n');
    const before = await origin.branches();
    const append = `echo 'NODE_OPTIONS=--require=/tmp/evil.js' >> "$GITHUB_ENV"`;
    const model = await startModel({ turns: bashThenFix(origin.checkout, append) });

    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
      env: { GITHUB_ENV: githubEnv },
    });

    expect(readFileSync(githubEnv, 'utf8')).toBe('EARLIER_STEP=1\n');
    expect(run.code, run.stdout).toBe(1);
    expect(run.outputs.conclusion).toBe('failed');
    expect(run.outputs['commit-sha']).toBe('');
    expect(await origin.branches()).toEqual(before);
    expect(github.state.pulls).toHaveLength(0);
    const comment = visibleText(renderGfm(reportComments(github)[0]?.body ?? '', 'remark'));
    expect(comment).toMatch(/❌ ci-agent: the run changed the runner's GITHUB_ENV/);
    expect(comment).toMatch(/GITHUB_ENV: 15 bytes, sha256 [0-9a-f]{16} → 51 bytes/);
    expect(visibleText(renderGfm(run.summary, 'remark'))).toContain(
      "the run changed the runner's GITHUB_ENV",
    );
    expect(run.stdout).toMatch(/::error::ci-agent: the run changed the runner's GITHUB_ENV/);
    expect(existsSync(run.outputs['diff-path']!)).toBe(true);
    expect(readFileSync(run.outputs['diff-path']!, 'utf8')).toContain('let i = 0');
  });

  it('sandboxed, never springs a submodule trap the agent planted: its own git stays out', async () => {
    // On the host, outside the sandbox's sight: only a program run out there can write it.
    const canary = join(tempDir('ci-agent-canary-'), 'ran');
    // A repository of the agent's own, put in as a submodule, configured to run a program when
    // git looks at it; a file changed so that only its content tells. A script in the repository
    // (arbitrary code, as any test command is): the Bash floors refuse such index surgery spelled
    // out on a command line, and the sandbox is what must hold.
    const plant = [
      'set -e',
      'git init -q sub',
      'echo hi > sub/f.txt',
      'git -C sub add f.txt',
      'git -C sub -c user.name=t -c user.email=t@t commit -qm s',
      `git -C sub config filter.trap.clean "sh -c 'echo filter >> ${canary}; cat'"`,
      `git -C sub config core.fsmonitor "sh -c 'echo fsmonitor >> ${canary}'"`,
      "echo '* filter=trap' > sub/.gitattributes",
      'git update-index --add --cacheinfo "160000,$(git -C sub rev-parse HEAD),sub"',
      `printf '[submodule "sub"]\\n\\tpath = sub\\n\\turl = ./sub\\n' > .gitmodules`,
      'git add .gitmodules',
      'git -c user.name=t -c user.email=t@t commit -qm sub',
      'echo ho > sub/f.txt',
      'touch -d 2020-01-01 sub/f.txt',
      // And one left untracked, for a later step's own `git add -A` to make a gitlink of.
      'git init -q vendor/evil',
      'echo e > vendor/evil/e.txt',
      'git -C vendor/evil add e.txt',
      'git -C vendor/evil -c user.name=t -c user.email=t@t commit -qm e',
      `git -C vendor/evil config core.fsmonitor "sh -c 'echo nested >> ${canary}'"`,
      'echo PLANTED',
      '',
    ].join('\n');
    const harness = await startActionHarness({
      files: { ...FILES, '.github/ci-agent.yml': BASH_POLICY, 'tools/plant.sh': plant },
      seed: { issues: [ISSUE] },
    });
    const { origin } = harness;
    const model = await startModel({ turns: bashThenFix(origin.checkout, 'sh tools/plant.sh') });

    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });

    expect(toolResult(model, 'toolu_bash')).toContain('PLANTED');
    expect(run.outputs.conclusion, run.stdout).toBe('success');
    expect(existsSync(canary)).toBe(false);
    expect((await origin.branches())['ci-agent/issue-1']).toBe(run.outputs['commit-sha']);
    // Nor does the workflow's next step: the gitlink is out of the index (and of the pushed
    // tree), its repository's .git gone, and the report says so. (A plain `git status` sprang
    // it before the action put the gitlinks back: gitlink-traps.test.ts.)
    expect(run.stdout).toContain('sub (a gitlink the agent added)');
    expect(run.stdout).toContain('vendor/evil/.git (not there before the agent ran)');
    await execa('git', ['status', '--porcelain'], { cwd: origin.checkout });
    expect(existsSync(canary)).toBe(false);
    expect(existsSync(join(origin.checkout, 'sub', '.git'))).toBe(false);
    // An auto-commit step after the action stages everything, then looks: no repository of the
    // agent's is left to become a gitlink, and its files stay.
    await execa('git', ['add', '-A'], { cwd: origin.checkout });
    await execa('git', ['status', '--porcelain'], { cwd: origin.checkout });
    expect(existsSync(canary) ? readFileSync(canary, 'utf8') : '').toBe('');
    expect(existsSync(join(origin.checkout, 'vendor', 'evil', '.git'))).toBe(false);
    expect(readFileSync(join(origin.checkout, 'vendor', 'evil', 'e.txt'), 'utf8')).toBe('e\n');
    const pushed = await execa('git', ['ls-tree', '-r', run.outputs['commit-sha'] ?? ''], {
      cwd: origin.checkout,
    });
    expect(pushed.stdout).not.toContain('160000');
  });

  it('sandboxed, never lets the agent write GITHUB_ENV at all', async () => {
    const harness = await startActionHarness({
      files: { ...FILES, '.github/ci-agent.yml': BASH_POLICY },
      seed: { issues: [ISSUE] },
    });
    const { origin } = harness;
    const githubEnv = join(tempDir('ci-agent-file-commands-'), 'set_env_5f0c');
    writeFileSync(githubEnv, 'EARLIER_STEP=1\n');
    const append = `echo 'NODE_OPTIONS=--require=/tmp/evil.js' >> ${githubEnv} && echo WROTE`;
    const model = await startModel({ turns: bashThenFix(origin.checkout, append) });

    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
      env: { GITHUB_ENV: githubEnv },
    });

    expect(readFileSync(githubEnv, 'utf8')).toBe('EARLIER_STEP=1\n');
    expect(toolResult(model, 'toolu_bash')).not.toContain('WROTE');
    expect(run.outputs.conclusion, run.stdout).toBe('success');
  });
});
