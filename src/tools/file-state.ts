/**
 * What the model has seen of each file, for the read-before-write and staleness guards
 * (docs/DECISIONS.md #2 and #3). Keyed by absolute path.
 *
 * A record keeps the line ranges the model has read and the file's mtime and content at that
 * moment. A file counts as fully read when the ranges cover every line. Our own writes (Edit,
 * Write) record the new content as fully known; PostToolUse hooks that rewrite a file (formatters)
 * call `refresh` so that the next edit is not refused as stale.
 */
import { openRegularFile } from '../util/regular-file.js';

export interface FileReadRecord {
  /**
   * File text as last seen (CRLF kept); compared when the mtime moved. Undefined for a file read
   * in part without loading it (Read of a large file): then only the mtime tells its versions
   * apart, and a moved mtime is stale.
   */
  content: string | undefined;
  mtimeMs: number;
  /** 1-based inclusive line ranges the model has seen, merged and sorted. */
  ranges: Array<[number, number]>;
  totalLines: number;
}

export type Freshness = 'unread' | 'fresh' | 'stale';

export class FileStateCache {
  private readonly records = new Map<string, FileReadRecord>();

  get(path: string): FileReadRecord | undefined {
    return this.records.get(path);
  }

  /** Records that the model saw lines [startLine, endLine] of `content`. */
  recordRead(path: string, content: string, mtimeMs: number, startLine: number, endLine: number) {
    const totalLines = countLines(content);
    const previous = this.records.get(path);
    const sameVersion = previous?.content === content;
    const ranges = sameVersion ? [...previous.ranges] : [];
    if (endLine >= startLine) ranges.push([startLine, endLine]);
    this.records.set(path, { content, mtimeMs, ranges: mergeRanges(ranges), totalLines });
  }

  /** Records that the model saw lines [startLine, endLine] of a file too large to keep in memory. */
  recordPartialRead(
    path: string,
    mtimeMs: number,
    startLine: number,
    endLine: number,
    totalLines: number,
  ) {
    const previous = this.records.get(path);
    const sameVersion = previous?.content === undefined && previous?.mtimeMs === mtimeMs;
    const ranges = sameVersion ? [...previous.ranges] : [];
    if (endLine >= startLine) ranges.push([startLine, endLine]);
    this.records.set(path, {
      content: undefined,
      mtimeMs,
      ranges: mergeRanges(ranges),
      totalLines,
    });
  }

  /** Records content the system itself wrote: the model knows all of it. */
  recordWrite(path: string, content: string, mtimeMs: number) {
    const totalLines = countLines(content);
    this.records.set(path, {
      content,
      mtimeMs,
      ranges: [[1, Math.max(totalLines, 1)]],
      totalLines,
    });
  }

  /** After a hook rewrote a file the model knew: take the new content as known. */
  async refresh(path: string): Promise<void> {
    if (!this.records.has(path)) return;
    try {
      const { handle, info } = await openRegularFile(path);
      try {
        this.recordWrite(path, await handle.readFile({ encoding: 'utf8' }), info.mtimeMs);
      } finally {
        await handle.close();
      }
    } catch {
      this.records.delete(path);
    }
  }

  delete(path: string) {
    this.records.delete(path);
  }

  /** Whether every line of the file was seen in the recorded version. */
  isFullyRead(path: string): boolean {
    const record = this.records.get(path);
    if (!record) return false;
    return coversRange(record.ranges, 1, Math.max(record.totalLines, 1));
  }

  /** Whether lines [startLine, endLine] (1-based) were seen. */
  hasSeenLines(path: string, startLine: number, endLine: number): boolean {
    const record = this.records.get(path);
    return record ? coversRange(record.ranges, startLine, endLine) : false;
  }

  /**
   * Compares the file on disk with what was recorded. A moved mtime with identical content is
   * fresh (touch, checkout of the same blob).
   */
  freshness(path: string, currentMtimeMs: number, currentContent: string): Freshness {
    const record = this.records.get(path);
    if (!record) return 'unread';
    if (record.mtimeMs === currentMtimeMs) return 'fresh';
    return record.content === currentContent ? 'fresh' : 'stale';
  }
}

export function countLines(content: string): number {
  if (content === '') return 0;
  let lines = 1;
  for (let index = content.indexOf('\n'); index !== -1; index = content.indexOf('\n', index + 1)) {
    lines++;
  }
  return lines;
}

function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

function coversRange(ranges: Array<[number, number]>, start: number, end: number): boolean {
  return ranges.some(([from, to]) => from <= start && to >= end);
}
