/**
 * The judges (judges.ts) attacked from inside a real sandbox, as a test command the agent wrote
 * would: move a folder that holds them aside and put one of its own in its place, or create one
 * where there was none. Each is expected to fail, or to be undone before the call's result, while
 * the ordinary work in the same folders (a non-judge file in .github, a commit) still goes on.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JUDGES_IN_ROOT } from '../../src/permissions/judges.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { EMPTY_SANDBOX_POLICY as EMPTY, runInSandbox as run } from '../helpers/sandbox-script.js';

const bwrap = existsSync('/usr/bin/bwrap');
const POLICY = 'permissions:\n  defaultMode: default\n';

describe.skipIf(!bwrap)('the judges, attacked from inside the sandbox', () => {
  let root: string;
  let workspace: string;
  let sandbox: Sandbox;
  const file = (path: string) => join(workspace, path);
  const read = (path: string) => readFileSync(file(path), 'utf8');

  beforeAll(async () => {
    // Outside /tmp: the sandbox has a /tmp of its own.
    root = mkdtempSync('/var/tmp/ci-agent-judges-');
    workspace = join(root, 'repo');
    mkdirSync(join(workspace, '.github', 'workflows'), { recursive: true });
    mkdirSync(join(workspace, 'tools', 'hooks'), { recursive: true });
    writeFileSync(file('.github/ci-agent.yml'), POLICY);
    writeFileSync(file('.github/workflows/ci.yml'), 'on: push\n');
    writeFileSync(file('.github/dependabot.yml'), 'version: 2\n');
    writeFileSync(file('tools/hooks/check.sh'), 'exit 0\n');
    const git = (...args: string[]) => execa('git', ['-C', workspace, ...args]);
    await git('init', '-q');
    await git('add', '.');
    await git('-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'start');
    sandbox = await startSandbox({
      workspaceRoots: [workspace],
      home: join(root, 'home'),
      env: { PATH: process.env.PATH },
      policy: EMPTY,
      judges: [file('tools/hooks/check.sh')],
    });
  }, 60_000);

  afterAll(async () => {
    await sandbox?.close();
    rmSync(root, { recursive: true, force: true });
  });

  describe('when a folder that holds judges is moved aside', () => {
    it.each([
      ['.github', 'gh'],
      ['.git', 'g2'],
      ['tools', 'tools2'],
      ['tools/hooks', 'tools/hooks2'],
    ])('cannot rename %s (it is a mount point)', async (from, to) => {
      const { output } = await run(
        sandbox,
        workspace,
        `python3 -c "import os; os.rename('${from}','${to}')" 2>&1 | tail -1; ` +
          `mv ${from} ${to} 2>&1 || echo REFUSED; rmdir ${from} 2>/dev/null || echo KEPT`,
      );
      expect(output).toMatch(/Device or resource busy/);
      expect(output).toContain('REFUSED');
      expect(output).toContain('KEPT');
      expect(existsSync(file(to))).toBe(false);
    });

    it('keeps the policy and the workflows as they were after the whole attack', async () => {
      await run(
        sandbox,
        workspace,
        "python3 -c \"import os; os.rename('.github','gh'); os.makedirs('.github/workflows'); " +
          "open('.github/ci-agent.yml','w').write('permissions: {}'); open('.github/workflows/ci.yml','w').write('evil')\"",
      );
      expect(read('.github/ci-agent.yml')).toBe(POLICY);
      expect(read('.github/workflows/ci.yml')).toBe('on: push\n');
      expect(existsSync(file('gh'))).toBe(false);
    });
  });

  describe('when a judge is created where there was none', () => {
    const absent = [
      ...JUDGES_IN_ROOT.filter(
        (path) => !['.github/workflows', '.github/ci-agent.yml'].includes(path),
      ),
      '.git/config.worktree',
      '.git/info/attributes',
      // Would make another folder's config the repository's (git-control.ts).
      '.git/commondir',
    ];

    it.each(absent)('removes %s once the command ends, and says so', async (path) => {
      const { output, undone } = await run(
        sandbox,
        workspace,
        `mkdir -p "$(dirname '${path}')" && echo '{}' > '${path}' && echo CREATED; ` +
          `mkdir -p '${path}.d' && echo '{}' > '${path}.d/x' 2>/dev/null; true`,
      );
      expect(output).toContain('CREATED');
      expect(undone).toEqual([path]);
      expect(existsSync(file(path))).toBe(false);
      rmSync(file(`${path}.d`), { recursive: true, force: true });
    });

    it('removes a whole new judge folder, with what was written in it', async () => {
      const { undone } = await run(
        sandbox,
        workspace,
        'mkdir -p .github/actions/x .claude/hooks && echo evil > .github/actions/x/action.yml && echo {} > .claude/settings.json',
      );
      expect(undone).toEqual(expect.arrayContaining(['.claude', '.github/actions']));
      expect(existsSync(file('.github/actions'))).toBe(false);
      expect(existsSync(file('.claude'))).toBe(false);
    });

    it('reports every removal in the stats, for the run outcome', () => {
      expect(sandbox.stats().judgesRemoved).toEqual(
        expect.arrayContaining(['.mcp.json', '.claude', '.git/config.worktree']),
      );
    });
  });

  describe('the work around the judges', () => {
    it('still writes the other files of the pinned folders, and commits', async () => {
      const { output, undone } = await run(
        sandbox,
        workspace,
        [
          "echo 'version: 3' > .github/dependabot.yml",
          'echo new > .github/labels.yml',
          'echo more > tools/notes.txt',
          'git add -A',
          'git -c user.name=t -c user.email=t@x commit -qm work && echo COMMITTED',
        ].join(' && '),
      );
      expect(output).toContain('COMMITTED');
      expect(undone).toEqual([]);
      expect(read('.github/dependabot.yml')).toBe('version: 3\n');
      expect(read('.github/labels.yml')).toBe('new\n');
    });

    it('still refuses writes to the judges themselves', async () => {
      const { output } = await run(
        sandbox,
        workspace,
        'echo evil > .github/workflows/ci.yml || echo REFUSED-1; echo evil > tools/hooks/check.sh || echo REFUSED-2',
      );
      expect(output).toContain('REFUSED-1');
      expect(output).toContain('REFUSED-2');
      expect(read('tools/hooks/check.sh')).toBe('exit 0\n');
    });
  });
});
