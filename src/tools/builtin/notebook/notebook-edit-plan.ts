/**
 * NotebookEdit's checks and the notebook they allow, computed in one place so validateInput and
 * call() run the same logic (call() runs it again: hooks may have touched the file in between).
 *
 * Order: not a notebook → insert without cell_type → no cell_id to replace or delete → a
 * symbolic link (links.ts, not written through) → missing file → not read in full, or changed
 * since (docs/DECISIONS.md #2/#3) → not a notebook inside → unknown cell. The notebook was shown whole by Read, so a full read is required, as for Write.
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { ToolContext } from '../../tool.js';
import { describeError, isNotFound } from '../file/fs-errors.js';
import { linkProblem } from '../file/links.js';
import { fileNotFoundMessage } from '../file/missing-file.js';
import { fullReadProblem } from '../file/read-guard.js';
import { readTextFile, toLf } from '../file/text-file.js';
import type { TextFile } from '../file/text-file.js';
import {
  cellIdOf,
  findCellIndex,
  isNotebookPath,
  notebookLanguage,
  parseNotebook,
  serializeNotebook,
  splitLines,
  usesCellIds,
} from './notebook-file.js';
import type { CellType, MultilineText, Notebook, NotebookCell } from './notebook-file.js';

export type EditMode = 'replace' | 'insert' | 'delete';

export interface NotebookEditRequest {
  path: string;
  cellId?: string;
  newSource: string;
  cellType?: 'code' | 'markdown';
  editMode: EditMode;
}

export interface NotebookEditPlan {
  file: TextFile;
  /** The notebook text to write, in the file's own layout. */
  output: string;
  /** The cell edited, inserted or deleted, under the id Read shows for it. */
  cellId: string;
  cellType: CellType;
  language: string;
}

export type NotebookPlanResult =
  { ok: true; plan: NotebookEditPlan } | { ok: false; message: string };

export async function planNotebookEdit(
  request: NotebookEditRequest,
  context: ToolContext,
): Promise<NotebookPlanResult> {
  const { path, cellId, editMode } = request;
  const fail = (message: string): NotebookPlanResult => ({ ok: false, message });
  if (!isNotebookPath(path)) {
    return fail(
      'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.',
    );
  }
  if (editMode === 'insert' && request.cellType === undefined) {
    return fail('Cell type is required when using edit_mode=insert.');
  }
  if (editMode !== 'insert' && cellId === undefined) {
    return fail('Cell ID must be specified when not inserting a new cell.');
  }
  const link = await linkProblem(path);
  if (link) return fail(link);
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    if (isNotFound(error)) return fail(await fileNotFoundMessage(path, context.projectDir));
    return fail(`Cannot edit ${path}: ${describeError(error)}`);
  }
  if (info.isDirectory()) return fail(`${path} is a directory, not a notebook.`);
  let file: TextFile;
  try {
    file = await readTextFile(path);
  } catch (error) {
    return fail(`Cannot edit ${path}: ${describeError(error)}`);
  }
  const readProblem = fullReadProblem(context.fileState, path, file);
  if (readProblem) return fail(readProblem);
  const notebook = parseNotebook(file);
  if (typeof notebook === 'string') return fail(`${notebook} Fix the file with Write instead.`);
  const index = cellId === undefined ? undefined : findCellIndex(notebook, cellId);
  if (cellId !== undefined && index === undefined) {
    return fail(
      `Cell with ID "${cellId}" not found in notebook. Use the ids Read shows for the cells.`,
    );
  }
  const edited = applyEdit(notebook, request, index);
  return {
    ok: true,
    plan: {
      file,
      output: serializeNotebook(notebook, file),
      cellId: edited.cellId,
      cellType: edited.cellType,
      language: notebookLanguage(notebook),
    },
  };
}

/** Changes `notebook` in place; `index` is the named cell (undefined only for an insert). */
function applyEdit(
  notebook: Notebook,
  request: NotebookEditRequest,
  index: number | undefined,
): { cellId: string; cellType: CellType } {
  const { cells } = notebook;
  const source = toLf(request.newSource);
  if (request.editMode === 'insert') {
    const at = index === undefined ? 0 : index + 1;
    const cellType = request.cellType ?? 'code';
    const form = cells[0]?.source ?? '';
    const cell = newCell(cellType, withForm(source, form), newCellId(notebook));
    cells.splice(at, 0, cell);
    return { cellId: cellIdOf(cell, at), cellType };
  }
  // Both remaining modes found their cell before getting here.
  const position = index ?? 0;
  const cell = cells[position] as NotebookCell;
  const cellId = cellIdOf(cell, position);
  if (request.editMode === 'delete') {
    cells.splice(position, 1);
    return { cellId, cellType: cell.cell_type };
  }
  cell.source = withForm(source, cell.source);
  const cellType = request.cellType ?? cell.cell_type;
  if (cellType === 'code') {
    // Outputs of the old source would describe code that is no longer there.
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
  cell.cell_type = cellType;
  return { cellId, cellType };
}

/** Keys in nbformat's (sorted) order, so the new cell looks like the ones Jupyter writes. */
function newCell(cellType: CellType, source: MultilineText, id: string | undefined): NotebookCell {
  return {
    cell_type: cellType,
    ...(cellType === 'code' && { execution_count: null }),
    ...(id !== undefined && { id }),
    metadata: {},
    ...(cellType === 'code' && { outputs: [] }),
    source,
  };
}

/** A fresh id when the notebook's format has them (4.5+), unique among its cells. */
function newCellId(notebook: Notebook): string | undefined {
  if (!usesCellIds(notebook)) return undefined;
  const taken = new Set(notebook.cells.map((cell) => cell.id));
  let id = randomUUID().slice(0, 8);
  while (taken.has(id)) id = randomUUID().slice(0, 8);
  return id;
}

/** The text in the form (one string or a list of lines) the notebook already uses. */
function withForm(text: string, like: MultilineText): MultilineText {
  return Array.isArray(like) ? splitLines(text) : text;
}
