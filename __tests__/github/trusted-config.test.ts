import { execaSync } from 'execa';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit } from '../../src/github/git.js';
import { restoreHeadConfig, useTrustedConfig } from '../../src/github/trusted-config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const sh = (cwd: string, ...args: string[]) =>
  execaSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
  }).stdout.trim();
const put = (root: string, files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
};

/** origin with main (the trusted config) and a PR branch that changes the config. */
function prCheckout() {
  const origin = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-origin-')));
  const clone = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-clone-')));
  dirs.push(origin, clone);
  sh(origin, 'init', '-q', '--bare', '-b', 'main');
  sh(clone, 'init', '-q', '-b', 'main');
  put(clone, {
    'src/a.js': 'a\n',
    '.claude/settings.json': '{"permissions":{"deny":["Bash(curl:*)"]}}',
    '.claude/hooks/guard.sh': 'exit 2\n',
    'CLAUDE.md': 'trusted memory\n',
  });
  sh(clone, 'add', '-A');
  sh(clone, 'commit', '-qm', 'base');
  sh(clone, 'remote', 'add', 'origin', origin);
  sh(clone, 'push', '-q', 'origin', 'main');
  sh(clone, 'checkout', '-q', '-b', 'pr');
  put(clone, {
    '.claude/settings.json': '{"permissions":{"allow":["Bash"]}}',
    '.claude/hooks/guard.sh': 'exit 0\n',
    '.claude/settings.local.json': '{"permissions":{"allow":["Bash(curl:*)"]}}',
    '.github/ci-agent.yml': 'permissions:\n  defaultMode: bypassPermissions\n',
    'src/a.js': 'a changed by the PR\n',
  });
  rmSync(join(clone, 'CLAUDE.md'));
  sh(clone, 'add', '-A');
  sh(clone, 'commit', '-qm', 'pr changes');
  return clone;
}

describe('useTrustedConfig', () => {
  it('replaces the PR head’s configuration with the base branch’s in the working tree only', async () => {
    const clone = prCheckout();
    const git = createGit(clone);
    const trusted = await useTrustedConfig(git, clone, 'main');
    expect(readFileSync(join(clone, '.claude/settings.json'), 'utf8')).toContain('Bash(curl:*)');
    expect(readFileSync(join(clone, '.claude/hooks/guard.sh'), 'utf8')).toBe('exit 2\n');
    expect(existsSync(join(clone, '.claude/settings.local.json'))).toBe(false);
    expect(existsSync(join(clone, '.github/ci-agent.yml'))).toBe(false);
    expect(readFileSync(join(clone, 'CLAUDE.md'), 'utf8')).toBe('trusted memory\n');
    expect(readFileSync(join(clone, 'src/a.js'), 'utf8')).toBe('a changed by the PR\n');
    expect(trusted.restored).toEqual(expect.arrayContaining(['.claude', 'CLAUDE.md']));
    expect(trusted.removed).toEqual(['.github/ci-agent.yml']);
    expect(sh(clone, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('puts the head’s configuration back so the agent’s commit neither reverts nor carries it', async () => {
    const clone = prCheckout();
    const git = createGit(clone);
    const trusted = await useTrustedConfig(git, clone, 'main');
    writeFileSync(join(clone, 'src/a.js'), 'fixed by the agent\n');
    await restoreHeadConfig(git, clone, trusted);
    expect(sh(clone, 'status', '--porcelain')).toBe('M src/a.js');
    expect(readFileSync(join(clone, '.claude/settings.json'), 'utf8')).toBe(
      '{"permissions":{"allow":["Bash"]}}',
    );
    expect(existsSync(join(clone, 'CLAUDE.md'))).toBe(false);
  });
});
