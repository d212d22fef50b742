import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { editTool } from '../../../src/tools/builtin/edit.js';
import type { EditOutput } from '../../../src/tools/builtin/edit.js';
import { readTool } from '../../../src/tools/builtin/read.js';
import type { ToolContext } from '../../../src/tools/tool.js';

async function bumpMtime(path: string): Promise<void> {
  const later = new Date((await stat(path)).mtimeMs + 10_000);
  await utimes(path, later, later);
}

function numberedFile(lines: number): string {
  return Array.from({ length: lines }, (_, index) => `line ${index + 1}\n`).join('');
}

describe('editTool', () => {
  let workspace: Workspace;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    context = makeContext(workspace);
  });
  afterEach(() => workspace.cleanup());

  const read = (path: string, extra: object = {}) =>
    runTool(readTool, { file_path: path, ...extra }, context);
  const edit = (path: string, oldString: string, newString: string, replaceAll?: boolean) =>
    runTool(
      editTool,
      {
        file_path: path,
        old_string: oldString,
        new_string: newString,
        ...(replaceAll === undefined ? {} : { replace_all: replaceAll }),
      },
      context,
    );
  /** Writes a file and reads it whole, as a model would before editing. */
  const seeded = async (name: string, content: string | Buffer) => {
    const path = await workspace.write(name, content);
    await read(path);
    return path;
  };

  it('declares itself neither read-only nor safe to run in parallel', () => {
    const input = { file_path: '/x', old_string: 'a', new_string: 'b', replace_all: false };
    expect(editTool.isReadOnly(input)).toBe(false);
    expect(editTool.isConcurrencySafe(input)).toBe(false);
  });

  it('asks for edit access to the absolute path', () => {
    const input = { file_path: 'a.txt', old_string: 'a', new_string: 'b', replace_all: false };
    expect(editTool.checkPermissions(input, context)).toEqual({
      access: 'edit',
      ruleContent: workspace.path('a.txt'),
      paths: [workspace.path('a.txt')],
    });
  });

  describe('when the string occurs once', () => {
    it('replaces it, reports success and returns the structured result', async () => {
      const path = await seeded('a.py', 'def f():\n    return 1\n');
      const run = await edit(path, 'return 1', 'return 2');
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe(`The file ${path} has been updated successfully.`);
      expect(await readFile(path, 'utf8')).toBe('def f():\n    return 2\n');
      expect(run.data).toEqual({
        filePath: path,
        oldString: 'return 1',
        newString: 'return 2',
        originalFile: 'def f():\n    return 1\n',
        structuredPatch: [
          {
            oldStart: 1,
            oldLines: 2,
            newStart: 1,
            newLines: 2,
            lines: [' def f():', '-    return 1', '+    return 2'],
          },
        ],
        userModified: false,
        replaceAll: false,
        occurrences: 1,
        created: false,
      } satisfies EditOutput);
    });

    it('records the new content so the next edit needs no new read', async () => {
      const path = await seeded('a.txt', 'a\nb\n');
      await edit(path, 'a', 'A');
      expect(context.fileState.get(path)?.content).toBe('A\nb\n');
      expect(context.fileState.get(path)?.mtimeMs).toBe((await stat(path)).mtimeMs);
      const second = await edit(path, 'b', 'B');
      expect(second.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('A\nB\n');
    });

    it('inserts the replacement literally, with no $ patterns', async () => {
      const path = await seeded('a.txt', 'price\n');
      await edit(path, 'price', "$& $1 $$ $' $`");
      expect(await readFile(path, 'utf8')).toBe("$& $1 $$ $' $`\n");
    });

    it('spans several lines', async () => {
      const path = await seeded('a.txt', 'a\nb\nc\n');
      await edit(path, 'a\nb', 'ab');
      expect(await readFile(path, 'utf8')).toBe('ab\nc\n');
    });
  });

  describe('when new_string is empty', () => {
    it('removes the newline after a deleted line', async () => {
      const path = await seeded('a.txt', 'keep\ndrop\nkeep too\n');
      await edit(path, 'drop', '');
      expect(await readFile(path, 'utf8')).toBe('keep\nkeep too\n');
    });

    it('leaves the rest of the line when the text is not followed by a newline', async () => {
      const path = await seeded('a.txt', 'one two three\n');
      await edit(path, ' two', '');
      expect(await readFile(path, 'utf8')).toBe('one three\n');
    });

    it('removes only one newline when old_string already ends with one', async () => {
      const path = await seeded('a.txt', 'a\nb\n\nc\n');
      await edit(path, 'b\n', '');
      expect(await readFile(path, 'utf8')).toBe('a\n\nc\n');
    });
  });

  describe('when the string occurs several times', () => {
    it('refuses without replace_all, with the count', async () => {
      const path = await seeded('a.txt', 'x = 1\nx = 1\n');
      const run = await edit(path, 'x = 1', 'x = 2');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: x = 1</tool_use_error>',
      );
      expect(await readFile(path, 'utf8')).toBe('x = 1\nx = 1\n');
    });

    it('replaces every occurrence with replace_all and says how many', async () => {
      const path = await seeded('a.txt', 'foo bar foo\nfoo\n');
      const run = await edit(path, 'foo', 'baz', true);
      expect(run.text).toBe(
        `The file ${path} has been updated successfully. Replaced 3 occurrences of old_string.`,
      );
      expect(await readFile(path, 'utf8')).toBe('baz bar baz\nbaz\n');
      expect(run.data).toMatchObject({ replaceAll: true, occurrences: 3 });
    });

    it('counts non-overlapping occurrences', async () => {
      const path = await seeded('a.txt', 'aaaa\n');
      const run = await edit(path, 'aa', 'b', true);
      expect(run.data).toMatchObject({ occurrences: 2 });
      expect(await readFile(path, 'utf8')).toBe('bb\n');
    });

    it('removes the newline after each deleted line with replace_all', async () => {
      const path = await seeded('a.txt', 'debug()\nwork()\ndebug()\n');
      await edit(path, 'debug()', '', true);
      expect(await readFile(path, 'utf8')).toBe('work()\n');
    });
  });

  describe('when the file uses CRLF line endings', () => {
    it('matches LF text and writes CRLF back everywhere', async () => {
      const path = await seeded('win.txt', 'one\r\ntwo\r\nthree\r\n');
      const run = await edit(path, 'one\ntwo', 'uno\ndos\nextra');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('uno\r\ndos\r\nextra\r\nthree\r\n');
      expect(context.fileState.get(path)?.content).toBe('uno\r\ndos\r\nextra\r\nthree\r\n');
    });

    it('reports the original file as it was, with CRLF', async () => {
      const path = await seeded('win.txt', 'a\r\nb\r\n');
      const run = await edit(path, 'a', 'A');
      expect(run.data).toMatchObject({ originalFile: 'a\r\nb\r\n' });
    });
  });

  describe('when the file has curly quotes and old_string straight ones', () => {
    it('matches through the quotes and keeps the file’s style in the replacement', async () => {
      const path = await seeded('q.md', 'She said “hello” and it’s fine.\n');
      const run = await edit(path, 'said "hello" and it\'s', 'said "goodbye" and it\'s');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('She said “goodbye” and it’s fine.\n');
    });

    it('prefers an exact match and then leaves straight quotes alone', async () => {
      const path = await seeded('q.txt', '“a” and "a"\n');
      await edit(path, '"a"', '"b"');
      expect(await readFile(path, 'utf8')).toBe('“a” and "b"\n');
    });

    it('turns single quotes into opening and closing curly ones by position', async () => {
      const path = await seeded('q.txt', 'x ‘old’ y\n');
      await edit(path, "'old'", "'new' isn't");
      expect(await readFile(path, 'utf8')).toBe('x ‘new’ isn’t y\n');
    });
  });

  describe('when the file was read only in part', () => {
    it('allows an edit inside the lines that were read', async () => {
      const path = await workspace.write('long.txt', numberedFile(100));
      await read(path, { offset: 40, limit: 20 });
      const run = await edit(path, 'line 45\nline 46\n', 'changed\n');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toContain('line 44\nchanged\nline 47\n');
    });

    it('refuses an edit whose lines were not read', async () => {
      const path = await workspace.write('long.txt', numberedFile(100));
      await read(path, { offset: 40, limit: 20 });
      const run = await edit(path, 'line 80\n', 'changed\n');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>The text to replace is on line 80, which you have not read yet. Read that part of the file (offset 80) before editing it.</tool_use_error>',
      );
    });

    it('refuses an edit that runs past the lines that were read', async () => {
      const path = await workspace.write('long.txt', numberedFile(100));
      await read(path, { offset: 40, limit: 20 });
      const run = await edit(path, 'line 59\nline 60', 'x');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('on lines 59-60');
    });

    it('refuses replace_all when one occurrence lies outside what was read', async () => {
      const path = await workspace.write('a.txt', 'x\ny\nx\n');
      await read(path, { limit: 2 });
      const run = await edit(path, 'x', 'z', true);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('line 3');
    });
  });

  describe('when the file changed since it was read', () => {
    it('refuses when the content changed', async () => {
      const path = await seeded('a.txt', 'hello\n');
      await writeFile(path, 'hello world\n');
      await bumpMtime(path);
      const run = await edit(path, 'hello', 'bye');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>',
      );
      expect(await readFile(path, 'utf8')).toBe('hello world\n');
    });

    it('allows the edit when only the mtime moved', async () => {
      const path = await seeded('a.txt', 'hello\n');
      await bumpMtime(path);
      const run = await edit(path, 'hello', 'bye');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('bye\n');
    });

    it('allows the edit after a new read', async () => {
      const path = await seeded('a.txt', 'hello\n');
      await writeFile(path, 'hello world\n');
      await bumpMtime(path);
      await read(path);
      const run = await edit(path, 'world', 'there');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('hello there\n');
    });

    it('throws from call when the change lands after validation', async () => {
      const path = await seeded('a.txt', 'hello\n');
      const input = { file_path: path, old_string: 'hello', new_string: 'bye', replace_all: false };
      expect(await editTool.validateInput(input, context)).toEqual({ result: true });
      await writeFile(path, 'formatted hello\n');
      await bumpMtime(path);
      await expect(editTool.call(input, context).next()).rejects.toThrow(
        'File has been modified since read',
      );
      expect(await readFile(path, 'utf8')).toBe('formatted hello\n');
    });
  });

  describe('when old_string is empty', () => {
    it('creates a missing file with its parent directories', async () => {
      const path = workspace.path('new/dir/file.txt');
      const run = await edit(path, '', 'fresh\n');
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe(`File created successfully at: ${path}`);
      expect(await readFile(path, 'utf8')).toBe('fresh\n');
      expect(run.data).toMatchObject({ originalFile: '', created: true, occurrences: 0 });
      expect(context.fileState.isFullyRead(path)).toBe(true);
    });

    it('fills an existing blank file without a prior read', async () => {
      const path = await workspace.write('blank.txt', '\n');
      const run = await edit(path, '', 'content\n');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path, 'utf8')).toBe('content\n');
    });

    it('refuses when the file already has content', async () => {
      const path = await seeded('a.txt', 'x\n');
      const run = await edit(path, '', 'y');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>Cannot create new file - file already exists.</tool_use_error>',
      );
    });
  });

  describe('when the input cannot be applied', () => {
    it('refuses identical old and new strings first, even for a missing file', async () => {
      const run = await edit(workspace.path('missing.txt'), 'same', 'same');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>',
      );
    });

    it('refuses a missing file and names the working directory', async () => {
      const run = await edit(workspace.path('missing.txt'), 'a', 'b');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        `<tool_use_error>File does not exist. Note: your current working directory is ${workspace.root}.</tool_use_error>`,
      );
    });

    it('sends notebooks to NotebookEdit', async () => {
      const path = await seeded('book.ipynb', '{"cells": []}\n');
      const run = await edit(path, 'cells', 'x');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>File is a Jupyter Notebook. Use the NotebookEdit to edit this file.</tool_use_error>',
      );
    });

    it('refuses a file that was never read', async () => {
      const path = await workspace.write('a.txt', 'hello\n');
      const run = await edit(path, 'hello', 'bye');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
      );
      expect(await readFile(path, 'utf8')).toBe('hello\n');
    });

    it('reports a string that is not in the file', async () => {
      const path = await seeded('a.txt', 'hello\n');
      const run = await edit(path, 'absent', 'x');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        '<tool_use_error>String to replace not found in file.\nString: absent</tool_use_error>',
      );
    });

    it('refuses a directory', async () => {
      await workspace.write('dir/a.txt', 'x');
      const run = await edit(workspace.path('dir'), 'a', 'b');
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('is a directory');
    });
  });

  describe('when the file has a byte-order mark or is UTF-16', () => {
    it('keeps the UTF-8 byte-order mark', async () => {
      const path = await seeded('bom.txt', Buffer.from('\uFEFFold\n', 'utf8'));
      const run = await edit(path, 'old', 'new');
      expect(run.block.is_error).toBeFalsy();
      expect(await readFile(path)).toEqual(Buffer.from('\uFEFFnew\n', 'utf8'));
    });

    it('keeps UTF-16 encoding', async () => {
      const path = await seeded('wide.txt', Buffer.from('\uFEFFold\r\n', 'utf16le'));
      await edit(path, 'old', 'nëw');
      expect(await readFile(path)).toEqual(Buffer.from('\uFEFFnëw\r\n', 'utf16le'));
    });
  });
});
