import { describe, expect, it } from 'vitest';
import {
  LineCollector,
  contentResult,
  countResult,
  filesResult,
  renderGrepText,
} from '../../../../src/tools/builtin/search/grep-result.js';

describe('LineCollector', () => {
  it('skips the offset, takes up to the limit and then asks to stop', () => {
    const collector = new LineCollector({ offset: 1, limit: 2 });
    expect(['a', 'b', 'c'].map(collector.push)).toEqual([true, true, true]);
    expect(collector.push('d')).toBe(false);
    expect(collector.lines).toEqual(['b', 'c']);
    expect(collector.cut).toBe(true);
  });

  it('keeps counting but stops keeping lines past the character budget', () => {
    const collector = new LineCollector({ offset: 0, limit: undefined });
    const line = 'x'.repeat(999);
    for (let index = 0; index < 50; index++) collector.push(line);
    expect(collector.total).toBe(50);
    expect(collector.lines.length).toBe(21);
    expect(collector.cut).toBe(false);
  });
});

describe('filesResult', () => {
  it('pages the list and records the limit only when it cut something', () => {
    expect(filesResult(['a', 'b', 'c'], { offset: 1, limit: 1 })).toEqual({
      mode: 'files_with_matches',
      numFiles: 1,
      filenames: ['b'],
      appliedLimit: 1,
      appliedOffset: 1,
    });
    expect(filesResult(['a', 'b'], { offset: 0, limit: 5 })).toEqual({
      mode: 'files_with_matches',
      numFiles: 2,
      filenames: ['a', 'b'],
    });
  });
});

describe('countResult', () => {
  it('totals the shown entries', () => {
    const result = countResult(
      [
        { path: '/a', count: 2 },
        { path: '/b', count: 3 },
      ],
      { offset: 0, limit: undefined },
    );
    expect(result).toEqual({
      mode: 'count',
      numFiles: 2,
      filenames: ['/a', '/b'],
      content: '/a:2\n/b:3',
      numMatches: 5,
    });
  });
});

describe('renderGrepText', () => {
  it('renders an error as itself', () => {
    expect(renderGrepText({ mode: 'content', numFiles: 0, filenames: [], error: 'bad' })).toBe(
      'bad',
    );
  });

  it('uses the singular for one file and one occurrence', () => {
    expect(renderGrepText(filesResult(['/a'], { offset: 0, limit: undefined }))).toBe(
      'Found 1 file\n/a',
    );
    const count = countResult([{ path: '/a', count: 1 }], { offset: 0, limit: undefined });
    expect(renderGrepText(count)).toBe('/a:1\n\nFound 1 total occurrence across 1 file.');
  });

  it('appends a warning', () => {
    const output = { ...filesResult([], { offset: 0, limit: 5 }), warning: 'Timed out.' };
    expect(renderGrepText(output)).toBe('No files found\n\nTimed out.');
  });

  it('cuts long text at a line end and counts the lines left out, kept or not', () => {
    const collector = new LineCollector({ offset: 0, limit: undefined });
    for (let index = 0; index < 100; index++) collector.push(`${index} ${'y'.repeat(500)}`);
    const text = renderGrepText(contentResult(collector, { offset: 0, limit: undefined }));
    const [shown, note] = text.split('\n\n');
    expect(shown!.length).toBeLessThanOrEqual(20_000);
    expect(shown!.endsWith('y')).toBe(true);
    expect(note).toBe(`... [${100 - shown!.split('\n').length} lines truncated] ...`);
  });

  it('cuts a long file list the same way', () => {
    const paths = Array.from({ length: 400 }, (_, index) => `/${'d'.repeat(90)}/${index}`);
    const text = renderGrepText(filesResult(paths, { offset: 0, limit: undefined }));
    expect(text).toMatch(/^Found 400 files\n/);
    expect(text).toMatch(/\.\.\. \[\d+ lines truncated\] \.\.\.$/);
  });
});
