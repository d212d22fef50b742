import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { findRipgrep } from '../../../../src/tools/builtin/search/find-ripgrep.js';
import {
  TooManyHiddenFiles,
  findHiddenFiles,
} from '../../../../src/tools/builtin/search/ripgrep-hidden.js';
import type { SearchQuery, SearchRun } from '../../../../src/tools/builtin/search/types.js';

const rg = findRipgrep(process.env.PATH);
const env = { PATH: process.env.PATH ?? '' };
const FILTERS = ['--glob', '!.git'];

describe('findHiddenFiles', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace('ci-agent-rg-hidden-');
  });
  afterEach(() => workspace.cleanup());

  const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
    pattern: 'x',
    target: workspace.root,
    targetIsFile: false,
    mode: 'content',
    globs: [],
    type: undefined,
    ignoreCase: false,
    lineNumbers: true,
    before: 0,
    after: 0,
    multiline: false,
    ...overrides,
  });
  const run = (isReadDenied?: (path: string) => boolean): SearchRun => ({
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    onLine: () => true,
    ...(isReadDenied && { isReadDenied }),
  });

  it('asks nothing of rg without a predicate or for a single file', async () => {
    const binary = '/nonexistent/rg';
    await expect(findHiddenFiles(binary, env, query(), run(), FILTERS)).resolves.toEqual({
      globs: [],
      hidden: 0,
    });
    const file = query({ target: workspace.path('a'), targetIsFile: true });
    await expect(
      findHiddenFiles(
        binary,
        env,
        file,
        run(() => true),
        FILTERS,
      ),
    ).resolves.toEqual({
      globs: [],
      hidden: 0,
    });
  });

  it.skipIf(!rg)('excludes each hidden file by its path below the searched directory', async () => {
    await workspace.write('.env', '');
    await workspace.write('sub/.env', '');
    await workspace.write('sub/a.txt', '');
    const found = await findHiddenFiles(
      rg!,
      env,
      query(),
      run((path) => path.endsWith('/.env')),
      FILTERS,
    );
    expect(found.hidden).toBe(2);
    expect([...found.globs].sort()).toEqual(['!/.env', '!/sub/.env']);
  });

  it.skipIf(!rg)('excludes a whole directory when the rules cover all of it', async () => {
    for (const name of ['a', 'b', 'deep/c']) await workspace.write(`secret/${name}`, '');
    await workspace.write('open.txt', '');
    const isReadDenied = (path: string) =>
      path === workspace.path('secret') || path.startsWith(`${workspace.path('secret')}/`);
    const found = await findHiddenFiles(rg!, env, query(), run(isReadDenied), FILTERS);
    expect(found).toEqual({ globs: ['!/secret'], hidden: 3 });
  });

  it.skipIf(!rg)('escapes glob characters and a trailing blank in names', async () => {
    await workspace.write('a*b [1]{2}?.env', '');
    await workspace.write('tail .env ', '');
    const found = await findHiddenFiles(
      rg!,
      env,
      query(),
      run(() => true),
      FILTERS,
    );
    expect([...found.globs].sort()).toEqual(['!/a\\*b \\[1\\]\\{2\\}\\?.env', '!/tail .env\\ ']);
  });

  it.skipIf(!rg)('lists with the search filters, so only files it would read count', async () => {
    await workspace.write('a.env', '');
    await workspace.write('b.txt', '');
    const found = await findHiddenFiles(
      rg!,
      env,
      query(),
      run(() => true),
      ['--glob', '*.txt', ...FILTERS],
    );
    expect(found).toEqual({ globs: ['!/b.txt'], hidden: 1 });
  });

  it.skipIf(!rg)('gives up when the exclusions would not fit a command line', async () => {
    const long = 'x'.repeat(200);
    for (let index = 0; index < 600; index++) await workspace.write(`${long}${index}`, '');
    await expect(
      findHiddenFiles(
        rg!,
        env,
        query(),
        run(() => true),
        FILTERS,
      ),
    ).rejects.toBeInstanceOf(TooManyHiddenFiles);
  });

  it.skipIf(!rg)('gives up when listing outlives the search time limit', async () => {
    await workspace.write('a', '');
    const slow: SearchRun = { ...run(() => true), timeoutMs: 0 };
    await expect(findHiddenFiles(rg!, env, query(), slow, FILTERS)).rejects.toBeInstanceOf(
      TooManyHiddenFiles,
    );
  });

  it.skipIf(!rg)('passes a cancellation on', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    const cancelled: SearchRun = { ...run(() => true), signal: controller.signal };
    await expect(findHiddenFiles(rg!, env, query(), cancelled, FILTERS)).rejects.toThrow(
      'stop now',
    );
  });
});
