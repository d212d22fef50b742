/**
 * A steered agent plants code for a later workflow step's git, through the built CLI in
 * bypassPermissions mode, unsandboxed (the CLI's default): an fsmonitor in .git/config, a hook in
 * .git/hooks, and a repository of its own in the worktree with an fsmonitor of its config. In CI
 * the CLI puts git's control files back and removes the planted repository's .git when it ends
 * (cli-git-control.ts), so a later step's `git add -A && git status` runs none of them, and
 * says what it put back on stderr; outside CI the developer's checkout is left as the agent left
 * it (the same session's traps then fire: what the hold took away).
 */
import { execaSync } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../helpers/cli-harness.js';
import { runCli } from '../helpers/cli-harness.js';

const runs: CliRun[] = [];
const scratch: string[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
  for (const path of scratch.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** The agent's one Bash call that plants the three traps, each writing to `canary` when run. */
function plant(canary: string): string {
  const trap = `sh -c 'echo ran >> ${canary}; exit 1'`;
  return [
    `git config core.fsmonitor "${trap}"`,
    `printf '#!/bin/sh\\necho hook >> ${canary}\\n' > .git/hooks/post-index-change`,
    'chmod +x .git/hooks/post-index-change',
    'mkdir tool && cd tool && git init -q && echo x > x.txt && git add x.txt',
    `git -c user.name=a -c user.email=a@a commit -qm x && git config core.fsmonitor "${trap}"`,
  ].join(' && ');
}

/** What a later step of the workflow runs in the checkout; what of the traps ran. */
function laterStep(root: string, canary: string): string {
  rmSync(canary, { force: true });
  execaSync('git', ['add', '-A'], { cwd: root, reject: false });
  execaSync('git', ['status', '--porcelain'], { cwd: root, reject: false });
  return existsSync(canary) ? readFileSync(canary, 'utf8') : '';
}

async function plantThroughCli(ci: boolean): Promise<{ run: CliRun; canary: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-canary-'));
  scratch.push(dir);
  const canary = join(dir, 'ran');
  const run = await runCli(['-p', 'set up', '--permission-mode', 'bypassPermissions'], {
    turns: [
      [{ type: 'tool_use', id: 'toolu_plant', name: 'Bash', input: { command: plant(canary) } }],
      [{ type: 'text', text: 'Done.' }],
    ],
    env: ci ? { CI: 'true', GITHUB_ACTIONS: 'true' } : { CI: 'false' },
  });
  runs.push(run);
  return { run, canary };
}

describe("git's configuration after ci-agent -p", () => {
  it('in CI: puts back what the agent planted, says so, and a later step runs none of it', async () => {
    const { run, canary } = await plantThroughCli(true);
    const root = run.workspace.root;

    expect(run.code, run.stderr).toBe(0);
    // The call ran and planted (the canary stays empty: nothing of git ran them yet).
    expect(existsSync(join(root, 'tool', 'x.txt'))).toBe(true);
    expect(run.stderr).toContain("Warning: the agent changed git's configuration (");
    expect(run.stderr).toContain('.git/config');
    expect(run.stderr).toContain('.git/hooks/post-index-change');
    expect(run.stderr).toContain('tool/.git (not there before the agent ran)');
    expect(existsSync(join(root, '.git', 'hooks', 'post-index-change'))).toBe(false);
    expect(existsSync(join(root, 'tool', '.git'))).toBe(false);
    expect(laterStep(root, canary)).toBe('');
  });

  it('outside CI: leaves the checkout as the agent left it (the traps then fire)', async () => {
    const { run, canary } = await plantThroughCli(false);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("git's configuration");
    expect(laterStep(run.workspace.root, canary)).not.toBe('');
  });
});
