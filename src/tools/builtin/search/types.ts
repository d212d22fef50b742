/**
 * What the Grep tool asks of a search engine, and what an engine hands back. Both engines (ripgrep
 * and the built-in walk) take the same query and must produce the same results for it.
 */

export type OutputMode = 'files_with_matches' | 'content' | 'count';

export interface SearchQuery {
  /** A ripgrep (Rust regex) pattern. */
  pattern: string;
  /** Absolute path of the file or directory searched. */
  target: string;
  targetIsFile: boolean;
  mode: OutputMode;
  /** ripgrep-style globs (gitignore syntax, `!` excludes), relative to the searched directory. */
  globs: readonly string[];
  /** A ripgrep file type name (`js`, `py`, …). */
  type: string | undefined;
  ignoreCase: boolean;
  /** Content mode: prefix lines with their number. */
  lineNumbers: boolean;
  /** Content mode: lines of context before and after each match. */
  before: number;
  after: number;
  /** Let matches span lines, with `.` matching newlines too (rg -U --multiline-dotall). */
  multiline: boolean;
}

export interface FileCount {
  path: string;
  count: number;
}

export interface SearchRun {
  signal: AbortSignal;
  /** Milliseconds before the search is stopped and whatever was found is reported. */
  timeoutMs: number;
  /**
   * Content mode only: receives each output line, in order. Returning false stops the search
   * (the caller has all it will show).
   */
  onLine(line: string): boolean;
  /**
   * Files the policy's Read deny rules hide (ToolContext.isReadDenied): a directory search leaves
   * them out and counts them. A file named as the target was checked by the policy already.
   */
  isReadDenied?: (absolutePath: string) => boolean;
}

export type SearchOutcome =
  | {
      ok: true;
      /** files_with_matches mode: the matching files, in no particular order. */
      paths: string[];
      /** count mode: matching lines per file, in no particular order. */
      counts: FileCount[];
      /** Why the results may be incomplete (timeout, unreadable files), for the model. */
      warning?: string;
      /** Files that would have been searched but Read deny rules hide; absent when none. */
      hidden?: number;
    }
  | { ok: false; error: string };

export type SearchEngine = (query: SearchQuery, run: SearchRun) => Promise<SearchOutcome>;

/** Lines longer than this many bytes are shown as a preview of this many characters. */
export const MAX_COLUMNS = 500;

export const LONG_LINE_SUFFIX = ' [... omitted end of long line]';

/** ripgrep's own wall-clock limit in Claude Code; the built-in engine keeps the same. */
export const SEARCH_TIMEOUT_MS = 10_000;
