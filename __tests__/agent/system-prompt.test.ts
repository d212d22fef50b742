import { execaSync } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import {
  branchOf,
  buildSystemPrompt,
  gatherEnvironment,
  readMemoryFiles,
} from '../../src/agent/system-prompt.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => workspace?.cleanup());

function git(root: string, ...args: string[]) {
  execaSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: root });
}

describe('gatherEnvironment', () => {
  it('reports the branch, the short status and recent commits of a git repository', async () => {
    workspace = makeWorkspace();
    await workspace.write('a.txt', 'a\n');
    git(workspace.root, 'init', '-q', '-b', 'work');
    git(workspace.root, 'add', '-A');
    git(workspace.root, 'commit', '-qm', 'first commit');
    await workspace.write('b.txt', 'new\n');
    const environment = await gatherEnvironment(workspace.root, new Date('2026-11-29T12:00:00Z'));
    expect(environment).toMatchObject({
      cwd: workspace.root,
      platform: process.platform,
      date: '2026-11-29',
    });
    expect(environment.git?.branch).toBe('work');
    expect(environment.git?.status).toBe('?? b.txt');
    expect(environment.git?.recentCommits).toMatch(/^[0-9a-f]+ first commit$/);
    const head = execaSync('git', ['rev-parse', 'HEAD'], { cwd: workspace.root }).stdout;
    expect(environment.git?.headSha).toBe(head.trim());
  });

  it('knows a repository without commits is still a repository', async () => {
    workspace = makeWorkspace();
    git(workspace.root, 'init', '-q', '-b', 'fresh');
    const environment = await gatherEnvironment(workspace.root);
    expect(environment.git?.branch).toBe('fresh');
    expect(environment.git?.headSha).toBeUndefined();
    expect(environment.git?.recentCommits).toBe('');
  });

  it('reports no git section outside a repository', async () => {
    workspace = makeWorkspace();
    const environment = await gatherEnvironment(workspace.root);
    expect(environment.git).toBeUndefined();
  });

  it('says detached HEAD when no branch is checked out', async () => {
    workspace = makeWorkspace();
    await workspace.write('a.txt', 'a\n');
    git(workspace.root, 'init', '-q', '-b', 'work');
    git(workspace.root, 'add', '-A');
    git(workspace.root, 'commit', '-qm', 'first');
    git(workspace.root, 'checkout', '-q', '--detach');
    const environment = await gatherEnvironment(workspace.root);
    expect(environment.git?.branch).toBe('(detached HEAD)');
    expect(environment.git?.status).toBe('');
  });
});

describe('branchOf', () => {
  it.each([
    ['## main', 'main'],
    ['## main...origin/main', 'main'],
    ['## fix/issue-1...origin/fix/issue-1 [ahead 1, behind 2]', 'fix/issue-1'],
    ['## No commits yet on fresh', 'fresh'],
    ['## Initial commit on old-git', 'old-git'],
    ['## HEAD (no branch)', undefined],
  ])('reads %j as %j', (header, branch) => {
    expect(branchOf(header)).toBe(branch);
  });
});

describe('readMemoryFiles', () => {
  it('reads CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md and AGENTS.md in that order, skipping empty ones', async () => {
    workspace = makeWorkspace();
    await workspace.write('AGENTS.md', 'agents rules');
    await workspace.write('CLAUDE.md', 'claude rules');
    await workspace.write('.claude/CLAUDE.md', '   \n');
    const files = await readMemoryFiles(workspace.root);
    expect(files).toEqual([
      { path: 'CLAUDE.md', content: 'claude rules' },
      { path: 'AGENTS.md', content: 'agents rules' },
    ]);
  });

  it('cuts a very large memory file and says so', async () => {
    workspace = makeWorkspace();
    await workspace.write('CLAUDE.md', 'x'.repeat(50_000));
    const [file] = await readMemoryFiles(workspace.root);
    expect(file?.content.length).toBeLessThan(41_000);
    expect(file?.content).toMatch(/cut at 40000 characters\)$/);
  });
});

describe('buildSystemPrompt', () => {
  const environment = {
    cwd: '/repo',
    platform: 'linux',
    osVersion: 'linux 6.1',
    date: '2026-11-29',
    git: { branch: 'main', status: ' M a.txt', recentCommits: 'abc123 init' },
  };

  it('states the environment, the git snapshot, the memory files and the appended text', () => {
    const prompt = buildSystemPrompt({
      environment,
      memory: [{ path: 'CLAUDE.md', content: 'Use tabs.' }],
      toolNames: ['Read', 'Bash'],
      append: 'Be brief.',
    });
    expect(prompt).toContain('Working directory: /repo');
    expect(prompt).toContain('Is directory a git repo: Yes');
    expect(prompt).toContain("Today's date: 2026-11-29");
    expect(prompt).toContain('Current branch: main');
    expect(prompt).toContain(' M a.txt');
    expect(prompt).toContain('# Project instructions from CLAUDE.md');
    expect(prompt).toContain('Use tabs.');
    expect(prompt).toContain('(Read, Bash)');
    expect(prompt.endsWith('Be brief.')).toBe(true);
  });

  it('says when the directory is not a repository and leaves out the git section', () => {
    const prompt = buildSystemPrompt({
      environment: { ...environment, git: undefined },
      memory: [],
      toolNames: [],
    });
    expect(prompt).toContain('Is directory a git repo: No');
    expect(prompt).not.toContain('Current branch');
  });
});
