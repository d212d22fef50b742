/**
 * The Grep tool's structured result and its text for the model, the same for both engines.
 *
 * Paging: `offset` entries are skipped and at most `head_limit` shown, where an entry is a file
 * (files_with_matches), an output line (content) or a `path:N` line (count). A note says when the
 * limit cut the list. Text beyond 20 000 characters is cut at a line end with a count of the
 * lines left out.
 */
import { hiddenNote } from './hidden-files.js';
import type { FileCount, OutputMode } from './types.js';

export const DEFAULT_HEAD_LIMIT = 250;
export const MAX_RESULT_CHARS = 20_000;

export interface GrepOutput {
  mode: OutputMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  /** The head_limit, when it left results out. */
  appliedLimit?: number;
  /** The offset, when one was given. */
  appliedOffset?: number;
  /** Set when the search could not run (bad pattern, unknown type): the result is an error. */
  error?: string;
  /** Why the results may be incomplete. */
  warning?: string;
  /** Files left out of the search because Read deny rules cover them; absent when none. */
  hiddenByPermissions?: number;
}

export interface Paging {
  offset: number;
  /** undefined: no limit. */
  limit: number | undefined;
}

/** Content mode: takes output lines as the engine produces them and says when it has enough. */
export class LineCollector {
  readonly lines: string[] = [];
  /** Lines taken after the offset, including those past the character budget. */
  total = 0;
  cut = false;
  private skipped = 0;
  private storedChars = 0;

  constructor(private readonly paging: Paging) {}

  readonly push = (line: string): boolean => {
    if (this.skipped < this.paging.offset) {
      this.skipped++;
      return true;
    }
    if (this.paging.limit !== undefined && this.total >= this.paging.limit) {
      this.cut = true;
      return false;
    }
    this.total++;
    // Past the budget the text will be cut anyway: keep counting, stop keeping.
    if (this.storedChars <= MAX_RESULT_CHARS) {
      this.lines.push(line);
      this.storedChars += line.length + 1;
    }
    return true;
  };
}

export function contentResult(collector: LineCollector, paging: Paging): GrepOutput {
  return {
    mode: 'content',
    numFiles: 0,
    filenames: [],
    content: collector.lines.join('\n'),
    numLines: collector.total,
    ...pagingFields(paging, collector.cut),
  };
}

/** `sortedPaths` newest first. */
export function filesResult(sortedPaths: readonly string[], paging: Paging): GrepOutput {
  const { shown, cut } = page(sortedPaths, paging);
  return {
    mode: 'files_with_matches',
    numFiles: shown.length,
    filenames: shown,
    ...pagingFields(paging, cut),
  };
}

/** `sortedCounts` in path order. */
export function countResult(sortedCounts: readonly FileCount[], paging: Paging): GrepOutput {
  const { shown, cut } = page(sortedCounts, paging);
  return {
    mode: 'count',
    numFiles: shown.length,
    filenames: shown.map((entry) => entry.path),
    content: shown.map((entry) => `${entry.path}:${entry.count}`).join('\n'),
    numMatches: shown.reduce((total, entry) => total + entry.count, 0),
    ...pagingFields(paging, cut),
  };
}

export function renderGrepText(output: GrepOutput): string {
  if (output.error !== undefined) return output.error;
  let text: string;
  if (output.mode === 'files_with_matches') {
    text =
      output.numFiles === 0
        ? 'No files found'
        : `Found ${plural(output.numFiles, 'file')}\n${cutText(output.filenames.join('\n'), output.numFiles)}`;
  } else if (output.mode === 'content') {
    const content = output.content ?? '';
    text = content === '' ? 'No matches found' : cutText(content, output.numLines ?? 0);
  } else {
    text =
      output.numFiles === 0
        ? 'No matches found'
        : `${cutText(output.content ?? '', output.numFiles)}\n\nFound ${plural(output.numMatches ?? 0, 'total occurrence')} across ${plural(output.numFiles, 'file')}.`;
  }
  if (output.appliedLimit !== undefined) {
    const offset = output.appliedOffset ?? 0;
    const unit = plural(output.appliedLimit, output.mode === 'content' ? 'line' : 'file');
    text += `\n\n[Limited to ${unit}${offset > 0 ? ` after skipping ${offset}` : ''}. Pass offset: ${offset + output.appliedLimit} to see the next ones, or narrow the search.]`;
  }
  if (output.hiddenByPermissions) text += `\n\n${hiddenNote(output.hiddenByPermissions)}`;
  if (output.warning !== undefined) text += `\n\n${output.warning}`;
  return text;
}

function page<T>(entries: readonly T[], paging: Paging): { shown: T[]; cut: boolean } {
  const end = paging.limit === undefined ? entries.length : paging.offset + paging.limit;
  return { shown: entries.slice(paging.offset, end), cut: end < entries.length };
}

function pagingFields(paging: Paging, cut: boolean) {
  return {
    ...(cut && paging.limit !== undefined && { appliedLimit: paging.limit }),
    ...(paging.offset > 0 && { appliedOffset: paging.offset }),
  };
}

/** Cuts `body` (of `totalLines` lines, some perhaps not in it) to the character budget. */
function cutText(body: string, totalLines: number): string {
  let shown = body;
  if (shown.length > MAX_RESULT_CHARS) {
    const lastBreak = shown.lastIndexOf('\n', MAX_RESULT_CHARS);
    shown = shown.slice(0, lastBreak > 0 ? lastBreak : MAX_RESULT_CHARS);
  }
  const shownLines = shown === '' ? 0 : shown.split('\n').length;
  const omitted = totalLines - shownLines;
  return omitted > 0 ? `${shown}\n\n... [${omitted} lines truncated] ...` : shown;
}

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
