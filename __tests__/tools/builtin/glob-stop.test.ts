import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { defineGlobTool, globTool } from '../../../src/tools/builtin/glob.js';
import type { GlobOutput } from '../../../src/tools/builtin/glob.js';

// Nine stars before a b that never comes: picomatch's regular expression tries every way to
// split 80 a's among them. Six stars take about 3 s on one core, each further one about ten
// times as long.
const EXPLOSIVE_PATTERN = '*a*a*a*a*a*a*a*a*a*b';
const LONG_NAME = 'a'.repeat(80);

/** Runs `action` while a 20 ms interval ticks; the ticks and the wall time it took. */
async function whileTicking<T>(action: () => Promise<T>) {
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 20);
  const started = performance.now();
  try {
    const outcome = await action();
    return { outcome, ticks, ms: performance.now() - started };
  } finally {
    clearInterval(ticker);
  }
}

describe('defineGlobTool', () => {
  let workspace: Workspace;

  beforeEach(async () => {
    workspace = makeWorkspace();
    await workspace.write(LONG_NAME, '');
    // The worker's source is bundled on first use when running from source: not part of a limit.
    await runTool(globTool, { pattern: '*.none' }, makeContext(workspace));
  });
  afterEach(() => workspace.cleanup());

  it('stops a pattern that backtracks at its limit with an error naming the directory, while timers keep firing', async () => {
    const tool = defineGlobTool(600);
    const {
      outcome: run,
      ticks,
      ms,
    } = await whileTicking(() =>
      runTool(tool, { pattern: EXPLOSIVE_PATTERN }, makeContext(workspace)),
    );
    expect(ms).toBeLessThan(3_000);
    expect(ticks).toBeGreaterThanOrEqual(10);
    expect(run.block.is_error).toBe(true);
    expect(run.text).toBe(
      `Glob was stopped after 0.6 s, while it was matching the names in ${workspace.root}. No files are listed: the listing ends only when every name has been matched. A pattern with many stars, like *a*a*a*a*a*a*b, is matched by a backtracking engine that takes exponential time on long names; a very large tree also takes long. Use fewer wildcards (e.g. *a*b), or pass a narrower path.`,
    );
    expect((run.data as GlobOutput).filenames).toEqual([]);
  });

  it('names the subdirectory whose names were being matched', async () => {
    await workspace.write(`deep/${LONG_NAME}`, '');
    const run = await runTool(
      defineGlobTool(600),
      { pattern: `*/${EXPLOSIVE_PATTERN}` },
      makeContext(workspace),
    );
    expect(run.text).toContain(`while it was matching the names in ${workspace.path('deep')}.`);
  });

  it('rejects with the abort reason soon after an abort in the middle of a match', async () => {
    const controller = new AbortController();
    const context = makeContext(workspace, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('run cancelled')), 300);
    const { outcome, ticks, ms } = await whileTicking(() =>
      runTool(defineGlobTool(60_000), { pattern: EXPLOSIVE_PATTERN }, context).then(
        () => 'resolved',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
    );
    expect(outcome).toBe('run cancelled');
    expect(ms).toBeLessThan(3_000);
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('lists files as before after a stopped listing (the stopped worker is not reused)', async () => {
    await runTool(defineGlobTool(300), { pattern: EXPLOSIVE_PATTERN }, makeContext(workspace));
    const found = await workspace.write('src/index.ts', '');
    const run = await runTool(globTool, { pattern: '**/*.ts' }, makeContext(workspace));
    expect(run.block.is_error).toBeFalsy();
    expect(run.text).toBe(found);
  });

  it('lists the long name for a pattern with few stars, within the limit', async () => {
    const run = await runTool(
      defineGlobTool(10_000),
      { pattern: '*a*a*a' },
      makeContext(workspace),
    );
    expect(run.block.is_error).toBeFalsy();
    expect(run.text).toBe(workspace.path(LONG_NAME));
  });
});
