/**
 * A window of a text file's lines, read in chunks, for files too large to load whole: only the
 * lines asked for are kept; past them the reader only counts line breaks, on the raw bytes for
 * UTF-8 (a 0x0A byte is never part of a longer UTF-8 sequence). The lines are those of
 * `toLf(decodeText(bytes).text).split('\n')` (text-file.ts): BOM left out, CRLF read as LF, a
 * lone CR kept, a final line break followed by one empty line. A kept line longer than
 * `maxLineLength` is kept cut to that length, with its full length, so that one huge line costs no
 * more than a short one.
 */
import { openRegularFile } from '../../../util/regular-file.js';
import { StringDecoder } from 'node:string_decoder';
import { detectEncoding } from './text-file.js';

const CHUNK_BYTES = 256 * 1024;
const LF = 0x0a;

export interface LineWindow {
  /** The lines from `firstLine` on, at most `limit` of them, without their line breaks. */
  lines: string[];
  /** The lines that were cut, by index in `lines`, with their full length in characters. */
  cut: Array<{ index: number; length: number }>;
  totalLines: number;
}

export interface WindowOptions {
  maxLineLength: number;
  signal?: AbortSignal;
}

/** Lines [firstLine, firstLine + limit) of the file, 1-based; checks `signal` between chunks. */
export async function readLineWindow(
  path: string,
  firstLine: number,
  limit: number,
  { maxLineLength, signal }: WindowOptions,
): Promise<LineWindow> {
  const { handle } = await openRegularFile(path);
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const collector = new WindowCollector(firstLine - 1, firstLine - 1 + limit, maxLineLength);
    let decoder: StringDecoder | undefined;
    let utf8 = true;
    let position = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      let chunk = buffer.subarray(0, bytesRead);
      if (decoder === undefined) {
        const encoding = detectEncoding(chunk);
        utf8 = encoding !== 'utf16le';
        decoder = new StringDecoder(utf8 ? 'utf8' : 'utf16le');
        chunk = chunk.subarray(encoding === 'utf8' ? 0 : encoding === 'utf8-bom' ? 3 : 2);
      }
      position += bytesRead;
      if (collector.done && utf8) collector.countBytes(chunk);
      else collector.add(decoder.write(chunk));
    }
    if (decoder !== undefined && !(collector.done && utf8)) collector.add(decoder.end());
    return collector.finish();
  } finally {
    await handle.close();
  }
}

/** Follows the line index through decoded text, keeping the lines in [from, to). */
class WindowCollector {
  private line = 0;
  private pending = '';
  /** The current line's full length so far, and whether its last character is a CR. */
  private pendingLength = 0;
  private pendingCr = false;
  private empty = true;
  private readonly lines: string[] = [];
  private readonly cut: LineWindow['cut'] = [];

  constructor(
    private readonly from: number,
    private readonly to: number,
    private readonly maxLineLength: number,
  ) {}

  get done(): boolean {
    return this.line >= this.to;
  }

  add(text: string) {
    if (text !== '') this.empty = false;
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      const kept = this.line >= this.from && this.line < this.to;
      if (kept) this.keep(text.slice(start, end === -1 ? undefined : end));
      if (end === -1) return;
      if (kept) this.pushLine(true);
      this.line++;
      start = end + 1;
    }
  }

  countBytes(bytes: Buffer) {
    if (bytes.length > 0) this.empty = false;
    for (let index = bytes.indexOf(LF); index !== -1; index = bytes.indexOf(LF, index + 1)) {
      this.line++;
    }
  }

  finish(): LineWindow {
    if (this.empty) return { lines: [], cut: [], totalLines: 0 };
    // The text after the last line break is a line of its own, empty or not, and keeps its CR.
    if (this.line >= this.from && this.line < this.to) this.pushLine(false);
    return { lines: this.lines, cut: this.cut, totalLines: this.line + 1 };
  }

  private keep(segment: string) {
    if (segment === '') return;
    // One character past the limit, so that a line of exactly the limit plus its CR stays whole.
    const room = this.maxLineLength + 1 - this.pending.length;
    if (room > 0) this.pending += segment.length <= room ? segment : segment.slice(0, room);
    this.pendingLength += segment.length;
    this.pendingCr = segment.endsWith('\r');
  }

  /** Ends the current line; before a line break, a CR at its end is part of the break. */
  private pushLine(beforeBreak: boolean) {
    const dropCr = beforeBreak && this.pendingCr;
    const length = this.pendingLength - (dropCr ? 1 : 0);
    if (length > this.maxLineLength) {
      this.cut.push({ index: this.lines.length, length });
      this.lines.push(this.pending.slice(0, this.maxLineLength));
    } else {
      this.lines.push(dropCr ? this.pending.slice(0, -1) : this.pending);
    }
    this.pending = '';
    this.pendingLength = 0;
    this.pendingCr = false;
  }
}
