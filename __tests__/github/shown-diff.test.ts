/**
 * The diff shown is the diff pushed (issue 12, item 2): real git in a temp repository whose
 * `.gitattributes` and config the agent wrote, against diffSince and showableDiff.
 */
import { execaSync } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit, diffSince } from '../../src/github/git.js';
import { showableDiff } from '../../src/github/shown-diff.js';

let repo: string | undefined;
afterEach(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
  repo = undefined;
});

const git = (cwd: string, ...args: string[]) =>
  execaSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
  }).stdout.trim();

/** A repository with one commit; returns it and that commit. */
function repository(files: Record<string, string | Buffer>): { root: string; base: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-shown-diff-')));
  repo = root;
  git(root, 'init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'base');
  return { root, base: git(root, 'rev-parse', 'HEAD') };
}

function commit(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content);
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'change');
}

describe('diffSince', () => {
  it('shows code as text whatever .gitattributes the agent wrote', async () => {
    const { root, base } = repository({ 'src/a.ts': 'export const x = 1;\n' });
    commit(root, {
      '.gitattributes': 'src/a.ts -diff\n*.ts binary\n',
      'src/a.ts': 'export const x = 2; // and a backdoor\n',
    });
    const { patch, shown, files } = await diffSince(createGit(root), base, 'HEAD');
    // The applicable patch follows the attributes; what the reviewer is shown does not.
    expect(patch).toContain('GIT binary patch');
    expect(shown).toContain('+export const x = 2; // and a backdoor');
    expect(shown).not.toContain('Binary files');
    expect(shown).not.toContain('GIT binary patch');
    expect(files).toContainEqual({ path: 'src/a.ts', added: 1, removed: 1 });
  });

  it('runs no textconv or external diff driver the repository names', async () => {
    const { root, base } = repository({ 'a.ts': 'one\n' });
    const marker = join(root, '..', `${root.split('/').pop() ?? 'x'}-pwned`);
    git(root, 'config', 'diff.conv.textconv', `touch ${marker}; cat`);
    git(root, 'config', 'diff.ext.command', `touch ${marker}; true`);
    commit(root, { '.gitattributes': 'a.ts diff=conv\n*.md diff=ext\n', 'a.ts': 'two\n' });
    const { shown } = await diffSince(createGit(root), base, 'HEAD');
    expect(shown).toContain('+two');
    expect(existsSync(marker)).toBe(false);
  });

  it('names a file whose content is not text instead of dumping it', async () => {
    const { root, base } = repository({ 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]) });
    commit(root, {
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff, 0xfe]),
      'b.txt': 'text\n',
    });
    const { shown } = await diffSince(createGit(root), base, 'HEAD');
    expect(shown).toContain('diff --git a/logo.png b/logo.png\n(binary content not shown');
    expect(shown).not.toContain('\0');
    expect(shown).toContain('+text');
  });
});

describe('showableDiff', () => {
  it('keeps a text patch as it is', () => {
    const patch = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
    expect(showableDiff(patch)).toBe(patch);
  });

  it('keeps the mode lines of a binary file it does not show', () => {
    const patch =
      'diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+\0\n';
    expect(showableDiff(patch)).toBe(
      'diff --git a/x b/x\nnew file mode 100644\n(binary content not shown: the file is not text; the artifact holds the whole patch)\n',
    );
  });
});
