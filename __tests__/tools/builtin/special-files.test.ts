/**
 * FIFOs and devices where the file tools expect a file: what a steered agent's own command can
 * put in the workspace (`mkfifo` needs no privilege) or name outright. The tools run in the
 * controller, and a FIFO opened the plain way blocks until someone writes to it (a libuv thread
 * held for good; four of them and every file operation of the run waits), a device never ends.
 * Each call must come back at once with an error that says what the path is; every test has a
 * deadline well under vitest's, and the last one shows the plain open hanging on the same FIFO.
 */
import { execa } from 'execa';
import { open } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { editTool } from '../../../src/tools/builtin/edit.js';
import { globTool } from '../../../src/tools/builtin/glob.js';
import { grepTool } from '../../../src/tools/builtin/grep.js';
import { readTool } from '../../../src/tools/builtin/read.js';
import { writeTool } from '../../../src/tools/builtin/write.js';
import { readTextFile } from '../../../src/tools/builtin/file/text-file.js';
import { NotARegularFile, readRegularFile } from '../../../src/util/regular-file.js';
import { FileStateCache } from '../../../src/tools/file-state.js';

let workspace: Workspace;
beforeEach(async () => {
  workspace = makeWorkspace('ci-agent-special-');
  await workspace.write('a.txt', 'needle\n');
  await execa('mkfifo', [workspace.path('pipe.txt')]);
});
afterEach(() => workspace.cleanup());

/** The promise, or a rejection naming what hung after `ms`. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} hung for ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('a FIFO or a device where a file tool expects a file', () => {
  it('Read refuses a FIFO at once, saying what it is', async () => {
    const run = await within(
      2000,
      'Read',
      runTool(readTool, { file_path: workspace.path('pipe.txt') }, makeContext(workspace)),
    );
    expect(run.block.is_error).toBe(true);
    expect(run.text).toContain('is a named pipe (FIFO), not a regular file');
  });

  it('Read refuses a character device that never ends (/dev/zero)', async () => {
    const run = await within(
      2000,
      'Read',
      runTool(readTool, { file_path: '/dev/zero' }, makeContext(workspace)),
    );
    expect(run.block.is_error).toBe(true);
    expect(run.text).toContain('is a character device, not a regular file');
  });

  it('Edit and Write (over a file read before) refuse the FIFO put in its place', async () => {
    const context = makeContext(workspace);
    const path = workspace.path('a.txt');
    await runTool(readTool, { file_path: path }, context);
    await execa('sh', ['-c', `rm "${path}" && mkfifo "${path}"`]);
    const edit = await within(
      2000,
      'Edit',
      runTool(editTool, { file_path: path, old_string: 'needle', new_string: 'pin' }, context),
    );
    expect(edit.block.is_error).toBe(true);
    const write = await within(
      2000,
      'Write',
      runTool(writeTool, { file_path: path, content: 'x\n' }, context),
    );
    expect(write.block.is_error).toBe(true);
  });

  it('Grep refuses a FIFO it is pointed at, and a folder search passes one by', async () => {
    const context = makeContext(workspace);
    const pointed = await within(
      2000,
      'Grep',
      runTool(grepTool, { pattern: 'needle', path: workspace.path('pipe.txt') }, context),
    );
    expect(pointed.block.is_error).toBe(true);
    expect(pointed.text).toContain('is a named pipe (FIFO)');
    const folder = await within(
      5000,
      'Grep',
      runTool(grepTool, { pattern: 'needle', output_mode: 'files_with_matches' }, context),
    );
    expect(folder.text).toContain('a.txt');
  });

  it('a FIFO named .gitignore holds no search (Glob and Grep read ignore files)', async () => {
    await execa('mkfifo', [workspace.path('.gitignore')]);
    const context = makeContext(workspace);
    const glob = await within(5000, 'Glob', runTool(globTool, { pattern: '*.txt' }, context));
    expect(glob.text).toContain('a.txt');
    const grep = await within(
      5000,
      'Grep',
      runTool(grepTool, { pattern: 'needle', output_mode: 'files_with_matches' }, context),
    );
    expect(grep.text).toContain('a.txt');
  });

  it('the readers refuse on the open descriptor: a FIFO swapped in after a check', async () => {
    const fifo = workspace.path('pipe.txt');
    await expect(within(2000, 'readRegularFile', readRegularFile(fifo))).rejects.toBeInstanceOf(
      NotARegularFile,
    );
    await expect(within(2000, 'readTextFile', readTextFile(fifo))).rejects.toThrow(
      'not a regular file',
    );
    const cache = new FileStateCache();
    cache.recordWrite(fifo, 'old', 0);
    await within(2000, 'refresh', cache.refresh(fifo));
    expect(cache.get(fifo)).toBeUndefined();
    // What the plain open does with the same FIFO: it waits for a writer (here, for good).
    const plain = open(fifo, 'r');
    await expect(within(300, 'the plain open', plain)).rejects.toThrow('hung');
    // A writer lets it go, so that no libuv thread stays held after the test.
    const writer = await open(fifo, 'w');
    await (await plain).close();
    await writer.close();
  });
});
