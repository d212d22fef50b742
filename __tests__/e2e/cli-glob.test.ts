/**
 * The built CLI's Glob: the listing runs in the search worker bundled into dist/ as a string, so
 * ordinary patterns list files, and one that backtracks neither holds the run past the 10 s search
 * limit nor keeps SIGTERM from being honoured.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../helpers/cli-harness.js';
import { resultBlocksSent, runCli } from '../helpers/cli-harness.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const LONG_NAME = 'a'.repeat(80);
const EXPLOSIVE_PATTERN = '*a*a*a*a*a*a*a*a*a*b';

const runs: CliRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
});

describe('Glob in the built CLI', () => {
  it('lists files for an ordinary pattern and stops one that backtracks at the 10 s limit', async () => {
    const started = performance.now();
    const run = await runCli(['-p', 'find', ...STREAM], {
      files: { 'src/a.py': '', [LONG_NAME]: '' },
      turns: [
        [
          { type: 'tool_use', id: 'toolu_01', name: 'Glob', input: { pattern: '**/*.py' } },
          { type: 'tool_use', id: 'toolu_02', name: 'Glob', input: { pattern: EXPLOSIVE_PATTERN } },
        ],
        [{ type: 'text', text: 'done' }],
      ],
    });
    runs.push(run);
    expect(run.code).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    const sent = resultBlocksSent(run);
    expect(sent.get('toolu_01')).toMatchObject({ content: `${run.workspace.root}/src/a.py` });
    expect(sent.get('toolu_01')?.is_error).toBeFalsy();
    expect(sent.get('toolu_02')).toMatchObject({ is_error: true });
    expect(sent.get('toolu_02')?.content).toContain(
      `Glob was stopped after 10 s, while it was matching the names in ${run.workspace.root}.`,
    );
  });

  it('honours SIGTERM in the middle of a match', async () => {
    let signalled = 0;
    const run = await runCli(['-p', 'find', ...STREAM], {
      files: { [LONG_NAME]: '' },
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Glob', input: { pattern: EXPLOSIVE_PATTERN } }],
      ],
      onSpawn: (child) => {
        let stdout = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          // The assistant message is printed before its tool calls run.
          if (signalled === 0 && stdout.includes('"name":"Glob"')) {
            signalled = performance.now();
            setTimeout(() => child.kill('SIGTERM'), 500);
          }
        });
      },
    });
    runs.push(run);
    expect(signalled).toBeGreaterThan(0);
    expect(run.code).toBe(143);
    // The limit is 10 s: an exit well before it means the signal was honoured mid-match.
    expect(performance.now() - signalled).toBeLessThan(5_000);
    expect(run.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution' });
  });
});
