/**
 * The built-in search's matching step, the part that runs the model's regular expression: read
 * each listed file, match it, print what ripgrep would print. It runs in a worker thread
 * (search-worker.ts), which posts a message per result so that the main thread keeps whatever was
 * found when it stops the worker (timeout, abort, or enough lines), and stores the index of the
 * file being searched in `progress`, so that a stopped search can say where it was.
 */
import { compileMatcher, countMatches, printGroups, searchText } from './file-search.js';
import { readSearchable } from './read-searchable.js';
import type { SearchQuery } from './types.js';

export interface SearchJob {
  files: readonly string[];
  query: SearchQuery;
  /** One Int32 slot: the index in `files` of the file being searched. */
  progress: SharedArrayBuffer;
}

export type JobMessage =
  | { kind: 'match'; path: string }
  | { kind: 'count'; path: string; count: number }
  | { kind: 'lines'; lines: string[] }
  | { kind: 'problem'; problem: 'unreadable' | 'tooLarge' }
  | { kind: 'done' }
  | { kind: 'failed'; message: string };

export function runSearchJob(job: SearchJob, post: (message: JobMessage) => void): void {
  const { query } = job;
  // The main thread compiled the same pattern already, so this does not throw.
  const matcher = compileMatcher(query);
  const progress = new Int32Array(job.progress);
  const contextEnabled = query.before > 0 || query.after > 0;
  let printedAny = false;
  for (const [index, path] of job.files.entries()) {
    Atomics.store(progress, 0, index);
    const content = readSearchable(path, query.targetIsFile);
    if (content === 'unreadable' || content === 'too-large') {
      post({ kind: 'problem', problem: content === 'unreadable' ? 'unreadable' : 'tooLarge' });
      continue;
    }
    if (content === 'binary') continue;
    const search = searchText(content.text, matcher, query.mode === 'files_with_matches');
    if (search.groups.length === 0) continue;
    if (query.mode === 'files_with_matches') {
      post({ kind: 'match', path });
    } else if (query.mode === 'count') {
      post({ kind: 'count', path, count: countMatches(search) });
    } else {
      const lines =
        content.binaryOffset === undefined
          ? printGroups(search, {
              path: query.targetIsFile ? undefined : path,
              lineNumbers: query.lineNumbers,
              before: query.before,
              after: query.after,
            })
          : [`binary file matches (found "\\0" byte around offset ${content.binaryOffset})`];
      if (contextEnabled && printedAny) lines.unshift('--');
      printedAny = true;
      post({ kind: 'lines', lines });
    }
  }
  post({ kind: 'done' });
}
