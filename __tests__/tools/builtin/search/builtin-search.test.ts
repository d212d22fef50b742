import { mkdir, symlink, truncate } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { builtinSearchEngine } from '../../../../src/tools/builtin/search/builtin-search.js';
import { findRipgrep } from '../../../../src/tools/builtin/search/find-ripgrep.js';
import { ripgrepEngine } from '../../../../src/tools/builtin/search/ripgrep.js';
import type { SearchEngine, SearchQuery } from '../../../../src/tools/builtin/search/types.js';
import { SCENARIOS } from './engine-scenarios.js';
import type { Scenario } from './engine-scenarios.js';

const rg = findRipgrep(process.env.PATH);
const env = { PATH: process.env.PATH ?? '' };
const ENGINES: Array<{ label: string; engine: SearchEngine | undefined }> = [
  {
    label: rg ? 'ripgrep' : 'ripgrep (skipped: no rg on PATH)',
    engine: rg ? ripgrepEngine(rg, env) : undefined,
  },
  { label: 'built-in', engine: builtinSearchEngine(env) },
];

function baseQuery(workspace: Workspace, overrides: Partial<SearchQuery>): SearchQuery {
  return {
    pattern: 'x',
    target: workspace.root,
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

/** Runs a query and gives its results as sorted, workspace-relative text. */
async function search(engine: SearchEngine, workspace: Workspace, overrides: Partial<SearchQuery>) {
  const lines: string[] = [];
  const query = baseQuery(workspace, overrides);
  const outcome = await engine(query, {
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    onLine: (line) => {
      lines.push(line);
      return true;
    },
  });
  const relative = (text: string) => text.replaceAll(`${workspace.root}/`, '');
  if (!outcome.ok) return { error: outcome.error };
  if (query.mode === 'files_with_matches') return { files: outcome.paths.map(relative).sort() };
  if (query.mode === 'count') {
    return {
      counts: outcome.counts.map((entry) => `${relative(entry.path)}:${entry.count}`).sort(),
    };
  }
  return { lines: lines.map(relative) };
}

async function build(workspace: Workspace, scenario: Scenario) {
  for (const directory of scenario.directories ?? []) {
    await mkdir(workspace.path(directory), { recursive: true });
  }
  for (const [path, content] of Object.entries(scenario.files))
    await workspace.write(path, content);
}

describe('builtinSearchEngine', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  describe.each(ENGINES)('held to ripgrep semantics: $label', ({ engine }) => {
    for (const scenario of SCENARIOS) {
      it.skipIf(!engine)(scenario.name, async () => {
        await build(workspace, scenario);
        const query = { ...scenario.query };
        if (query.target !== undefined) query.target = workspace.path(query.target);
        const result = await search(engine!, workspace, query);
        if ('error' in scenario.expected) {
          expect(result).toHaveProperty('error');
          expect(result.error).toContain(scenario.expected.error);
        } else {
          expect(result).toEqual(scenario.expected);
        }
      });
    }

    it.skipIf(!engine)('does not follow symbolic links while walking', async () => {
      await workspace.write('real/a.txt', 'x\n');
      await symlink(workspace.path('real'), workspace.path('linked-dir'));
      await symlink(workspace.path('real/a.txt'), workspace.path('linked-file'));
      expect(await search(engine!, workspace, {})).toEqual({ files: ['real/a.txt'] });
    });

    it.skipIf(!engine)(
      'reports matches before a NUL byte that comes after the first 64 KiB',
      async () => {
        const text = Buffer.concat([
          Buffer.from('x early\n'),
          Buffer.alloc(70 * 1024, 'a'),
          Buffer.from('\n\0tail\n'),
        ]);
        await workspace.write('late.bin', text);
        expect(await search(engine!, workspace, {})).toEqual({ files: ['late.bin'] });
      },
    );

    it.skipIf(!engine)('counts the matching lines of a named binary file', async () => {
      const path = await workspace.write('data.bin', Buffer.from('x\nx\0x\nx\n'));
      const result = await search(engine!, workspace, {
        mode: 'count',
        target: path,
        targetIsFile: true,
      });
      expect(result).toEqual({ counts: ['data.bin:3'] });
    });
  });

  describe('when the search runs out of time', () => {
    it('stops and says the results are incomplete', async () => {
      // A listing that cannot finish first, however warm the worker: a backtracking glob.
      await workspace.write(`${'a'.repeat(80)}.txt`, 'x\n');
      const query = baseQuery(workspace, { globs: ['*a*a*a*a*a*a*a*a*a*b'] });
      const outcome = await builtinSearchEngine(env)(query, {
        signal: new AbortController().signal,
        timeoutMs: 0,
        onLine: () => true,
      });
      expect(outcome.ok && outcome.warning).toBe(
        'The search was stopped after 0 s; results are incomplete. It was still listing files: the tree is large, or a glob (the glob argument or an ignore file) has so many stars, like *a*a*a*a*a*a*b, that the backtracking engine used without ripgrep takes exponential time on long names. Narrow the search or simplify the glob.',
      );
    });
  });

  describe('when the pattern backtracks catastrophically', () => {
    // 44 a's then a mismatch: JavaScript's engine tries about 10^9 ways to split them.
    const EXPLOSIVE_LINE = `${'a'.repeat(44)}!\n`;

    it('stops at its timeout, keeps what it found, names the file and leaves the event loop free', async () => {
      await workspace.write('a.txt', 'x\n');
      await workspace.write('b.txt', EXPLOSIVE_LINE);
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const started = performance.now();
      const outcome = await builtinSearchEngine(env)(
        baseQuery(workspace, { pattern: '^x$|(a|aa)+$' }),
        { signal: new AbortController().signal, timeoutMs: 600, onLine: () => true },
      );
      clearInterval(ticker);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(ticks).toBeGreaterThanOrEqual(10);
      expect(outcome).toMatchObject({ ok: true, paths: [workspace.path('a.txt')] });
      expect(outcome.ok && outcome.warning).toBe(
        `The search was stopped after 0.6 s; results are incomplete. It was still matching ${workspace.path('b.txt')}: without ripgrep the pattern runs on a backtracking engine, where nested or overlapping repetition such as (a|aa)+ can take exponential time on a long line. Simplify the pattern or narrow the search.`,
      );
    });

    it('stops a glob that backtracks on a long file name, and says it was listing files', async () => {
      await workspace.write(`${'a'.repeat(80)}.txt`, 'x\n');
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const started = performance.now();
      const outcome = await builtinSearchEngine(env)(
        baseQuery(workspace, { globs: ['*a*a*a*a*a*a*a*a*b'] }),
        { signal: new AbortController().signal, timeoutMs: 600, onLine: () => true },
      );
      clearInterval(ticker);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(ticks).toBeGreaterThanOrEqual(10);
      expect(outcome).toMatchObject({ ok: true, paths: [] });
      expect(outcome.ok && outcome.warning).toContain('It was still listing files');
    });

    it('rejects with the abort reason soon after an abort in the middle of a match', async () => {
      await workspace.write('b.txt', EXPLOSIVE_LINE);
      const controller = new AbortController();
      const started = performance.now();
      const running = builtinSearchEngine(env)(baseQuery(workspace, { pattern: '(a|aa)+$' }), {
        signal: controller.signal,
        timeoutMs: 60_000,
        onLine: () => true,
      });
      setTimeout(() => controller.abort(new Error('run cancelled')), 300);
      await expect(running).rejects.toThrow('run cancelled');
      expect(performance.now() - started).toBeLessThan(5_000);
      await workspace.write('c.txt', 'x\n');
      expect(await search(builtinSearchEngine(env), workspace, {})).toEqual({ files: ['c.txt'] });
    });
  });

  describe('when the call is aborted', () => {
    it('rejects with the abort reason', async () => {
      await workspace.write('a.txt', 'x\n');
      const controller = new AbortController();
      controller.abort(new Error('user pressed stop'));
      const running = builtinSearchEngine(env)(baseQuery(workspace, {}), {
        signal: controller.signal,
        timeoutMs: 10_000,
        onLine: () => true,
      });
      await expect(running).rejects.toThrow('user pressed stop');
    });
  });

  describe('when files cannot be searched', () => {
    it('skips files over 64 MiB and says so', async () => {
      const path = await workspace.write('huge.txt', '');
      await truncate(path, 65 * 1024 * 1024);
      const outcome = await builtinSearchEngine(env)(baseQuery(workspace, {}), {
        signal: new AbortController().signal,
        timeoutMs: 10_000,
        onLine: () => true,
      });
      expect(outcome).toMatchObject({
        ok: true,
        paths: [],
        warning: '1 files over 64 MiB were not searched.',
      });
    });

    it('says how many paths could not be read', async () => {
      await mkdir(workspace.path('not-a-file'));
      const outcome = await builtinSearchEngine(env)(
        baseQuery(workspace, { target: workspace.path('not-a-file'), targetIsFile: true }),
        { signal: new AbortController().signal, timeoutMs: 10_000, onLine: () => true },
      );
      expect(outcome).toMatchObject({ ok: true, warning: '1 paths could not be read.' });
    });
  });

  describe('when the caller has enough lines', () => {
    it('stops reading further files', async () => {
      for (let index = 0; index < 100; index++) {
        await workspace.write(`f${String(index).padStart(3, '0')}.txt`, 'x\n');
      }
      const seen: string[] = [];
      await builtinSearchEngine(env)(baseQuery(workspace, { mode: 'content' }), {
        signal: new AbortController().signal,
        timeoutMs: 10_000,
        onLine: (line) => {
          seen.push(line);
          return seen.length < 2;
        },
      });
      expect(seen).toEqual([
        `${workspace.path('f000.txt')}:1:x`,
        `${workspace.path('f001.txt')}:1:x`,
      ]);
    });
  });
});
