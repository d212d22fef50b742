import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { readLineWindow } from '../../../../src/tools/builtin/file/line-window.js';
import { decodeText, toLf } from '../../../../src/tools/builtin/file/text-file.js';

// The reader's chunk size: texts around it put characters and CRLF pairs across a boundary.
const CHUNK = 256 * 1024;

/** What Read shows of a small file, loaded whole: the reference the streamed window must match. */
function wholeFileLines(bytes: Buffer): string[] {
  const text = toLf(decodeText(bytes).text);
  return text === '' ? [] : text.split('\n');
}

const utf16 = (text: string) =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

const CASES: Array<[string, Buffer]> = [
  ['an empty file', Buffer.alloc(0)],
  ['a UTF-8 byte-order mark alone', Buffer.from([0xef, 0xbb, 0xbf])],
  ['LF lines with a final line break', Buffer.from('one\ntwo\nthree\n')],
  ['a last line without a line break', Buffer.from('one\ntwo')],
  ['CRLF lines, a lone CR and a final CR', Buffer.from('a\r\nb\rc\r\n\r\nd\r')],
  ['a UTF-8 byte-order mark', Buffer.from('\uFEFFbom\nline\n')],
  ['UTF-16 LE with a byte-order mark', utf16('été\r\nñ\n\n€ end')],
  ['two-byte characters across every chunk boundary', Buffer.from(`x${'é\n'.repeat(CHUNK)}`)],
  [
    'a CRLF split by a chunk boundary',
    Buffer.from(`${'a'.repeat(CHUNK - 1)}\r\n${'b\r\n'.repeat(10)}`),
  ],
  ['UTF-16 LE longer than a chunk', utf16(`${'line ü\r\n'.repeat(CHUNK / 8)}end`)],
];

describe('readLineWindow', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  describe.each(CASES)('on %s', (_name, bytes) => {
    const all = wholeFileLines(bytes);
    const windows: Array<[number, number]> = [
      [1, 1],
      [1, 3],
      [2, 2],
      [Math.max(all.length - 1, 1), 5],
      [all.length + 1, 1],
      [1, all.length + 10],
    ];

    it.each(windows)(
      'gives the lines from %i (%i of them) that the whole text holds',
      async (first, limit) => {
        const path = await workspace.write('file.txt', bytes);
        const window = await readLineWindow(path, first, limit, { maxLineLength: 4 * CHUNK });
        expect(window).toEqual({
          lines: all.slice(first - 1, first - 1 + limit),
          cut: [],
          totalLines: all.length,
        });
      },
    );
  });

  it('keeps a line longer than the limit cut, with its full length', async () => {
    const huge = 'h'.repeat(3 * CHUNK + 5);
    const text = `${'a'.repeat(10)}\r\n${'b'.repeat(11)}\r\n${huge}\r\nshort\n${'c'.repeat(10)}\r`;
    const path = await workspace.write('file.txt', text);
    expect(await readLineWindow(path, 1, 10, { maxLineLength: 10 })).toEqual({
      lines: ['a'.repeat(10), 'b'.repeat(10), 'h'.repeat(10), 'short', 'c'.repeat(10)],
      cut: [
        { index: 1, length: 11 },
        { index: 2, length: huge.length },
        { index: 4, length: 11 },
      ],
      totalLines: 5,
    });
  });

  it('rejects with the abort reason when the call is stopped', async () => {
    const path = await workspace.write('file.txt', 'x\n'.repeat(CHUNK));
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    const reading = readLineWindow(path, 1, 1, { maxLineLength: 10, signal: controller.signal });
    await expect(reading).rejects.toThrow('run cancelled');
  });
});
