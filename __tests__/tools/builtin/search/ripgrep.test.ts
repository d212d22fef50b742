import { chmod } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { findRipgrep } from '../../../../src/tools/builtin/search/find-ripgrep.js';
import {
  ripgrepArgs,
  ripgrepCwd,
  ripgrepEngine,
} from '../../../../src/tools/builtin/search/ripgrep.js';
import type { SearchQuery, SearchRun } from '../../../../src/tools/builtin/search/types.js';

const rg = findRipgrep(process.env.PATH);
const env = { PATH: process.env.PATH ?? '' };

function query(overrides: Partial<SearchQuery> = {}): SearchQuery {
  return {
    pattern: 'needle',
    target: '/repo',
    targetIsFile: false,
    mode: 'files_with_matches',
    globs: [],
    type: undefined,
    ignoreCase: false,
    lineNumbers: true,
    before: 0,
    after: 0,
    multiline: false,
    ...overrides,
  };
}

function runOptions(overrides: Partial<SearchRun> = {}): SearchRun {
  return {
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    onLine: () => true,
    ...overrides,
  };
}

describe('ripgrepArgs', () => {
  it('lists files with NUL separators, hidden files included and .git excluded last', () => {
    expect(ripgrepArgs(query({ globs: ['*.ts', '!dist/**'] }))).toEqual([
      '--no-config',
      '--hidden',
      '--color',
      'never',
      '--no-heading',
      '-l',
      '--null',
      '--glob',
      '*.ts',
      '--glob',
      '!dist/**',
      '--glob',
      '!.git',
      '-e',
      'needle',
      '--',
      '/repo',
    ]);
  });

  it('passes the pattern with -e so that a leading dash is not read as an option', () => {
    const args = ripgrepArgs(query({ pattern: '--files' }));
    expect(args.slice(-4)).toEqual(['-e', '--files', '--', '/repo']);
  });

  it('counts with file names even for a single file', () => {
    const args = ripgrepArgs(query({ mode: 'count', target: '/repo/a.txt', targetIsFile: true }));
    expect(args).toContain('-c');
    expect(args).toContain('--with-filename');
    expect(args).toContain('--null');
  });

  it('sorts content by path, bounds long lines and adds numbers and context', () => {
    const args = ripgrepArgs(query({ mode: 'content', before: 2, after: 3 })).join(' ');
    expect(args).toContain('--sort path --max-columns 500 --max-columns-preview -n -A 3 -B 2');
  });

  it('leaves numbers and zero context out', () => {
    const args = ripgrepArgs(query({ mode: 'content', lineNumbers: false }));
    expect(args).not.toContain('-n');
    expect(args).not.toContain('-A');
    expect(args).not.toContain('-B');
  });

  it('puts exclusions after the model globs and the .git exclusion', () => {
    const args = ripgrepArgs(query({ globs: ['.env'] }), ['!/.env']);
    expect(args.slice(-10)).toEqual([
      '--glob',
      '.env',
      '--glob',
      '!.git',
      '--glob',
      '!/.env',
      '-e',
      'needle',
      '--',
      '/repo',
    ]);
  });

  it('maps case, multiline and type', () => {
    const args = ripgrepArgs(query({ ignoreCase: true, multiline: true, type: 'py' })).join(' ');
    expect(args).toContain('-i -U --multiline-dotall --type py');
  });
});

describe('ripgrepCwd', () => {
  it('is the searched directory, or the directory of a searched file', () => {
    expect(ripgrepCwd(query())).toBe('/repo');
    expect(ripgrepCwd(query({ target: '/repo/src/a.ts', targetIsFile: true }))).toBe('/repo/src');
  });
});

