/**
 * Jupyter notebooks (nbformat 4) as Read and NotebookEdit see them.
 *
 * The parsed JSON is checked for the few fields the tools rely on and otherwise kept as it was
 * read, so a write changes only the cells edited: unknown keys, key order, metadata, outputs of
 * other cells and the file's indentation stay as they were.
 */
import { extname } from 'node:path';
import * as z from 'zod';
import { readTextFile, toLf } from '../file/text-file.js';
import type { TextFile } from '../file/text-file.js';

export type CellType = 'code' | 'markdown' | 'raw';

/** nbformat keeps text either as one string or as a list of lines, each with its line break. */
export type MultilineText = string | string[];

export interface NotebookCell {
  cell_type: CellType;
  id?: string;
  source: MultilineText;
  metadata?: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface Notebook {
  cells: NotebookCell[];
  metadata?: Record<string, unknown>;
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

const multiline = z.union([z.string(), z.array(z.string())]);
const cellShape = z.looseObject({
  cell_type: z.enum(['code', 'markdown', 'raw']),
  id: z.string().optional(),
  source: multiline,
});
const notebookShape = z.looseObject({ cells: z.array(cellShape) });

export interface NotebookFile {
  file: TextFile;
  notebook: Notebook;
}

export function isNotebookPath(path: string): boolean {
  return extname(path).toLowerCase() === '.ipynb';
}

/** The notebook in `file`, or why it is not one. */
export function parseNotebook(file: TextFile): Notebook | string {
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch (error) {
    return `Notebook is not valid JSON (${error instanceof Error ? error.message : String(error)}).`;
  }
  const checked = notebookShape.safeParse(json);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return `Notebook does not have the nbformat 4 structure (a "cells" list of cells with cell_type and source)${where}.`;
  }
  // The check passed on `json` itself; the original object is kept to preserve key order.
  return json as Notebook;
}

export async function readNotebook(path: string): Promise<NotebookFile | string> {
  const file = await readTextFile(path);
  const notebook = parseNotebook(file);
  return typeof notebook === 'string' ? notebook : { file, notebook };
}

export function joinText(text: MultilineText | undefined): string {
  if (text === undefined) return '';
  return typeof text === 'string' ? text : text.join('');
}

/** Text split the way nbformat writes it: every line keeps its line break. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A cell's id: its own (nbformat 4.5+), else `cell-<index>`, the name Read shows for it. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return typeof cell.id === 'string' && cell.id !== '' ? cell.id : `cell-${index}`;
}

/** The index of the cell a model names: by its own id first, then by the `cell-<n>` form. */
export function findCellIndex(notebook: Notebook, cellId: string): number | undefined {
  const byId = notebook.cells.findIndex((cell) => cell.id === cellId);
  if (byId !== -1) return byId;
  const byPosition = /^cell-(\d+)$/.exec(cellId);
  if (!byPosition) return undefined;
  const index = Number(byPosition[1]);
  return index < notebook.cells.length ? index : undefined;
}

export function notebookLanguage(notebook: Notebook): string {
  const metadata = notebook.metadata ?? {};
  const info = metadata.language_info as { name?: unknown } | undefined;
  const kernel = metadata.kernelspec as { language?: unknown } | undefined;
  if (typeof info?.name === 'string') return info.name;
  if (typeof kernel?.language === 'string') return kernel.language;
  return 'python';
}

/** Whether new cells need an id: nbformat 4.5 made it required. */
export function usesCellIds(notebook: Notebook): boolean {
  const major = notebook.nbformat ?? 4;
  const minor = notebook.nbformat_minor ?? 0;
  return major > 4 || (major === 4 && minor >= 5);
}

/** The notebook as text in the layout of `original`: same indentation, final newline, line ends. */
export function serializeNotebook(notebook: Notebook, original: TextFile): string {
  const text = toLf(original.text);
  const indent = /^\{\n([ \t]+)"/.exec(text)?.[1] ?? (text.trimEnd().includes('\n') ? 1 : 0);
  let output = JSON.stringify(notebook, null, indent);
  if (text.endsWith('\n')) output += '\n';
  return original.lineEnding === '\r\n' ? output.replaceAll('\n', '\r\n') : output;
}
