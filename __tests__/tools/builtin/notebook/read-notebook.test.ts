import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { readTool } from '../../../../src/tools/builtin/read.js';
import {
  MAX_NOTEBOOK_TEXT,
  MAX_OUTPUT_TEXT,
} from '../../../../src/tools/builtin/notebook/notebook-view.js';
import type { ToolContext } from '../../../../src/tools/tool.js';
import {
  codeCell,
  markdownCell,
  notebookObject,
  notebookText,
  RED_PIXEL_PNG,
  sampleNotebook,
} from './notebook-fixture.js';

describe('readTool on notebooks', () => {
  let workspace: Workspace;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    context = makeContext(workspace);
  });
  afterEach(() => workspace.cleanup());

  const read = (path: string, extra: object = {}) =>
    runTool(readTool, { file_path: path, ...extra }, context);

  describe('when the file is a notebook', () => {
    it('shows every cell under its id with its type, source and outputs', async () => {
      const path = await workspace.write('a.ipynb', notebookText(sampleNotebook()));
      const run = await read(path);
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe(
        [
          "Jupyter notebook with 3 cells (language: python). Pass a cell's id as cell_id to NotebookEdit.",
          '<cell id="intro" type="markdown">',
          '# Title',
          'Some text',
          '</cell>',
          '<cell id="load" type="code" execution_count="1">',
          'import pandas as pd',
          'df = pd.read_csv("a.csv")',
          '</cell>',
          '<output cell="load">',
          'loaded 3 rows',
          '</output>',
          '<cell id="plot" type="code">',
          'df.plot()',
          '</cell>',
        ].join('\n'),
      );
    });

    it('returns the cells as structured output', async () => {
      const path = await workspace.write('a.ipynb', notebookText(sampleNotebook()));
      const run = await read(path);
      expect(run.data).toEqual({
        type: 'notebook',
        file: {
          filePath: path,
          language: 'python',
          cells: [
            { cellId: 'intro', cellType: 'markdown', source: '# Title\nSome text', outputs: [] },
            {
              cellId: 'load',
              cellType: 'code',
              source: 'import pandas as pd\ndf = pd.read_csv("a.csv")',
              executionCount: 1,
              outputs: [{ type: 'text', text: 'loaded 3 rows' }],
            },
            { cellId: 'plot', cellType: 'code', source: 'df.plot()', outputs: [] },
          ],
        },
      });
    });

    it('names cells without an id by their position, as NotebookEdit accepts them', async () => {
      const notebook = notebookObject(
        [markdownCell(undefined, ['a']), codeCell(undefined, ['b'])],
        4,
      );
      const path = await workspace.write('old.ipynb', notebookText(notebook));
      const run = await read(path);
      expect(run.text).toContain('<cell id="cell-0" type="markdown">\na\n</cell>');
      expect(run.text).toContain('<cell id="cell-1" type="code">\nb\n</cell>');
    });

    it('records the whole file as read, so it may be changed next', async () => {
      const path = await workspace.write('a.ipynb', notebookText(sampleNotebook()));
      await read(path, { offset: 3, limit: 1 });
      expect(context.fileState.isFullyRead(path)).toBe(true);
      expect(context.fileState.get(path)?.content).toBe(notebookText(sampleNotebook()));
    });

    it('says so when the notebook has no cells', async () => {
      const path = await workspace.write('empty.ipynb', notebookText(notebookObject([])));
      const run = await read(path);
      expect(run.text).toBe(
        'Jupyter notebook with no cells (language: python). Add cells with NotebookEdit (edit_mode "insert").',
      );
    });

    it('takes the language from the kernel when the notebook has no language_info', async () => {
      const notebook = {
        cells: [codeCell('a', ['x <- 1'])],
        metadata: { kernelspec: { language: 'R', name: 'ir' } },
        nbformat: 4,
        nbformat_minor: 5,
      };
      const path = await workspace.write('r.ipynb', notebookText(notebook));
      expect((await read(path)).text).toContain('(language: R)');
    });
  });

  describe('when cells have rich outputs', () => {
    it('returns a PNG output as an image block between the texts', async () => {
      const notebook = notebookObject([
        codeCell(
          'plot',
          ['df.plot()'],
          [
            {
              data: { 'image/png': `${RED_PIXEL_PNG}\n`, 'text/plain': ['<Figure>'] },
              metadata: {},
              output_type: 'display_data',
            },
          ],
        ),
        markdownCell('after', ['done']),
      ]);
      const path = await workspace.write('a.ipynb', notebookText(notebook));
      const run = await read(path);
      expect(run.block.content).toEqual([
        {
          type: 'text',
          text: expect.stringMatching(/<output cell="plot" type="image\/png"\/>$/) as unknown,
        },
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: RED_PIXEL_PNG },
        },
        { type: 'text', text: '<cell id="after" type="markdown">\ndone\n</cell>' },
      ]);
    });

    it('shows an execute_result as its plain text and an error as its traceback without colour codes', async () => {
      const notebook = notebookObject([
        codeCell(
          'calc',
          ['1 + 1'],
          [
            {
              data: { 'text/html': ['<b>2</b>'], 'text/plain': ['2'] },
              execution_count: 1,
              metadata: {},
              output_type: 'execute_result',
            },
            {
              ename: 'ZeroDivisionError',
              evalue: 'division by zero',
              output_type: 'error',
              traceback: ['\u001b[0;31mZeroDivisionError\u001b[0m: division by zero'],
            },
          ],
        ),
      ]);
      const path = await workspace.write('a.ipynb', notebookText(notebook));
      const run = await read(path);
      expect(run.text).toContain(
        '<output cell="calc">\n2\n</output>\n<output cell="calc">\nZeroDivisionError: division by zero\n</output>',
      );
    });

    it('cuts a long text output and says how long it was', async () => {
      const long = 'x'.repeat(MAX_OUTPUT_TEXT + 5);
      const notebook = notebookObject([
        codeCell('loop', ['print(x)'], [{ name: 'stdout', output_type: 'stream', text: long }]),
      ]);
      const path = await workspace.write('a.ipynb', notebookText(notebook));
      const run = await read(path);
      expect(run.text).toContain(
        `${'x'.repeat(MAX_OUTPUT_TEXT)}… [output cut at ${MAX_OUTPUT_TEXT} of ${MAX_OUTPUT_TEXT + 5} characters]`,
      );
    });
  });

  describe('when the notebook cannot be shown as cells', () => {
    it('shows a file that is not valid JSON as numbered text, so the model can repair it', async () => {
      const path = await workspace.write('broken.ipynb', '{"cells": [\n');
      const run = await read(path);
      expect(run.block.is_error).toBeFalsy();
      expect(run.text).toBe('1\t{"cells": [\n2\t');
    });

    it('shows JSON without a cells list as text', async () => {
      const path = await workspace.write('other.ipynb', '{"cells": 3}');
      expect((await read(path)).text).toBe('1\t{"cells": 3}');
    });

    it('refuses a notebook whose text is too large and points to jq', async () => {
      const big = Array.from({ length: 30 }, (_, index) =>
        codeCell(`c${index}`, ['y'.repeat(MAX_NOTEBOOK_TEXT / 20)]),
      );
      const path = await workspace.write('big.ipynb', notebookText(notebookObject(big)));
      const run = await read(path);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain(
        `exceeds maximum allowed size (${MAX_NOTEBOOK_TEXT} characters). Look at parts of it with Bash and jq instead, for example: jq '.cells[:20]' "${path}"`,
      );
    });
  });
});
