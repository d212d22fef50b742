import { execa } from 'execa';
import { closeSync, openSync, writeSync } from 'node:fs';
import { symlink, utimes } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { readTool } from '../../../src/tools/builtin/read.js';
import type { ReadOutput } from '../../../src/tools/builtin/read.js';
import type { ToolContext } from '../../../src/tools/tool.js';

// A valid 1×1 PNG.
const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

function numberedFile(lines: number): string {
  return Array.from({ length: lines }, (_, index) => `line ${index + 1}\n`).join('');
}

const largeFileLine = (index: number) => `line ${index} of a large generated file`;

/** Writes about `bytes` bytes of numbered lines; returns Read's line count (the empty last one). */
function writeLargeFile(path: string, bytes: number): number {
  const perBlock = 10_000;
  const descriptor = openSync(path, 'w');
  let lines = 0;
  for (let written = 0; written < bytes;) {
    const block = Array.from(
      { length: perBlock },
      (_, index) => `${largeFileLine(lines + index)}\n`,
    );
    written += writeSync(descriptor, block.join(''));
    lines += perBlock;
  }
  closeSync(descriptor);
  return lines + 1;
}

/** Peak memory is per process: one Read in a fresh child (bench/read-peak-child.ts). */
async function readInChildProcess(path: string, offset: number, limit: number) {
  const child = fileURLToPath(new URL('../../../bench/read-peak-child.ts', import.meta.url));
  const src = fileURLToPath(new URL('../../../src', import.meta.url));
  const { stdout } = await execa(process.execPath, [
    '--import',
    'tsx',
    child,
    src,
    path,
    `${offset}`,
    `${limit}`,
  ]);
  return JSON.parse(stdout) as { baselineRss: number; peakRss: number; text: string };
}

