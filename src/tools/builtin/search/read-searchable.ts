/**
 * One file's text as the built-in search sees it, with ripgrep's binary and encoding rules: a file
 * with a NUL byte in its first 64 KiB is binary and skipped; a NUL further on ends the searched
 * text at that line; a file named as the target is searched whole and marked by its first NUL.
 * UTF-16 files with a byte order mark are transcoded, a UTF-8 BOM is dropped.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const BINARY_SNIFF_BYTES = 64 * 1024;
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export type Searchable =
  { text: string; binaryOffset: number | undefined } | 'binary' | 'unreadable' | 'too-large';

export function readSearchable(path: string, explicit: boolean): Searchable {
  const bytes = readBytes(path);
  if (typeof bytes === 'string') return bytes;
  const utf16 = decodeUtf16(bytes);
  if (utf16 !== undefined) return { text: utf16, binaryOffset: undefined };
  const nul = bytes.indexOf(0);
  if (nul === -1) return { text: decodeUtf8(bytes), binaryOffset: undefined };
  if (explicit) return { text: decodeUtf8(bytes), binaryOffset: nul };
  if (nul < BINARY_SNIFF_BYTES) return 'binary';
  return {
    text: decodeUtf8(bytes.subarray(0, bytes.lastIndexOf(10, nul) + 1)),
    binaryOffset: undefined,
  };
}

function readBytes(path: string): Buffer | 'unreadable' | 'too-large' {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch {
    return 'unreadable';
  }
  try {
    const size = fstatSync(descriptor).size;
    if (size > MAX_FILE_BYTES) return 'too-large';
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(descriptor, buffer, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } catch {
    return 'unreadable';
  } finally {
    closeSync(descriptor);
  }
}

function decodeUtf8(bytes: Buffer): string {
  const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return (hasBom ? bytes.subarray(3) : bytes).toString('utf8');
}

/** ripgrep transcodes UTF-16 files that start with a byte order mark. */
function decodeUtf16(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const body = Buffer.from(bytes.subarray(2, 2 + ((bytes.length - 2) & ~1)));
    return body.swap16().toString('utf16le');
  }
  return undefined;
}
