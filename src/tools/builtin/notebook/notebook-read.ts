/**
 * Read's notebook branch. A `.ipynb` that parses as a notebook is shown as cells and recorded as
 * fully read, which is what NotebookEdit's read-before-write check asks for; one that does not
 * parse is left to Read's text path, so the model can see what is wrong with it.
 */
import type { FileStateCache } from '../../file-state.js';
import { countLines } from '../../file-state.js';
import type { ValidationResult } from '../../tool.js';
import { readNotebook } from './notebook-file.js';
import { notebookCells, notebookReadOutput, notebookSizeProblem } from './notebook-view.js';
import type { NotebookReadOutput } from './notebook-view.js';

/** Read's validation for a notebook; undefined when the file is not one and is read as text. */
export async function checkNotebookRead(path: string): Promise<ValidationResult | undefined> {
  const loaded = await readNotebook(path);
  if (typeof loaded === 'string') return undefined;
  const problem = notebookSizeProblem(path, notebookCells(loaded.notebook));
  return problem === undefined
    ? { result: true }
    : { result: false, message: problem, errorCode: 1 };
}

/** The cells, with the whole file recorded as seen; undefined when the file is not a notebook. */
export async function readNotebookForModel(
  path: string,
  fileState: FileStateCache,
): Promise<NotebookReadOutput | undefined> {
  const loaded = await readNotebook(path);
  if (typeof loaded === 'string') return undefined;
  const { raw, mtimeMs } = loaded.file;
  fileState.recordRead(path, raw, mtimeMs, 1, Math.max(countLines(raw), 1));
  return notebookReadOutput(path, loaded.notebook);
}