describe('readTool', () => {
  let workspace: Workspace;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    context = makeContext(workspace);
  });
  afterEach(() => workspace.cleanup());

  it('numbers every line with a tab and no padding, including the empty last line', async () => {
    const path = await workspace.write('a.txt', 'alpha\nbeta\n\tgamma\n');
    const run = await runTool(readTool, { file_path: path }, context);
    expect(run.block.is_error).toBeFalsy();
    expect(run.text).toBe('1\talpha\n2\tbeta\n3\t\tgamma\n4\t');
  });

  it('returns the structured result PostToolUse hooks receive', async () => {
    const path = await workspace.write('a.txt', 'payload\n');
    const run = await runTool(readTool, { file_path: path }, context);
    expect(run.data).toEqual({
      type: 'text',
      file: { filePath: path, content: 'payload\n', numLines: 2, startLine: 1, totalLines: 2 },
    });
  });

  it('resolves a relative path against the project directory', async () => {
    await workspace.write('sub/b.txt', 'hello');
    const run = await runTool(readTool, { file_path: 'sub/b.txt' }, context);
    expect(run.text).toBe('1\thello');
    expect((run.data as ReadOutput & { type: 'text' }).file.filePath).toBe(
      workspace.path('sub/b.txt'),
    );
  });

  it('records the whole file and the lines shown in the file state', async () => {
    const path = await workspace.write('a.txt', 'one\r\ntwo\r\n');
    await runTool(readTool, { file_path: path }, context);
    const record = context.fileState.get(path);
    expect(record?.content).toBe('one\r\ntwo\r\n');
    expect(record?.ranges).toEqual([[1, 3]]);
    expect(context.fileState.isFullyRead(path)).toBe(true);
  });

  it('declares itself read-only and safe to run in parallel', () => {
    expect(readTool.isReadOnly({ file_path: '/x' })).toBe(true);
    expect(readTool.isConcurrencySafe({ file_path: '/x' })).toBe(true);
  });

  it('asks for read access to the absolute path and to a symlink target', async () => {
    const target = await workspace.write('real.txt', 'x');
    await symlink(target, workspace.path('link.txt'));
    expect(readTool.checkPermissions({ file_path: 'real.txt' }, context)).toEqual({
      access: 'read',
      ruleContent: target,
      paths: [target],
    });
    expect(readTool.checkPermissions({ file_path: workspace.path('link.txt') }, context)).toEqual({
      access: 'read',
      ruleContent: workspace.path('link.txt'),
      paths: [workspace.path('link.txt'), target],
    });
  });

  it('rejects a negative offset, a zero limit and unknown keys', async () => {
    const path = await workspace.write('a.txt', 'x');
    for (const input of [
      { file_path: path, offset: -1 },
      { file_path: path, limit: 0 },
      { file_path: path, pages: '1-2' },
    ]) {
      const run = await runTool(readTool, input, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('InputValidationError');
    }
  });

  describe('when offset and limit are given', () => {
    it('shows exactly that window, without a note', async () => {
      const path = await workspace.write('big.txt', numberedFile(50));
      const run = await runTool(readTool, { file_path: path, offset: 10, limit: 5 }, context);
      expect(run.text).toBe('10\tline 10\n11\tline 11\n12\tline 12\n13\tline 13\n14\tline 14');
      expect(context.fileState.hasSeenLines(path, 10, 14)).toBe(true);
      expect(context.fileState.hasSeenLines(path, 9, 14)).toBe(false);
      expect(context.fileState.isFullyRead(path)).toBe(false);
    });

    it('reads to the end from an offset alone', async () => {
      const path = await workspace.write('a.txt', 'a\nb\nc');
      const run = await runTool(readTool, { file_path: path, offset: 2 }, context);
      expect(run.text).toBe('2\tb\n3\tc');
    });

    it('treats offset 0 as the first line', async () => {
      const path = await workspace.write('a.txt', 'a\nb');
      const run = await runTool(readTool, { file_path: path, offset: 0, limit: 1 }, context);
      expect(run.text).toBe('1\ta');
    });
  });

  describe('when the offset is past the end', () => {
    it('warns without an error and records nothing as seen', async () => {
      const path = await workspace.write('a.txt', 'a\nb\nc');
      const run = await runTool(readTool, { file_path: path, offset: 10 }, context);
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe(
        '<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 3 lines.</system-reminder>',
      );
      expect(context.fileState.get(path)).toBeUndefined();
    });
  });

  describe('when the file has more than 2000 lines', () => {
    it('shows the first 2000 and says how to read on', async () => {
      const path = await workspace.write('long.txt', numberedFile(2500));
      const run = await runTool(readTool, { file_path: path }, context);
      const [body, note] = run.text.split('\n\n');
      expect(body?.split('\n')).toHaveLength(2000);
      expect(body?.endsWith('2000\tline 2000')).toBe(true);
      expect(note).toBe(
        '(Showing lines 1-2000 of 2501. To read on, call Read again with offset 2001.)',
      );
      expect(context.fileState.isFullyRead(path)).toBe(false);
    });

    it('counts the file as fully read once every window was read', async () => {
      const path = await workspace.write('long.txt', numberedFile(2500));
      await runTool(readTool, { file_path: path }, context);
      const rest = await runTool(readTool, { file_path: path, offset: 2001 }, context);
      expect(rest.text.startsWith('2001\tline 2001\n')).toBe(true);
      expect(rest.text.endsWith('2500\tline 2500\n2501\t')).toBe(true);
      expect(context.fileState.isFullyRead(path)).toBe(true);
    });
  });

  describe('when a line is longer than 2000 characters', () => {
    it('cuts it in the view, says so, and keeps it whole in the structured result', async () => {
      const long = 'x'.repeat(2500);
      const path = await workspace.write('wide.txt', `short\n${long}\n`);
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.text).toBe(
        `1\tshort\n2\t${'x'.repeat(2000)}… [line cut at 2000 of 2500 characters]\n3\t`,
      );
      expect((run.data as ReadOutput & { type: 'text' }).file.content).toBe(`short\n${long}\n`);
    });
  });

  describe('when the file is empty', () => {
    it('warns in a system reminder, is not an error, and counts as fully read', async () => {
      const path = await workspace.write('empty.txt', '');
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe(
        '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>',
      );
      expect(context.fileState.isFullyRead(path)).toBe(true);
    });
  });

  describe('when the file does not exist', () => {
    it('fails with the working directory in the message', async () => {
      const run = await runTool(readTool, { file_path: workspace.path('nope.txt') }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        `<tool_use_error>File does not exist. Note: your current working directory is ${workspace.root}.</tool_use_error>`,
      );
    });

    it('suggests a file whose name differs only in case', async () => {
      await workspace.write('README.md', 'x');
      const run = await runTool(readTool, { file_path: workspace.path('readme.md') }, context);
      expect(run.text).toContain(`Did you mean ${workspace.path('README.md')}?`);
    });

    it('suggests a file whose name differs only in extension', async () => {
      await workspace.write('src/main.ts', 'x');
      const run = await runTool(readTool, { file_path: workspace.path('src/main.js') }, context);
      expect(run.text).toContain(`Did you mean ${workspace.path('src/main.ts')}?`);
    });

    it('treats a path through a regular file as missing', async () => {
      await workspace.write('plain.txt', 'x');
      const run = await runTool(readTool, { file_path: workspace.path('plain.txt/x') }, context);
      expect(run.text).toContain('File does not exist.');
    });
  });

  describe('when the path is a directory', () => {
    it('fails and points to ls and Glob', async () => {
      await workspace.write('dir/file.txt', 'x');
      const run = await runTool(readTool, { file_path: workspace.path('dir') }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('is a directory');
      expect(run.text).toContain('ls');
      expect(run.text).toContain('Glob');
    });
  });

  describe('when the file is binary', () => {
    it('refuses a file with NUL bytes in its head', async () => {
      const path = await workspace.write('data.dat', Buffer.from([0x41, 0x00, 0x42]));
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('is a binary file');
    });

    it('refuses a file with a binary extension whatever its bytes', async () => {
      const path = await workspace.write('archive.zip', 'looks like text');
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('is a binary file');
    });
  });

  describe('when the file is larger than 256 KiB', () => {
    const size = 300 * 1024;

    it('refuses a whole-file read and asks for offset and limit', async () => {
      const path = await workspace.write('huge.txt', 'a'.repeat(size));
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>File content (300 KiB) exceeds maximum allowed size (256 KiB). Read it in parts with offset and limit, or search it for what you need with Grep.</tool_use_error>',
      );
    });

    it('reads a window of it', async () => {
      const path = await workspace.write('huge.txt', `first\n${'a'.repeat(size)}`);
      const run = await runTool(readTool, { file_path: path, limit: 1 }, context);
      expect(run.text).toBe('1\tfirst');
    });

    it('cuts a huge line as it reads it and gives its full length', async () => {
      const path = await workspace.write('one-line.txt', `${'é'.repeat(size)}\nnext\n`);
      const run = await runTool(readTool, { file_path: path, limit: 2 }, context);
      expect(run.text).toBe(
        `1\t${'é'.repeat(2000)}… [line cut at 2000 of ${size} characters]\n2\tnext`,
      );
      expect(run.data).toMatchObject({
        file: { numLines: 2, totalLines: 3, cutLines: [{ line: 1, length: size }] },
      });
    });

    it('streams one line of a 48 MB file within a few MiB of memory', async () => {
      const path = workspace.path('big.txt');
      const lineCount = writeLargeFile(path, 48 * 1024 * 1024);
      const { baselineRss, peakRss, text } = await readInChildProcess(path, 3, 1);
      expect(text).toBe(`3\t${largeFileLine(2)}`);
      // Loading the file whole costs about three times its size (bytes, string, lines).
      expect(peakRss - baselineRss).toBeLessThan(32 * 1024 * 1024);
      const tail = await runTool(readTool, { file_path: path, offset: lineCount }, context);
      expect(tail.text).toBe(`${lineCount}\t`);
      expect(context.fileState.get(path)).toMatchObject({
        content: undefined,
        ranges: [[lineCount, lineCount]],
        totalLines: lineCount,
      });
    });
  });

  describe('when the file has CRLF line endings or a byte-order mark', () => {
    it('shows the text without carriage returns', async () => {
      const path = await workspace.write('win.txt', 'a\r\nb\r\n');
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.text).toBe('1\ta\n2\tb\n3\t');
    });

    it('strips a UTF-8 byte-order mark from the view', async () => {
      const path = await workspace.write('bom.txt', Buffer.from('\uFEFFhello\n', 'utf8'));
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.text).toBe('1\thello\n2\t');
    });

    it('decodes UTF-16 text with a byte-order mark instead of refusing it as binary', async () => {
      const path = await workspace.write('wide.txt', Buffer.from('\uFEFFhé\n', 'utf16le'));
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.text).toBe('1\thé\n2\t');
    });
  });

  describe('when the file is an image', () => {
    it('returns one image block with the base64 data and media type', async () => {
      const path = await workspace.write('dot.png', PNG_BYTES);
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.block.is_error).toBeFalsy();
      expect(run.block.content).toEqual([
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: PNG_BYTES.toString('base64') },
        },
      ]);
      expect(run.data).toEqual({
        type: 'image',
        file: {
          base64: PNG_BYTES.toString('base64'),
          type: 'image/png',
          originalSize: PNG_BYTES.length,
        },
      });
    });

    it('takes the media type from the bytes when the extension is wrong', async () => {
      const path = await workspace.write('dot.jpg', PNG_BYTES);
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.data).toMatchObject({ type: 'image', file: { type: 'image/png' } });
    });

    it('falls back to the extension when the bytes are not recognised', async () => {
      const path = await workspace.write('odd.gif', 'not really a gif');
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.data).toMatchObject({ type: 'image', file: { type: 'image/gif' } });
    });

    it('refuses an image over 5 MiB', async () => {
      const path = await workspace.write('big.png', Buffer.alloc(5 * 1024 * 1024 + 1));
      const run = await runTool(readTool, { file_path: path }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('Image is too large to read');
    });
  });

  describe('when the file changed since an earlier read', () => {
    it('starts the seen ranges over for the new content', async () => {
      const path = await workspace.write('a.txt', numberedFile(10));
      await runTool(readTool, { file_path: path, offset: 1, limit: 5 }, context);
      await workspace.write('a.txt', numberedFile(12));
      await utimes(path, new Date(), new Date(Date.now() + 5000));
      await runTool(readTool, { file_path: path, offset: 6, limit: 3 }, context);
      expect(context.fileState.get(path)?.ranges).toEqual([[6, 8]]);
    });
  });
});
