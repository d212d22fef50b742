/**
 * Read-before-write (docs/DECISIONS.md #2) and staleness (docs/DECISIONS.md #3) checks shared by Write and Edit.
 * Each returns the message for the model, or undefined when the write may go ahead.
 */
import type { FileStateCache } from '../../file-state.js';
import type { TextFile } from './text-file.js';

export const NOT_READ_MESSAGE = 'File has not been read yet. Read it first before writing to it.';
export const STALE_MESSAGE =
  'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';
export const PARTLY_READ_MESSAGE =
  'File has only been read in part. Read all of it (in several windows with offset and limit if it is long) before overwriting it.';

/** The model must have read the file, and the file must not have changed since. */
export function readStateProblem(
  fileState: FileStateCache,
  path: string,
  file: TextFile,
): string | undefined {
  const freshness = fileState.freshness(path, file.mtimeMs, file.raw);
  if (freshness === 'unread') return NOT_READ_MESSAGE;
  if (freshness === 'stale') return STALE_MESSAGE;
  return undefined;
}

/** Like readStateProblem, and every line must have been seen: Write replaces all of them. */
export function fullReadProblem(
  fileState: FileStateCache,
  path: string,
  file: TextFile,
): string | undefined {
  return (
    readStateProblem(fileState, path, file) ??
    (fileState.isFullyRead(path) ? undefined : PARTLY_READ_MESSAGE)
  );
}
