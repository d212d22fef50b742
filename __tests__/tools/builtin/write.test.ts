import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { editTool } from '../../../src/tools/builtin/edit.js';
import { readTool } from '../../../src/tools/builtin/read.js';
import { writeTool } from '../../../src/tools/builtin/write.js';
import type { ToolContext } from '../../../src/tools/tool.js';

/** Moves the mtime well away from the recorded one, as a later change on disk would. */
async function bumpMtime(path: string): Promise<void> {
  const later = new Date((await stat(path)).mtimeMs + 10_000);
  await utimes(path, later, later);
}

describe('writeTool', () => {
  let workspace: Workspace;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    context = makeContext(workspace);
  });
  afterEach(() => workspace.cleanup());

  const read = (path: string, extra: object = {}) =>
    runTool(readTool, { file_path: path, ...extra }, context);

  it('declares itself neither read-only nor safe to run in parallel', () => {
    const input = { file_path: '/x', content: '' };
    expect(writeTool.isReadOnly(input)).toBe(false);
    expect(writeTool.isConcurrencySafe(input)).toBe(false);
  });

  it('asks for edit access to the absolute path', () => {
    expect(writeTool.checkPermissions({ file_path: 'a/b.txt', content: '' }, context)).toEqual({
      access: 'edit',
      ruleContent: workspace.path('a/b.txt'),
      paths: [workspace.path('a/b.txt')],
    });
  });

  describe('when the file is new', () => {
    it('creates it with its parent directories, without a prior read', async () => {
      const path = workspace.path('sub/dir/new.txt');
      const run = await runTool(writeTool, { file_path: path, content: 'new file\n' }, context);
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe(`File created successfully at: ${path}`);
      expect(await readFile(path, 'utf8')).toBe('new file\n');
      expect(run.data).toEqual({
        type: 'create',
        filePath: path,
        content: 'new file\n',
        structuredPatch: [],
        originalFile: null,
        userModified: false,
      });
    });

    it('records the written content so that the file can be edited without reading it', async () => {
      const path = workspace.path('new.txt');
      await runTool(writeTool, { file_path: path, content: 'a\nb\n' }, context);
      expect(context.fileState.isFullyRead(path)).toBe(true);
      expect(context.fileState.get(path)?.mtimeMs).toBe((await stat(path)).mtimeMs);
      const edit = await runTool(
        editTool,
        { file_path: path, old_string: 'b', new_string: 'c' },
        context,
      );
      expect(edit.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('a\nc\n');
    });
  });

  describe('when the file exists', () => {
    it('refuses to overwrite it before it was read', async () => {
      const path = await workspace.write('a.txt', 'hello\n');
      const run = await runTool(writeTool, { file_path: path, content: 'bye\n' }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
      );
      expect(await readFile(path, 'utf8')).toBe('hello\n');
    });

    it('refuses to overwrite it after a partial read', async () => {
      const path = await workspace.write('a.txt', 'one\ntwo\nthree\n');
      await read(path, { offset: 1, limit: 2 });
      const run = await runTool(writeTool, { file_path: path, content: 'x' }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('File has only been read in part.');
      expect(await readFile(path, 'utf8')).toBe('one\ntwo\nthree\n');
    });

    it('refuses to overwrite it when it changed on disk after the read', async () => {
      const path = await workspace.write('a.txt', 'hello\n');
      await read(path);
      await writeFile(path, 'changed by someone\n');
      await bumpMtime(path);
      const run = await runTool(writeTool, { file_path: path, content: 'bye\n' }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>',
      );
      expect(await readFile(path, 'utf8')).toBe('changed by someone\n');
    });

    it('overwrites it when only its mtime moved', async () => {
      const path = await workspace.write('a.txt', 'hello\n');
      await read(path);
      await bumpMtime(path);
      const run = await runTool(writeTool, { file_path: path, content: 'bye\n' }, context);
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('bye\n');
    });

    it('overwrites it after a full read and reports the change as a patch', async () => {
      const path = await workspace.write('a.txt', 'one\ntwo\nthree\n');
      await read(path);
      const run = await runTool(
        writeTool,
        { file_path: path, content: 'one\nTWO\nthree\n' },
        context,
      );
      expect(run.text).toBe(`The file ${path} has been updated successfully.`);
      expect(run.data).toEqual({
        type: 'update',
        filePath: path,
        content: 'one\nTWO\nthree\n',
        structuredPatch: [
          {
            oldStart: 1,
            oldLines: 3,
            newStart: 1,
            newLines: 3,
            lines: [' one', '-two', '+TWO', ' three'],
          },
        ],
        originalFile: 'one\ntwo\nthree\n',
        userModified: false,
      });
      expect(context.fileState.get(path)?.content).toBe('one\nTWO\nthree\n');
    });

    it('writes the content verbatim, without converting line endings', async () => {
      const path = await workspace.write('win.txt', 'a\r\nb\r\n');
      await read(path);
      await runTool(writeTool, { file_path: path, content: 'x\ny\n' }, context);
      expect(await readFile(path, 'utf8')).toBe('x\ny\n');
    });

    it('keeps the byte-order mark of a UTF-8 file with one', async () => {
      const path = await workspace.write('bom.txt', Buffer.from('\uFEFFold\n', 'utf8'));
      await read(path);
      await runTool(writeTool, { file_path: path, content: 'new\n' }, context);
      expect(await readFile(path)).toEqual(Buffer.from('\uFEFFnew\n', 'utf8'));
      expect(context.fileState.get(path)?.content).toBe('\uFEFFnew\n');
    });

    it('keeps the UTF-16 encoding of a UTF-16 file', async () => {
      const path = await workspace.write('wide.txt', Buffer.from('\uFEFFold\n', 'utf16le'));
      await read(path);
      await runTool(writeTool, { file_path: path, content: 'né\n' }, context);
      expect(await readFile(path)).toEqual(Buffer.from('\uFEFFné\n', 'utf16le'));
    });
  });

  describe('when the path cannot hold a file', () => {
    it('refuses a directory', async () => {
      await workspace.write('dir/x.txt', 'x');
      const run = await runTool(
        writeTool,
        { file_path: workspace.path('dir'), content: 'x' },
        context,
      );
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('is a directory');
    });

    it('refuses a path below a regular file', async () => {
      await workspace.write('plain.txt', 'x');
      const path = workspace.path('plain.txt/child.txt');
      const run = await runTool(writeTool, { file_path: path, content: 'x' }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('a parent of it is a file');
    });
  });

  describe('when the file changes between validation and the call', () => {
    it('throws instead of overwriting the change', async () => {
      const path = await workspace.write('a.txt', 'hello\n');
      await read(path);
      const input = { file_path: path, content: 'bye\n' };
      expect(await writeTool.validateInput(input, context)).toEqual({ result: true });
      await writeFile(path, 'hook output\n');
      await bumpMtime(path);
      await expect(writeTool.call(input, context).next()).rejects.toThrow(
        'File has been modified since read',
      );
      expect(await readFile(path, 'utf8')).toBe('hook output\n');
    });
  });
});
