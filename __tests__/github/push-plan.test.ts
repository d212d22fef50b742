import { execaSync } from 'execa';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAll, createGit } from '../../src/github/git.js';
import { ciPaths, heldBackCiChanges } from '../../src/github/push-plan.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sh = (cwd: string, ...args: string[]) => execaSync('git', args, { cwd }).stdout.trim();

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A repository whose first commit has `files`; returns it and that commit. */
function repository(files: Record<string, string>) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-push-plan-')));
  dirs.push(root);
  sh(root, 'init', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  sh(root, 'add', '-A');
  sh(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'initial');
  return { root, git: createGit(root), base: sh(root, 'rev-parse', 'HEAD') };
}

const NO = { allowCiChanges: false };

describe('ciPaths', () => {
  it('finds workflows, actions, the default policy files, .claude/, .mcp.json and .github itself', () => {
    const paths = [
      'src/app.js',
      '.github/workflows/ci.yml',
      '.github/actions/setup/action.yml',
      '.github/ci-agent.yml',
      '.github/ci-agent.json',
      '.github',
      '.github/workflows',
      '.github/CODEOWNERS',
      'docs/.github/workflows/x.yml',
      '.claude/settings.json',
      '.claude/hooks/check.sh',
      '.claude/worktrees/fix/src/app.js',
      '.mcp.json',
      'docs/.mcp.json',
    ];
    expect(ciPaths(paths, '.github/ci-agent.yml')).toEqual([
      '.github/workflows/ci.yml',
      '.github/actions/setup/action.yml',
      '.github/ci-agent.yml',
      '.github/ci-agent.json',
      '.github',
      '.github/workflows',
      '.claude/settings.json',
      '.claude/hooks/check.sh',
      '.mcp.json',
    ]);
  });

  it('finds the policy file the policy input names, in any case of letters', () => {
    expect(
      ciPaths(
        ['config/ci.yml', '.github/ci-agent.yml', '.GitHub/Workflows/x.yml'],
        'config/ci.yml',
      ),
    ).toEqual(['config/ci.yml', '.GitHub/Workflows/x.yml']);
  });
});

describe('heldBackCiChanges', () => {
  it('holds back a commit that adds a workflow, naming it and the setting', async () => {
    const { root, git, base } = repository({ 'src/app.js': 'one\n' });
    write(root, '.github/workflows/x.yml', 'on: push\n');
    write(root, 'src/app.js', 'two\n');
    const head = (await commitAll(git, 'change'))!;

    const held = await heldBackCiChanges(
      git,
      { from: base, to: head },
      { policyInput: '.github/ci-agent.yml', push: NO },
    );
    expect(held?.paths).toEqual(['.github/workflows/x.yml']);
    expect(held?.detail).toContain('Held back: the commit changes .github/workflows/x.yml.');
    expect(held?.detail).toContain('push.allowCiChanges: true in .github/ci-agent.yml');
  });

  it('lets it through when the policy allows CI changes', async () => {
    const { root, git, base } = repository({ 'src/app.js': 'one\n' });
    write(root, '.github/workflows/x.yml', 'on: push\n');
    const head = (await commitAll(git, 'change'))!;
    expect(
      await heldBackCiChanges(
        git,
        { from: base, to: head },
        { policyInput: '.github/ci-agent.yml', push: { allowCiChanges: true } },
      ),
    ).toBeUndefined();
  });

  it('lets a commit through that touches no CI path', async () => {
    const { root, git, base } = repository({ '.github/workflows/ci.yml': 'on: push\n' });
    write(root, 'src/app.js', 'two\n');
    const head = (await commitAll(git, 'change'))!;
    expect(
      await heldBackCiChanges(
        git,
        { from: base, to: head },
        { policyInput: '.github/ci-agent.yml', push: NO },
      ),
    ).toBeUndefined();
  });

  it('sees a workflow moved away, the policy deleted and a directory replaced by a link', async () => {
    const { root, git, base } = repository({
      '.github/workflows/ci.yml': 'on: push\n',
      '.github/ci-agent.yml': 'limits: { maxTurns: 3 }\n',
      '.github/actions/setup/action.yml': 'runs: { using: node20 }\n',
    });
    sh(root, 'mv', '.github/workflows/ci.yml', 'old-ci.yml');
    sh(root, 'rm', '-q', '.github/ci-agent.yml');
    sh(root, 'rm', '-rq', '.github/actions');
    symlinkSync('../elsewhere', join(root, '.github/actions'));
    const head = (await commitAll(git, 'change'))!;

    const held = await heldBackCiChanges(
      git,
      { from: base, to: head },
      { policyInput: '.github/ci-agent.yml', push: NO },
    );
    expect(held?.paths.sort()).toEqual([
      '.github/actions',
      '.github/actions/setup/action.yml',
      '.github/ci-agent.yml',
      '.github/workflows/ci.yml',
    ]);
  });
});