describe('ripgrepEngine', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  /** A stand-in for rg: a real process that behaves as the test needs. */
  async function fakeRipgrep(script: string): Promise<string> {
    const path = await workspace.write('bin/rg', `#!/bin/sh\n${script}\n`);
    await chmod(path, 0o755);
    return path;
  }

  describe('when rg finds nothing', () => {
    it('reports an empty result', async () => {
      const binary = await fakeRipgrep('exit 1');
      const outcome = await ripgrepEngine(binary, env)(
        query({ target: workspace.root }),
        runOptions(),
      );
      expect(outcome).toEqual({ ok: true, paths: [], counts: [] });
    });
  });

  describe('when rg fails after finding something', () => {
    it('reports what was found with the error as a warning', async () => {
      const binary = await fakeRipgrep(
        "printf '/repo/a.txt\\000'; echo 'rg: ./locked: Permission denied (os error 13)' >&2; exit 2",
      );
      const outcome = await ripgrepEngine(binary, env)(
        query({ target: workspace.root }),
        runOptions(),
      );
      expect(outcome).toEqual({
        ok: true,
        paths: ['/repo/a.txt'],
        counts: [],
        warning: 'Some paths could not be searched: rg: ./locked: Permission denied (os error 13)',
      });
    });
  });

  describe('when rg fails without output', () => {
    it('reports its error message', async () => {
      const binary = await fakeRipgrep("echo 'regex parse error: boom' >&2; exit 2");
      const outcome = await ripgrepEngine(binary, env)(
        query({ target: workspace.root }),
        runOptions(),
      );
      expect(outcome).toEqual({ ok: false, error: 'regex parse error: boom' });
    });

    it('names the exit code when rg says nothing', async () => {
      const binary = await fakeRipgrep('exit 3');
      const outcome = await ripgrepEngine(binary, env)(
        query({ target: workspace.root }),
        runOptions(),
      );
      expect(outcome).toEqual({ ok: false, error: 'ripgrep exited with code 3' });
    });
  });

  describe('when rg runs past the timeout', () => {
    it('stops it and reports what was found with a warning', async () => {
      const binary = await fakeRipgrep("printf '/repo/a.txt\\000'; exec sleep 30");
      const outcome = await ripgrepEngine(binary, env)(
        query({ target: workspace.root }),
        runOptions({ timeoutMs: 200 }),
      );
      expect(outcome).toEqual({
        ok: true,
        paths: ['/repo/a.txt'],
        counts: [],
        warning: 'The search was stopped after 0.2 s; results are incomplete.',
      });
    });
  });

  describe('when the call is aborted', () => {
    it('stops rg and rejects with the reason', async () => {
      const binary = await fakeRipgrep('exec sleep 30');
      const controller = new AbortController();
      const running = ripgrepEngine(binary, env)(
        query({ target: workspace.root }),
        runOptions({ signal: controller.signal }),
      );
      controller.abort(new Error('stop it'));
      await expect(running).rejects.toThrow('stop it');
    });
  });

  describe('when the caller has enough lines', () => {
    it('stops rg and keeps the lines taken', async () => {
      const binary = await fakeRipgrep('exec seq 1 1000000');
      const lines: string[] = [];
      const outcome = await ripgrepEngine(binary, env)(
        query({ target: workspace.root, mode: 'content' }),
        runOptions({ onLine: (line) => (lines.push(line), lines.length < 3) }),
      );
      expect(outcome).toEqual({ ok: true, paths: [], counts: [] });
      expect(lines).toEqual(['1', '2', '3']);
    });
  });

  describe('when the binary does not exist', () => {
    it('rejects with the spawn error', async () => {
      const running = ripgrepEngine(workspace.path('missing/rg'), env)(
        query({ target: workspace.root }),
        runOptions(),
      );
      await expect(running).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });

  describe('with the real rg', () => {
    it.skipIf(!rg)('keeps file names with colons and line breaks intact', async () => {
      await workspace.write('a:b.txt', 'needle\nneedle\n');
      await workspace.write('line\nbreak.txt', 'needle\n');
      const engine = ripgrepEngine(rg!, env);
      const counts = await engine(query({ target: workspace.root, mode: 'count' }), runOptions());
      const files = await engine(query({ target: workspace.root }), runOptions());
      expect(counts.ok && [...counts.counts].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
        { path: workspace.path('a:b.txt'), count: 2 },
        { path: workspace.path('line\nbreak.txt'), count: 1 },
      ]);
      expect(files.ok && [...files.paths].sort()).toEqual([
        workspace.path('a:b.txt'),
        workspace.path('line\nbreak.txt'),
      ]);
    });
  });

  describe('when the output does not end with a line break', () => {
    it('passes the last line on', async () => {
      const lines: string[] = [];
      const binary = await fakeRipgrep("printf 'one\\ntwo'");
      await ripgrepEngine(binary, env)(
        query({ target: workspace.root, mode: 'content' }),
        runOptions({ onLine: (line) => (lines.push(line), true) }),
      );
      expect(lines).toEqual(['one', 'two']);
    });
  });
});
