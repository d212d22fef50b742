/**
 * Read's view of a notebook: its cells, each under the id NotebookEdit takes, with their outputs.
 * Text outputs are cut per output, PNG/JPEG outputs become image blocks, and a notebook whose text
 * is too large for one answer is refused with a pointer to jq (offset/limit mean nothing here).
 */
import type { ImageBlock, TextBlock, ToolResultContent } from '../../../model/types.js';
import { cellIdOf, joinText, notebookLanguage } from './notebook-file.js';
import type { CellType, MultilineText, Notebook } from './notebook-file.js';

export const MAX_NOTEBOOK_TEXT = 256 * 1024;
export const MAX_OUTPUT_TEXT = 10_000;
/** 5 MiB once decoded, the API's image limit. */
const MAX_IMAGE_BASE64 = Math.ceil((5 * 1024 * 1024 * 4) / 3);

type ImageMediaType = ImageBlock['source']['media_type'];

export type NotebookOutputView =
  { type: 'text'; text: string } | { type: 'image'; mediaType: ImageMediaType; base64: string };

export interface NotebookCellView {
  cellId: string;
  cellType: CellType;
  source: string;
  executionCount?: number;
  outputs: NotebookOutputView[];
}

export interface NotebookReadOutput {
  type: 'notebook';
  file: { filePath: string; language: string; cells: NotebookCellView[] };
}

export function notebookCells(notebook: Notebook): NotebookCellView[] {
  return notebook.cells.map((cell, index) => ({
    cellId: cellIdOf(cell, index),
    cellType: cell.cell_type,
    source: joinText(cell.source),
    ...(typeof cell.execution_count === 'number' && { executionCount: cell.execution_count }),
    outputs: (cell.outputs ?? []).flatMap(outputView),
  }));
}

export function notebookReadOutput(filePath: string, notebook: Notebook): NotebookReadOutput {
  return {
    type: 'notebook',
    file: { filePath, language: notebookLanguage(notebook), cells: notebookCells(notebook) },
  };
}

/** Why the notebook is too large to show at once, or undefined when it fits. */
export function notebookSizeProblem(
  path: string,
  cells: readonly NotebookCellView[],
): string | undefined {
  const texts = cells.flatMap((cell) => [
    cell.source,
    ...cell.outputs.map((output) => (output.type === 'text' ? output.text : '')),
  ]);
  const size = texts.reduce((total, text) => total + text.length, 0);
  if (size <= MAX_NOTEBOOK_TEXT) return undefined;
  return `Notebook content (${size} characters) exceeds maximum allowed size (${MAX_NOTEBOOK_TEXT} characters). Look at parts of it with Bash and jq instead, for example: jq '.cells[:20]' ${JSON.stringify(path)}`;
}

export function renderNotebook(file: NotebookReadOutput['file']): ToolResultContent {
  const count = file.cells.length;
  const blocks: Array<TextBlock | ImageBlock> = [];
  let text =
    count === 0
      ? `Jupyter notebook with no cells (language: ${file.language}). Add cells with NotebookEdit (edit_mode "insert").`
      : `Jupyter notebook with ${count} cell${count === 1 ? '' : 's'} (language: ${file.language}). Pass a cell's id as cell_id to NotebookEdit.`;
  for (const cell of file.cells) {
    const run =
      cell.executionCount === undefined ? '' : ` execution_count="${cell.executionCount}"`;
    text += `\n<cell id="${cell.cellId}" type="${cell.cellType}"${run}>\n${cell.source}\n</cell>`;
    for (const output of cell.outputs) {
      if (output.type === 'text') {
        text += `\n<output cell="${cell.cellId}">\n${output.text}\n</output>`;
        continue;
      }
      text += `\n<output cell="${cell.cellId}" type="${output.mediaType}"/>`;
      blocks.push({ type: 'text', text });
      text = '';
      const source = { type: 'base64' as const, media_type: output.mediaType, data: output.base64 };
      blocks.push({ type: 'image', source });
    }
  }
  if (blocks.length === 0) return text;
  if (text !== '') blocks.push({ type: 'text', text: text.replace(/^\n/, '') });
  return blocks;
}

function outputView(output: unknown): NotebookOutputView[] {
  if (typeof output !== 'object' || output === null) return [];
  const fields = output as Record<string, unknown>;
  switch (fields.output_type) {
    case 'stream':
      return textView(joinText(fields.text as MultilineText));
    case 'error': {
      const traceback = Array.isArray(fields.traceback) ? fields.traceback.join('\n') : '';
      return textView(traceback || `${String(fields.ename)}: ${String(fields.evalue)}`);
    }
    case 'execute_result':
    case 'display_data':
      return dataView((fields.data ?? {}) as Record<string, unknown>);
    default:
      return [];
  }
}

/** One rich output: an image when there is one the API takes, else its best text form. */
function dataView(data: Record<string, unknown>): NotebookOutputView[] {
  for (const mediaType of ['image/png', 'image/jpeg'] as const) {
    const value = data[mediaType];
    if (value === undefined) continue;
    const base64 = joinText(value as MultilineText).replace(/\s+/g, '');
    if (base64.length <= MAX_IMAGE_BASE64) return [{ type: 'image', mediaType, base64 }];
    return textView(`[${mediaType} output left out: larger than 5 MiB]`);
  }
  for (const mediaType of ['text/plain', 'text/markdown', 'text/html']) {
    const value = data[mediaType];
    if (value !== undefined) return textView(joinText(value as MultilineText));
  }
  return data['application/json'] === undefined
    ? []
    : textView(JSON.stringify(data['application/json']));
}

function textView(text: string): NotebookOutputView[] {
  // Tracebacks and progress bars carry terminal colour codes the model has no use for.
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\n$/, '');
  if (plain === '') return [];
  if (plain.length <= MAX_OUTPUT_TEXT) return [{ type: 'text', text: plain }];
  const cut = plain.slice(0, MAX_OUTPUT_TEXT);
  return [
    {
      type: 'text',
      text: `${cut}… [output cut at ${MAX_OUTPUT_TEXT} of ${plain.length} characters]`,
    },
  ];
}
