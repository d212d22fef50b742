import { describe, expect, it } from 'vitest';
import {
  splitLines,
  structuredPatch,
} from '../../../../src/tools/builtin/file/structured-patch.js';
import type { PatchHunk } from '../../../../src/tools/builtin/file/structured-patch.js';

/** Applies hunks to a text: the patch is right if this gives back the new text. */
function applyPatch(oldText: string, hunks: readonly PatchHunk[]): string {
  const oldLines = splitLines(oldText);
  const out: string[] = [];
  let cursor = 0;
  for (const hunk of hunks) {
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    while (cursor < start) out.push(oldLines[cursor++]!);
    hunk.lines.forEach((line, index) => {
      if (line.startsWith('\\')) return;
      const terminator = hunk.lines[index + 1]?.startsWith('\\') ? '' : '\n';
      if (line.startsWith(' ')) out.push(oldLines[cursor++]!);
      else if (line.startsWith('-')) cursor++;
      else out.push(line.slice(1) + terminator);
    });
  }
  while (cursor < oldLines.length) out.push(oldLines[cursor++]!);
  return out.join('');
}

function lines(count: number, change: (index: number) => string | undefined = () => undefined) {
  return Array.from({ length: count }, (_, index) => `${change(index) ?? `l${index + 1}`}\n`).join(
    '',
  );
}

describe('structuredPatch', () => {
  it('returns no hunks for identical texts', () => {
    expect(structuredPatch('a\nb\n', 'a\nb\n')).toEqual([]);
  });

  it('surrounds a change with up to three lines of context', () => {
    const before = lines(10);
    const after = lines(10, (index) => (index === 4 ? 'X' : undefined));
    expect(structuredPatch(before, after)).toEqual([
      {
        oldStart: 2,
        oldLines: 7,
        newStart: 2,
        newLines: 7,
        lines: [' l2', ' l3', ' l4', '-l5', '+X', ' l6', ' l7', ' l8'],
      },
    ]);
  });

  it('keeps distant changes in separate hunks and merges close ones', () => {
    const before = lines(30);
    const far = structuredPatch(
      before,
      lines(30, (i) => (i === 2 || i === 20 ? 'X' : undefined)),
    );
    expect(far.map((hunk) => [hunk.oldStart, hunk.oldLines])).toEqual([
      [1, 6],
      [18, 7],
    ]);
    const near = structuredPatch(
      before,
      lines(30, (i) => (i === 2 || i === 8 ? 'X' : undefined)),
    );
    expect(near).toHaveLength(1);
  });

  it('numbers an insertion into an empty text from line 0', () => {
    expect(structuredPatch('', 'x\ny\n')).toEqual([
      { oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ['+x', '+y'] },
    ]);
  });

  it('marks a last line without a newline', () => {
    expect(structuredPatch('a', 'a\n')).toEqual([
      {
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        lines: ['-a', '\\ No newline at end of file', '+a'],
      },
    ]);
  });

  it('shows CRLF lines without their carriage return', () => {
    expect(structuredPatch('a\r\n', 'b\r\n')[0]?.lines).toEqual(['-a', '+b']);
  });

  it('counts a changed line ending as a change', () => {
    expect(structuredPatch('a\r\nb\n', 'a\nb\n')[0]?.lines).toEqual(['-a', '+a', ' b']);
  });

  it('gives a patch that reproduces the new text for many random pairs', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const text = () =>
      Array.from({ length: Math.floor(random() * 12) }, () =>
        'abc'.charAt(Math.floor(random() * 3)),
      )
        .map((line) => `${line}\n`)
        .join('') + (random() < 0.2 ? 'tail' : '');
    for (let round = 0; round < 500; round++) {
      const before = text();
      const after = text();
      expect(applyPatch(before, structuredPatch(before, after))).toBe(after);
    }
  });

  it('finds the minimal change between similar texts', () => {
    const hunks = structuredPatch('a\nb\nc\nd\n', 'b\nc\nx\nd\ne\n');
    expect(hunks[0]?.lines).toEqual(['-a', ' b', ' c', '+x', ' d', '+e']);
  });

  it('still gives a correct patch when the texts differ too much for a minimal one', () => {
    const before = Array.from({ length: 1500 }, (_, i) => `old ${i}\n`).join('');
    const after = Array.from({ length: 1500 }, (_, i) => `new ${i}\n`).join('');
    const hunks = structuredPatch(`same\n${before}same\n`, `same\n${after}same\n`);
    expect(hunks).toHaveLength(1);
    expect(hunks[0]).toMatchObject({ oldStart: 1, oldLines: 1502, newStart: 1, newLines: 1502 });
    expect(applyPatch(`same\n${before}same\n`, hunks)).toBe(`same\n${after}same\n`);
  });

  it('marks a missing final newline in the patch it gives when the texts differ too much', () => {
    const before = Array.from({ length: 1500 }, (_, i) => `old ${i}\n`).join('');
    const after = Array.from({ length: 1500 }, (_, i) => `new ${i}\n`).join('');
    const oldText = `a\nb\nc\nd\n${before}end`;
    const newText = `a\nb\nc\nd\n${after}end\n`;
    const hunks = structuredPatch(oldText, newText);
    expect(hunks).toHaveLength(1);
    expect(hunks[0]).toMatchObject({ oldStart: 2, oldLines: 1504, newStart: 2, newLines: 1504 });
    expect(hunks[0]?.lines.slice(0, 4)).toEqual([' b', ' c', ' d', '-old 0']);
    expect(hunks[0]?.lines.at(-1)).toBe('+end');
    expect(hunks[0]?.lines).toContain('\\ No newline at end of file');
    expect(applyPatch(oldText, hunks)).toBe(newText);
  });
});
