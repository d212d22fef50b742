import { chmod, symlink } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { grepTool } from '../../../src/tools/builtin/grep.js';
import type { GrepOutput } from '../../../src/tools/builtin/search/grep-result.js';
import { findRipgrep } from '../../../src/tools/builtin/search/find-ripgrep.js';
import { writeCorpus } from './search/grep-corpus.js';
import { GREP_CASES } from './search/grep-cases.js';

const rg = findRipgrep(process.env.PATH);
const ENGINES = [
  {
    label: rg ? `ripgrep (${rg})` : 'ripgrep (skipped: no rg on PATH)',
    ripgrepPath: rg,
    skip: rg === null,
  },
  { label: 'built-in search', ripgrepPath: null, skip: false },
];

describe('grepTool', () => {
  let corpus: Workspace;

  beforeAll(async () => {
    corpus = makeWorkspace('ci-agent-grep-');
    await writeCorpus(corpus);
  });
  afterAll(() => corpus.cleanup());

  const run = (input: Record<string, unknown>, ripgrepPath: string | null) =>
    runTool(grepTool, input, makeContext(corpus, { ripgrepPath }));
  const normalize = (text: string) => text.replaceAll(corpus.root, '<root>');

  describe.each(ENGINES)('with the $label engine', ({ ripgrepPath, skip }) => {
    for (const testCase of GREP_CASES) {
      it.skipIf(skip)(testCase.name, async () => {
        const result = await run(testCase.input, ripgrepPath);
        expect(normalize(result.text)).toBe(testCase.expected);
        expect(result.block.is_error ?? false).toBe(testCase.isError ?? false);
      });
    }

    it.skipIf(skip)('reports an invalid pattern as an error result', async () => {
      const result = await run({ pattern: '(unclosed' }, ripgrepPath);
      expect(result.block.is_error).toBe(true);
      expect(result.text).toMatch(/^regex parse error:/);
      expect(result.text).toContain('(unclosed');
    });

    it.skipIf(skip)('returns the structured result for file listings', async () => {
      const result = await run({ pattern: 'needle', head_limit: 1, offset: 1 }, ripgrepPath);
      expect(result.data).toEqual({
        mode: 'files_with_matches',
        numFiles: 1,
        filenames: [corpus.path('src/app.ts')],
        appliedLimit: 1,
        appliedOffset: 1,
      });
    });

    it.skipIf(skip)('returns the structured result for content and counts', async () => {
      const content = await run(
        { pattern: 'needle', output_mode: 'content', path: 'src' },
        ripgrepPath,
      );
      expect(content.data).toMatchObject({ mode: 'content', numLines: 4, numFiles: 0 });
      const count = await run(
        { pattern: 'needle', output_mode: 'count', path: 'src' },
        ripgrepPath,
      );
      expect(count.data).toMatchObject({
        mode: 'count',
        numFiles: 3,
        numMatches: 4,
        filenames: [
          corpus.path('src/app.ts'),
          corpus.path('src/nested/deep.py'),
          corpus.path('src/util.js'),
        ],
      });
    });

    describe('when the output is longer than 20 000 characters', () => {
      let big: Workspace;
      beforeEach(async () => {
        big = makeWorkspace();
        const line = `match ${'x'.repeat(194)}\n`;
        await big.write('big.txt', line.repeat(300));
      });
      afterEach(() => big.cleanup());

      it.skipIf(skip)(
        'cuts the text at a line end and says how many lines were left out',
        async () => {
          const result = await runTool(
            grepTool,
            { pattern: 'match', output_mode: 'content', head_limit: 0 },
            makeContext(big, { ripgrepPath }),
          );
          const [shown, note] = result.text.split('\n\n');
          expect(shown!.length).toBeLessThanOrEqual(20_000);
          const shownLines = shown!.split('\n').length;
          expect(note).toBe(`... [${300 - shownLines} lines truncated] ...`);
          expect((result.data as GrepOutput).numLines).toBe(300);
        },
      );
    });
  });

  describe('engine parity', () => {
    const patterns = [
      'needle',
      'Needle',
      '^def',
      'needle;$',
      '\\bneedle\\b',
      'n.e',
      '[[:upper:]]',
      '\\d+',
      'plain|match',
      '(?i)NEEDLE',
      'ne{2}dle',
      'return\\s+\\w+',
      '^$',
      '',
      '\\{\\n',
    ];
    const variants: Array<Record<string, unknown>> = [
      { output_mode: 'files_with_matches' },
      { output_mode: 'count' },
      { output_mode: 'content' },
      { output_mode: 'content', '-C': 2, '-n': false },
      { output_mode: 'count', multiline: true, '-i': true },
      { output_mode: 'content', multiline: true, '-B': 1 },
    ];

    it.skipIf(!rg)('gives the same text with both engines for every pattern and mode', async () => {
      const differences: string[] = [];
      for (const pattern of patterns) {
        for (const variant of variants) {
          // ripgrep prints stray context lines for an empty match at the very end of a file
          // in multiline mode; the built-in engine does not copy that quirk.
          const quirk = ['', '^$'].includes(pattern) && variant.multiline && variant['-B'];
          if (quirk) continue;
          const input = { pattern, head_limit: 0, ...variant };
          const [withRipgrep, builtin] = await Promise.all([run(input, rg), run(input, null)]);
          // Error wording is each engine's own; that both refuse is what must agree.
          const bothErrors = withRipgrep.block.is_error === true && builtin.block.is_error === true;
          if (!bothErrors && withRipgrep.text !== builtin.text) {
            differences.push(
              `${JSON.stringify(input)}\nrg:\n${withRipgrep.text}\nbuilt-in:\n${builtin.text}`,
            );
          }
        }
      }
      expect(differences).toEqual([]);
    });
  });

  describe('when the path does not exist', () => {
    it('refuses the call with the path it looked for', async () => {
      const result = await run({ pattern: 'x', path: 'missing/dir' }, null);
      expect(result.block.is_error).toBe(true);
      expect(result.text).toBe(
        `<tool_use_error>Path does not exist: ${corpus.path('missing/dir')}</tool_use_error>`,
      );
    });
  });

  describe('when the ripgrep binary cannot be started', () => {
    it('falls back to the built-in search', async () => {
      const result = await run({ pattern: 'needle', path: 'src/util.js' }, '/nonexistent/rg');
      expect(result.text).toBe(`Found 1 file\n${corpus.path('src/util.js')}`);
    });
  });

  describe('when ripgrep would need too many exclusions for the hidden files', () => {
    it.skipIf(!rg)('searches with the built-in engine, which hides them as it walks', async () => {
      const workspace = makeWorkspace('ci-agent-grep-many-');
      try {
        const long = 'x'.repeat(200);
        for (let index = 0; index < 600; index++) {
          await workspace.write(`${long}${index}.env`, 'TOKEN=hidden\n');
        }
        await workspace.write('a.txt', 'TOKEN=public\n');
        const context = makeContext(workspace, {
          ripgrepPath: rg,
          isReadDenied: (path) => path.endsWith('.env'),
        });
        const result = await runTool(
          grepTool,
          { pattern: 'TOKEN', output_mode: 'content' },
          context,
        );
        expect(result.text).toBe(
          `${workspace.path('a.txt')}:1:TOKEN=public\n\n(600 files hidden by permission rules)`,
        );
      } finally {
        workspace.cleanup();
      }
    });
  });

  describe('when ripgrep is too old for the flags the tool passes', () => {
    it('falls back to the built-in search', async () => {
      const bin = makeWorkspace();
      try {
        const fake = await bin.write(
          'rg',
          "#!/bin/sh\necho \"error: Found argument '--max-columns-preview' which wasn't expected, or isn't valid in this context\" >&2\nexit 2\n",
        );
        await chmod(fake, 0o755);
        const result = await run({ pattern: 'helper', output_mode: 'content' }, fake);
        expect(result.text).toBe(`${corpus.path('src/util.js')}:1:// needle helper`);
      } finally {
        bin.cleanup();
      }
    });
  });

  describe('when the call is aborted', () => {
    const abortedRun = (ripgrepPath: string | null) => {
      const controller = new AbortController();
      controller.abort(new Error('stop now'));
      const context = makeContext(corpus, { ripgrepPath, signal: controller.signal });
      return runTool(grepTool, { pattern: 'needle' }, context);
    };

    it.skipIf(!rg)('stops ripgrep and rejects with the reason', async () => {
      await expect(abortedRun(rg)).rejects.toThrow('stop now');
    });

    it('stops the built-in search and rejects with the reason', async () => {
      await expect(abortedRun(null)).rejects.toThrow('stop now');
    });
  });

  describe.each(ENGINES)('when Read deny rules hide files ($label)', ({ ripgrepPath, skip }) => {
    let workspace: Workspace;
    const denied = (path: string) =>
      path.endsWith('/.env') || path.includes('/secret/') || path.endsWith('/secret');

    beforeEach(async () => {
      workspace = makeWorkspace('ci-agent-grep-hidden-');
      await workspace.write('.env', 'TOKEN=1\n');
      await workspace.write('a.txt', 'before\nTOKEN=public\nafter\n');
      await workspace.write('secret/one.txt', 'TOKEN=2\n');
      await workspace.write('secret/deep/two.txt', 'TOKEN=3\n');
      await workspace.write('z.txt', 'TOKEN=last\n');
    });
    afterEach(() => workspace.cleanup());

    const search = (input: Record<string, unknown>, isReadDenied = denied) =>
      runTool(grepTool, input, makeContext(workspace, { ripgrepPath, isReadDenied }));
    const normalize = (text: string) => text.replaceAll(workspace.root, '<root>');

    it.skipIf(skip)('leaves them out of a file list and says how many', async () => {
      const result = await search({ pattern: 'TOKEN' });
      expect(normalize(result.text).split('\n').slice(1, 3).sort()).toEqual([
        '<root>/a.txt',
        '<root>/z.txt',
      ]);
      expect(result.text).toMatch(/^Found 2 files\n/);
      expect(result.text.endsWith('\n\n(3 files hidden by permission rules)')).toBe(true);
      expect(result.data).toMatchObject({ numFiles: 2, hiddenByPermissions: 3 });
    });

    it.skipIf(skip)('leaves them out of counts', async () => {
      const result = await search({ pattern: 'TOKEN', output_mode: 'count' });
      expect(normalize(result.text)).toBe(
        '<root>/a.txt:1\n<root>/z.txt:1\n\nFound 2 total occurrences across 2 files.\n\n(3 files hidden by permission rules)',
      );
    });

    it.skipIf(skip)('leaves their lines out of content, context included', async () => {
      const result = await search({ pattern: 'TOKEN', output_mode: 'content', '-C': 1 });
      expect(normalize(result.text)).toBe(
        [
          '<root>/a.txt-1-before',
          '<root>/a.txt:2:TOKEN=public',
          '<root>/a.txt-3-after',
          '--',
          '<root>/z.txt:1:TOKEN=last',
          '',
          '(3 files hidden by permission rules)',
        ].join('\n'),
      );
    });

    it.skipIf(skip)('keeps them out when the model globs for them by name', async () => {
      const result = await search({ pattern: 'TOKEN', glob: '.env', output_mode: 'content' });
      expect(result.text).toBe('No matches found\n\n(1 file hidden by permission rules)');
    });

    it.skipIf(skip)('counts only the files the search would have read', async () => {
      const result = await search({ pattern: 'TOKEN', glob: '*.txt' });
      expect(result.text.endsWith('(2 files hidden by permission rules)')).toBe(true);
    });

    it.skipIf(skip)('leaves a file named as the target to the permission decision', async () => {
      const result = await search({ pattern: 'TOKEN', path: '.env', output_mode: 'content' });
      expect(result.text).toBe('1:TOKEN=1');
    });

    it.skipIf(skip)('hides files with glob characters in their names', async () => {
      await workspace.write('we*ird [1]{x}.env', 'TOKEN=odd\n');
      const result = await search({ pattern: 'TOKEN', output_mode: 'content' }, (path) =>
        path.endsWith('.env'),
      );
      expect(result.text).not.toContain('odd');
      expect(result.text).not.toContain('TOKEN=1');
      expect(result.text.endsWith('(2 files hidden by permission rules)')).toBe(true);
    });
  });

  describe('checkPermissions', () => {
    it('asks for read access to the searched path', () => {
      const context = makeContext(corpus);
      expect(grepTool.checkPermissions({ pattern: 'x', path: 'src' }, context)).toEqual({
        access: 'read',
        ruleContent: corpus.path('src'),
        paths: [corpus.path('src')],
      });
    });

    it('defaults to the project directory', () => {
      const context = makeContext(corpus);
      expect(grepTool.checkPermissions({ pattern: 'x' }, context)).toMatchObject({
        ruleContent: corpus.root,
      });
    });

    it('names both a symbolic link and its target', async () => {
      const project = makeWorkspace();
      const outside = makeWorkspace();
      try {
        await symlink(outside.root, project.path('link'));
        const request = grepTool.checkPermissions(
          { pattern: 'x', path: 'link' },
          makeContext(project),
        );
        expect(request.paths).toEqual([project.path('link'), outside.root]);
      } finally {
        project.cleanup();
        outside.cleanup();
      }
    });
  });

  describe('declarations', () => {
    it('is read-only and safe to run concurrently', () => {
      expect(grepTool.isReadOnly({ pattern: 'x' })).toBe(true);
      expect(grepTool.isConcurrencySafe({ pattern: 'x' })).toBe(true);
    });

    it('refuses negative limits and unknown keys', () => {
      expect(grepTool.inputSchema.safeParse({ pattern: 'x', head_limit: -1 }).success).toBe(false);
      expect(grepTool.inputSchema.safeParse({ pattern: 'x', '-z': true }).success).toBe(false);
    });
  });
});
