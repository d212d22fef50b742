/**
 * A long working session for the cost benchmark (cost.ts): what an agent fixing a repository
 * does turn after turn, in results of the sizes such work returns, over more turns than the
 * context window holds, so that a client that keeps the whole conversation has to compact.
 *
 * The repository: `FILES` source files of `LINES` lines (about 11 kB, 3k tokens each) and a test
 * report of about 6 kB. Per cycle of five turns, on file k (k = cycle mod FILES):
 *   1. Read file k and `grep -rl TODO src` (one message, two calls);
 *   2. Edit a line of file k;
 *   3. Bash `cat test-report.txt` (the test run's output);
 *   4. Read file k + 1 (which the next cycle reads again, unchanged);
 *   5. Bash `ls src`.
 * Forty cycles are 200 turns and about 350k tokens of results: past the 200k window.
 * Bash commands are read-only, so that Claude Code runs them in acceptEdits mode as ci-agent does.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReplayBlock } from '../testkit/replay-server.js';

export const WORKING_FILES = 16;
const LINES = 250;

/** The repository's files, written into `root`. */
export async function writeWorkingFiles(root: string): Promise<void> {
  await mkdir(join(root, 'src'));
  for (let file = 0; file < WORKING_FILES; file++) {
    const lines = Array.from({ length: LINES }, (_, line) =>
      line % 25 === 7
        ? `  // TODO(m${file}): check the bound at line ${line} before the loop`
        : `  const v${line} = compute(${file}, ${line}, options.limit); // step ${line}`,
    );
    await writeFile(join(root, 'src', `m${file}.js`), `${lines.join('\n')}\n`);
  }
  const report = Array.from(
    { length: 60 },
    (_, index) =>
      `${index % 9 === 4 ? 'FAIL' : 'ok  '} test/m${index % WORKING_FILES}.test.js > case ${index} (${index * 3} ms)`,
  );
  await writeFile(join(root, 'test-report.txt'), `${report.join('\n')}\n`);
}

/** The marker each edit of cycle `cycle` writes, and the line it replaces. */
function editOf(cycle: number): { file: number; old: string; new: string } {
  const file = cycle % WORKING_FILES;
  const line = 10 + Math.floor(cycle / WORKING_FILES) * 20;
  const old = `  const v${line} = compute(${file}, ${line}, options.limit); // step ${line}`;
  return { file, old, new: old.replace('options.limit', `bounded(options.limit, ${cycle})`) };
}

/** The scripted turns of `cycles` cycles (five turns each), the last one ending the run. */
export function workingScript(root: string, cycles: number): ReplayBlock[][] {
  const src = (file: number) => join(root, 'src', `m${file % WORKING_FILES}.js`);
  const turns: ReplayBlock[][] = [];
  for (let cycle = 0; cycle < cycles; cycle++) {
    const edit = editOf(cycle);
    const id = (name: string) => `toolu_${name}${cycle}`;
    turns.push(
      [
        { type: 'text', text: `Looking at m${edit.file}.js.` },
        { type: 'tool_use', id: id('r'), name: 'Read', input: { file_path: src(edit.file) } },
        {
          type: 'tool_use',
          id: id('g'),
          name: 'Bash',
          input: { command: 'grep -rl TODO src', description: 'Find the TODOs' },
        },
      ],
      [
        {
          type: 'tool_use',
          id: id('e'),
          name: 'Edit',
          input: { file_path: src(edit.file), old_string: edit.old, new_string: edit.new },
        },
      ],
      [
        {
          type: 'tool_use',
          id: id('t'),
          name: 'Bash',
          input: { command: 'cat test-report.txt', description: 'Show the test report' },
        },
      ],
      [{ type: 'tool_use', id: id('n'), name: 'Read', input: { file_path: src(edit.file + 1) } }],
      cycle === cycles - 1
        ? [{ type: 'text', text: 'All fixes are in.' }]
        : [
            {
              type: 'tool_use',
              id: id('l'),
              name: 'Bash',
              input: { command: 'ls src', description: 'List the sources' },
            },
          ],
    );
  }
  return turns;
}

/** How many of the script's edits are on disk. */
export async function countWorkingEdits(root: string, cycles: number): Promise<number> {
  let done = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    const edit = editOf(cycle);
    const text = await readFile(join(root, 'src', `m${edit.file}.js`), 'utf8');
    if (text.includes(edit.new)) done++;
  }
  return done;
}
