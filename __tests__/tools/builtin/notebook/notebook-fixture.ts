/**
 * Notebooks as Jupyter writes them (nbformat 4, sorted keys, indent 1, final newline), for the
 * Read and NotebookEdit tests.
 */

export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export interface FixtureCell {
  cell_type: 'code' | 'markdown' | 'raw';
  id?: string;
  source: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
  metadata?: Record<string, unknown>;
}

export function codeCell(id: string | undefined, source: string[], outputs: unknown[] = []) {
  return {
    cell_type: 'code' as const,
    execution_count: outputs.length > 0 ? 1 : null,
    ...(id !== undefined && { id }),
    metadata: {},
    outputs,
    source,
  };
}

export function markdownCell(id: string | undefined, source: string[]) {
  return { cell_type: 'markdown' as const, ...(id !== undefined && { id }), metadata: {}, source };
}

/** A notebook object; minor 5 gives cells ids, 4 does not. */
export function notebookObject(cells: FixtureCell[], minor = 5) {
  return {
    cells,
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: minor,
  };
}

/** The text Jupyter would write for `notebook`. */
export function notebookText(notebook: unknown): string {
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

export const sampleNotebook = () =>
  notebookObject([
    markdownCell('intro', ['# Title\n', 'Some text']),
    codeCell(
      'load',
      ['import pandas as pd\n', 'df = pd.read_csv("a.csv")'],
      [{ name: 'stdout', output_type: 'stream', text: ['loaded 3 rows\n'] }],
    ),
    codeCell('plot', ['df.plot()'], []),
  ]);
