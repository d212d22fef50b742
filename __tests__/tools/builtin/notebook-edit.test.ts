import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { notebookEditTool } from '../../../src/tools/builtin/notebook-edit.js';
import type { NotebookEditOutput } from '../../../src/tools/builtin/notebook-edit.js';
import { readTextFile } from '../../../src/tools/builtin/file/text-file.js';
import { readTool } from '../../../src/tools/builtin/read.js';
import type { ToolContext } from '../../../src/tools/tool.js';
import {
  codeCell,
  markdownCell,
  notebookObject,
  notebookText,
  sampleNotebook,
} from './notebook/notebook-fixture.js';

describe('notebookEditTool', () => {
  let workspace: Workspace;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    context = makeContext(workspace);
  });
  afterEach(() => workspace.cleanup());

  const edit = (input: object) => runTool(notebookEditTool, input, context);
  /** Writes a notebook and reads it, as a model would before editing. */
  const seeded = async (name: string, content: string) => {
    const path = await workspace.write(name, content);
    await runTool(readTool, { file_path: path }, context);
    return path;
  };
  const onDisk = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as unknown;

  it('declares itself neither read-only nor safe to run in parallel', () => {
    const input = { notebook_path: '/x.ipynb', new_source: '' };
    expect(notebookEditTool.isReadOnly(input)).toBe(false);
    expect(notebookEditTool.isConcurrencySafe(input)).toBe(false);
  });

  it('asks for edit access to the absolute path, as Edit does', () => {
    const input = { notebook_path: 'a.ipynb', new_source: '' };
    expect(notebookEditTool.checkPermissions(input, context)).toEqual({
      access: 'edit',
      ruleContent: workspace.path('a.ipynb'),
      paths: [workspace.path('a.ipynb')],
    });
  });

  describe('when replacing a cell', () => {
    it('sets its source, clears its outputs and changes nothing else in the file', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      const run = await edit({ notebook_path: path, cell_id: 'load', new_source: 'x = 1\ny = 2' });
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe('Updated cell load with x = 1\ny = 2');
      const expected = sampleNotebook();
      expected.cells[1] = { ...codeCell('load', ['x = 1\n', 'y = 2']), execution_count: null };
      expect(await readFile(path, 'utf8')).toBe(notebookText(expected));
    });

    it('returns the structured output with both versions of the file', async () => {
      const original = notebookText(sampleNotebook());
      const path = await seeded('a.ipynb', original);
      const run = await edit({ notebook_path: path, cell_id: 'intro', new_source: '# New' });
      const data = run.data as NotebookEditOutput;
      expect(data).toEqual({
        new_source: '# New',
        cell_id: 'intro',
        cell_type: 'markdown',
        language: 'python',
        edit_mode: 'replace',
        notebook_path: path,
        original_file: original,
        updated_file: await readFile(path, 'utf8'),
      });
    });

    it('changes the cell type when cell_type is given', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await edit({
        notebook_path: path,
        cell_id: 'load',
        new_source: 'Notes',
        cell_type: 'markdown',
      });
      const cells = ((await onDisk(path)) as { cells: unknown[] }).cells;
      expect(cells[1]).toEqual({
        cell_type: 'markdown',
        id: 'load',
        metadata: {},
        source: ['Notes'],
      });
    });

    it('gives a markdown cell turned into code empty outputs', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await edit({ notebook_path: path, cell_id: 'intro', new_source: 'pass', cell_type: 'code' });
      const cells = ((await onDisk(path)) as { cells: unknown[] }).cells;
      expect(cells[0]).toEqual({
        cell_type: 'code',
        id: 'intro',
        metadata: {},
        source: ['pass'],
        execution_count: null,
        outputs: [],
      });
    });

    it('finds a cell without an id by the cell-<n> name Read shows', async () => {
      const notebook = notebookObject(
        [markdownCell(undefined, ['a']), markdownCell(undefined, ['b'])],
        4,
      );
      const path = await seeded('old.ipynb', notebookText(notebook));
      const run = await edit({ notebook_path: path, cell_id: 'cell-1', new_source: 'B' });
      expect(run.text).toBe('Updated cell cell-1 with B');
      expect(
        ((await onDisk(path)) as { cells: Array<{ source: unknown }> }).cells[1]?.source,
      ).toEqual(['B']);
    });

    it('keeps a source written as one string as one string', async () => {
      const notebook = notebookObject([
        { cell_type: 'markdown', id: 'm', metadata: {}, source: 'old' },
      ]);
      const path = await seeded('a.ipynb', notebookText(notebook));
      await edit({ notebook_path: path, cell_id: 'm', new_source: 'one\ntwo' });
      expect(((await onDisk(path)) as { cells: Array<{ source: unknown }> }).cells[0]?.source).toBe(
        'one\ntwo',
      );
    });

    it('may edit again without another read: its own write is known', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await edit({ notebook_path: path, cell_id: 'plot', new_source: 'first' });
      const run = await edit({ notebook_path: path, cell_id: 'plot', new_source: 'second' });
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe('Updated cell plot with second');
    });

    it('keeps CRLF line endings, a compact layout and a byte-order mark', async () => {
      const crlf = notebookText(sampleNotebook()).replaceAll('\n', '\r\n');
      const crlfPath = await seeded('crlf.ipynb', crlf);
      await edit({ notebook_path: crlfPath, cell_id: 'plot', new_source: 'z' });
      const written = await readFile(crlfPath, 'utf8');
      expect(written.split('\r\n').length).toBe(written.split('\n').length);
      expect(written.endsWith('}\r\n')).toBe(true);

      const compactPath = await seeded(
        'compact.ipynb',
        `\uFEFF${JSON.stringify(sampleNotebook())}`,
      );
      await edit({ notebook_path: compactPath, cell_id: 'plot', new_source: 'z' });
      const compact = await readFile(compactPath, 'utf8');
      expect(compact.startsWith('\uFEFF{"cells":[')).toBe(true);
      expect(compact).not.toContain('\n ');
    });
  });

  describe('when inserting a cell', () => {
    it('puts it after the named cell, with a fresh id and empty outputs', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      const run = await edit({
        notebook_path: path,
        cell_id: 'intro',
        new_source: 'import os\nprint(os.getcwd())',
        cell_type: 'code',
        edit_mode: 'insert',
      });
      const data = run.data as NotebookEditOutput;
      expect(data.cell_id).toMatch(/^[0-9a-f]{8}$/);
      expect(run.text).toBe(`Inserted cell ${data.cell_id} with import os\nprint(os.getcwd())`);
      const cells = ((await onDisk(path)) as { cells: Array<{ id: string }> }).cells;
      expect(cells.map((cell) => cell.id)).toEqual(['intro', data.cell_id, 'load', 'plot']);
      expect(cells[1]).toEqual({
        cell_type: 'code',
        execution_count: null,
        id: data.cell_id,
        metadata: {},
        outputs: [],
        source: ['import os\n', 'print(os.getcwd())'],
      });
    });

    it('puts it first when no cell_id is given', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await edit({
        notebook_path: path,
        new_source: '# Top',
        cell_type: 'markdown',
        edit_mode: 'insert',
      });
      const cells = (
        (await onDisk(path)) as { cells: Array<{ source: unknown; cell_type: string }> }
      ).cells;
      expect(cells).toHaveLength(4);
      expect(cells[0]).toMatchObject({ cell_type: 'markdown', source: ['# Top'] });
    });

    it('gives the new cell no id in a notebook format older than 4.5', async () => {
      const notebook = notebookObject([markdownCell(undefined, ['a'])], 4);
      const path = await seeded('old.ipynb', notebookText(notebook));
      const run = await edit({
        notebook_path: path,
        cell_id: 'cell-0',
        new_source: 'b',
        cell_type: 'markdown',
        edit_mode: 'insert',
      });
      expect(run.text).toBe('Inserted cell cell-1 with b');
      expect(((await onDisk(path)) as { cells: unknown[] }).cells[1]).toEqual({
        cell_type: 'markdown',
        metadata: {},
        source: ['b'],
      });
    });

    it('inserts into a notebook without cells', async () => {
      const path = await seeded('empty.ipynb', notebookText(notebookObject([])));
      const run = await edit({
        notebook_path: path,
        new_source: 'x',
        cell_type: 'code',
        edit_mode: 'insert',
      });
      expect(run.block.is_error).toBeFalsy();
      expect(((await onDisk(path)) as { cells: unknown[] }).cells).toHaveLength(1);
    });
  });

  describe('when deleting a cell', () => {
    it('removes it and reports which cell went', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      const run = await edit({
        notebook_path: path,
        cell_id: 'load',
        new_source: '',
        edit_mode: 'delete',
      });
      expect(run.text).toBe('Deleted cell load');
      expect((run.data as NotebookEditOutput).cell_type).toBe('code');
      const cells = ((await onDisk(path)) as { cells: Array<{ id: string }> }).cells;
      expect(cells.map((cell) => cell.id)).toEqual(['intro', 'plot']);
    });
  });

  describe('when the input is wrong', () => {
    const refused = async (input: object, message: string) => {
      const run = await edit(input);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(`<tool_use_error>${message}</tool_use_error>`);
    };

    it('refuses a file that is not a notebook', async () => {
      const path = await seeded('a.py', 'x = 1\n');
      await refused(
        { notebook_path: path, cell_id: 'cell-0', new_source: 'y' },
        'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.',
      );
    });

    it('refuses an insert without a cell_type', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await refused(
        { notebook_path: path, new_source: 'y', edit_mode: 'insert' },
        'Cell type is required when using edit_mode=insert.',
      );
    });

    it.each(['replace', 'delete'])('refuses a %s without a cell_id', async (mode) => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await refused(
        { notebook_path: path, new_source: 'y', edit_mode: mode },
        'Cell ID must be specified when not inserting a new cell.',
      );
    });

    it('refuses an unknown cell id and a position past the end', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      for (const cellId of ['nope', 'cell-3']) {
        await refused(
          { notebook_path: path, cell_id: cellId, new_source: 'y' },
          `Cell with ID "${cellId}" not found in notebook. Use the ids Read shows for the cells.`,
        );
      }
    });

    it('refuses a missing notebook', async () => {
      await refused(
        { notebook_path: workspace.path('none.ipynb'), cell_id: 'a', new_source: 'y' },
        `File does not exist. Note: your current working directory is ${workspace.root}.`,
      );
    });

    it('refuses a directory', async () => {
      await mkdir(workspace.path('dir.ipynb'));
      await refused(
        { notebook_path: workspace.path('dir.ipynb'), cell_id: 'a', new_source: 'y' },
        `${workspace.path('dir.ipynb')} is a directory, not a notebook.`,
      );
    });

    it('refuses a notebook that is not valid JSON', async () => {
      const path = await seeded('broken.ipynb', '{"cells": [\n');
      const run = await edit({ notebook_path: path, cell_id: 'a', new_source: 'y' });
      expect(run.block.is_error).toBe(true);
      expect(run.text).toMatch(
        /^<tool_use_error>Notebook is not valid JSON \(.+\)\. Fix the file with Write instead\.<\/tool_use_error>$/,
      );
    });

    it('rejects an unknown edit_mode, a cell_type of raw and a missing new_source', () => {
      const schema = notebookEditTool.inputSchema;
      const base = { notebook_path: '/a.ipynb', cell_id: 'a', new_source: 'x' };
      expect(schema.safeParse({ ...base, edit_mode: 'append' }).success).toBe(false);
      expect(schema.safeParse({ ...base, cell_type: 'raw' }).success).toBe(false);
      expect(schema.safeParse({ notebook_path: '/a.ipynb', cell_id: 'a' }).success).toBe(false);
      expect(schema.safeParse({ ...base, cell_index: 1 }).success).toBe(false);
    });
  });

  describe('when the notebook was not read, or changed since', () => {
    it('refuses a notebook it has not read', async () => {
      const path = await workspace.write('a.ipynb', notebookText(sampleNotebook()));
      const run = await edit({ notebook_path: path, cell_id: 'load', new_source: 'y' });
      expect(run.text).toBe(
        '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
      );
      expect(await readFile(path, 'utf8')).toBe(notebookText(sampleNotebook()));
    });

    it('refuses a notebook changed on disk since the read', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      await writeFile(path, notebookText(notebookObject([markdownCell('load', ['other'])])));
      const later = new Date((await stat(path)).mtimeMs + 10_000);
      await utimes(path, later, later);
      const run = await edit({ notebook_path: path, cell_id: 'load', new_source: 'y' });
      expect(run.text).toBe(
        '<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>',
      );
    });

    it('refuses a notebook read only in part as text', async () => {
      const path = await workspace.write('a.ipynb', notebookText(sampleNotebook()));
      const { raw, mtimeMs } = await readTextFile(path);
      context.fileState.recordRead(path, raw, mtimeMs, 1, 3);
      const run = await edit({ notebook_path: path, cell_id: 'load', new_source: 'y' });
      expect(run.text).toContain('File has only been read in part.');
    });

    it('checks again when it runs, after validation passed', async () => {
      const path = await seeded('a.ipynb', notebookText(sampleNotebook()));
      const input = notebookEditTool.inputSchema.parse({
        notebook_path: path,
        cell_id: 'load',
        new_source: 'y',
      });
      expect(await notebookEditTool.validateInput(input, context)).toEqual({ result: true });
      await writeFile(path, notebookText(notebookObject([])));
      const later = new Date((await stat(path)).mtimeMs + 10_000);
      await utimes(path, later, later);
      await expect(notebookEditTool.call(input, context).next()).rejects.toThrow(
        'File has been modified since read',
      );
    });
  });
});
