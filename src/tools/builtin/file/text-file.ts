/**
 * Text files as the file tools see them. Three encodings are recognised by their byte-order mark
 * (UTF-8, UTF-8 with BOM, UTF-16 LE with BOM) and kept on write, so an edit never re-encodes a file.
 *
 * Two forms of the text matter:
 * - `raw`: decoded with the BOM character and line endings as on disk. This is what the file state
 *   records, matching what `FileStateCache.refresh` reads back for UTF-8 files.
 * - `text`: `raw` without the BOM; `toLf(text)` is what the model sees and what Edit matches on.
 */
import { realPathOf } from '../../paths.js';
import { openRegularFile } from '../../../util/regular-file.js';
import { writeWithoutFollowing } from './no-follow-write.js';

export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le';
export type LineEnding = '\n' | '\r\n';

export interface TextFile {
  raw: string;
  text: string;
  encoding: TextEncoding;
  /** The dominant line ending; Edit writes the whole file back with it. */
  lineEnding: LineEnding;
  mtimeMs: number;
}

const BOM = '\uFEFF';
/** How much of a file's head is scanned for NUL bytes to tell binary from text. */
export const BINARY_SNIFF_BYTES = 8192;

export function detectEncoding(bytes: Uint8Array): TextEncoding {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8-bom';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  return 'utf8';
}

export function decodeText(bytes: Buffer): Pick<TextFile, 'raw' | 'text' | 'encoding'> {
  const encoding = detectEncoding(bytes);
  const raw = bytes.toString(encoding === 'utf16le' ? 'utf16le' : 'utf8');
  const text = raw.startsWith(BOM) ? raw.slice(1) : raw;
  return { raw, text, encoding };
}

export function encodeText(text: string, encoding: TextEncoding): { raw: string; bytes: Buffer } {
  if (encoding === 'utf8') return { raw: text, bytes: Buffer.from(text, 'utf8') };
  // A BOM the caller already put in front must not be doubled.
  const raw = BOM + (text.startsWith(BOM) ? text.slice(1) : text);
  return { raw, bytes: Buffer.from(raw, encoding === 'utf16le' ? 'utf16le' : 'utf8') };
}

/** NUL bytes in the head mean binary; UTF-16 text is full of them, so it is exempt. */
export function looksBinary(head: Uint8Array): boolean {
  if (detectEncoding(head) === 'utf16le') return false;
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export function toLf(text: string): string {
  return text.replaceAll('\r\n', '\n');
}

export function detectLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index > 0 && text[index - 1] === '\r') crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

export async function readHead(path: string, length: number): Promise<Buffer> {
  const { handle } = await openRegularFile(path);
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export async function readTextFile(path: string): Promise<TextFile> {
  // stat before reading: a change landing in between then shows up as a moved mtime with the new
  // content recorded, never as an old mtime paired with content the model did not see.
  // From one open descriptor, never a FIFO or a device (regular-file.ts).
  const { handle, info } = await openRegularFile(path);
  try {
    const decoded = decodeText(await handle.readFile());
    return { ...decoded, lineEnding: detectLineEnding(decoded.text), mtimeMs: info.mtimeMs };
  } finally {
    await handle.close();
  }
}

/**
 * Writes text, creating parent directories, never through a symbolic link, and only to
 * `location`: where the permission decision saw the path lead (no-follow-write.ts). Returns the
 * raw text written and the mtime as the file system reports it after the write (never a clock
 * reading, whose resolution may differ).
 */
export async function writeTextFile(
  path: string,
  text: string,
  encoding: TextEncoding,
  location: string = realPathOf(path),
): Promise<{ raw: string; mtimeMs: number }> {
  const { raw, bytes } = encodeText(text, encoding);
  const { mtimeMs } = await writeWithoutFollowing(path, bytes, location);
  return { raw, mtimeMs };
}
