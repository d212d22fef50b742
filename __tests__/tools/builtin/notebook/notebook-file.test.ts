import { describe, expect, it } from 'vitest';
import {
  findCellIndex,
  parseNotebook,
  serializeNotebook,
  splitLines,
} from '../../../../src/tools/builtin/notebook/notebook-file.js';
import type { Notebook } from '../../../../src/tools/builtin/notebook/notebook-file.js';
import type { TextFile } from '../../../../src/tools/builtin/file/text-file.js';
import { codeCell, markdownCell, notebookObject, notebookText } from './notebook-fixture.js';

function textFile(text: string, lineEnding: TextFile['lineEnding'] = '\n'): TextFile {
  return { raw: text, text, encoding: 'utf8', lineEnding, mtimeMs: 0 };
}

/** A fixture notebook as the tool sees it: written to JSON and parsed back. */
function parsed(notebook: object): Notebook {
  const result = parseNotebook(textFile(JSON.stringify(notebook)));
  if (typeof result === 'string') throw new Error(result);
  return result;
}

describe('parseNotebook', () => {
  it('returns the parsed object itself, unknown keys and order kept', () => {
    const text = '{"metadata": {"x": 1}, "cells": [], "custom": true}';
    const notebook = parseNotebook(textFile(text));
    expect(JSON.stringify(notebook)).toBe('{"metadata":{"x":1},"cells":[],"custom":true}');
  });

  describe('when the file is not a notebook', () => {
    it('says the JSON does not parse', () => {
      expect(parseNotebook(textFile('{'))).toMatch(/^Notebook is not valid JSON \(.+\)\.$/);
    });

    it('names where the structure breaks', () => {
      const text = JSON.stringify({ cells: [{ cell_type: 'code' }] });
      expect(parseNotebook(textFile(text))).toBe(
        'Notebook does not have the nbformat 4 structure (a "cells" list of cells with cell_type and source) at cells.0.source.',
      );
      expect(parseNotebook(textFile('[]'))).toMatch(/^Notebook does not have the nbformat 4/);
    });
  });
});

describe('splitLines', () => {
  it('keeps each line break with its line, as nbformat stores sources', () => {
    expect(splitLines('a\nb\n')).toEqual(['a\n', 'b\n']);
    expect(splitLines('a\n\nb')).toEqual(['a\n', '\n', 'b']);
    expect(splitLines('')).toEqual([]);
  });
});

describe('findCellIndex', () => {
  const notebook = notebookObject([markdownCell('intro', ['a']), codeCell(undefined, ['b'])]);

  it('finds a cell by its own id first, then by the cell-<n> position', () => {
    expect(findCellIndex(parsed(notebook), 'intro')).toBe(0);
    expect(findCellIndex(parsed(notebook), 'cell-1')).toBe(1);
    expect(findCellIndex(parsed(notebook), 'cell-0')).toBe(0);
  });

  it('prefers a cell whose id looks like a position', () => {
    const tricky = notebookObject([markdownCell('x', ['a']), markdownCell('cell-0', ['b'])]);
    expect(findCellIndex(parsed(tricky), 'cell-0')).toBe(1);
  });

  it('finds nothing for an unknown id or a position past the end', () => {
    expect(findCellIndex(parsed(notebook), 'nope')).toBeUndefined();
    expect(findCellIndex(parsed(notebook), 'cell-2')).toBeUndefined();
    expect(findCellIndex(parsed(notebook), 'cell-')).toBeUndefined();
  });
});

describe('serializeNotebook', () => {
  const notebook = parsed(notebookObject([markdownCell('a', ['x'])]));

  it('writes in the layout of the original: indent, final newline, line endings', () => {
    expect(serializeNotebook(notebook, textFile(notebookText(notebook)))).toBe(
      notebookText(notebook),
    );
    const twoSpaces = `${JSON.stringify(notebook, null, 2)}`;
    expect(serializeNotebook(notebook, textFile(twoSpaces))).toBe(twoSpaces);
    expect(serializeNotebook(notebook, textFile(`${JSON.stringify(notebook)}\n`))).toBe(
      `${JSON.stringify(notebook)}\n`,
    );
    const crlf = notebookText(notebook).replaceAll('\n', '\r\n');
    expect(serializeNotebook(notebook, textFile(crlf, '\r\n'))).toBe(crlf);
  });

  it('leaves line breaks inside sources escaped, whatever the file uses', () => {
    const withBreak = parsed(notebookObject([markdownCell('a', ['x\n', 'y'])]));
    const crlf = notebookText(withBreak).replaceAll('\n', '\r\n');
    expect(serializeNotebook(withBreak, textFile(crlf, '\r\n'))).toContain('"x\\n",\r\n');
  });
});
