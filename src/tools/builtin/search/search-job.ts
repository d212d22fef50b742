/**
 * The steps of the built-in search and of the Glob tool that run what the model and the
 * repository wrote, in a worker thread (search-worker.ts):
 * - walk: list the files under the target, with ignore files, the `glob` argument and the type
 *   filter (globs are regular expressions too, and some backtrack, e.g. `*a*a*a*a*a*a*b`);
 * - match: read each listed file, match the model's regular expression, print what ripgrep would
 *   print, posting a message per result so that the main thread keeps whatever was found when it
 *   stops the worker (timeout, abort, or enough lines); the index of the file being searched is
 *   kept in `progress`, so that a stopped search can say where it was;
 * - glob: the Glob tool's listing, keeping the directory whose names are being matched in
 *   `progress`, so that a stopped listing can say where it was.
 */
import { readdirSync } from 'node:fs';
import { globSync } from 'tinyglobby';
import { compileFileType } from './file-types.js';
import { compileMatcher, countMatches, printGroups, searchText } from './file-search.js';
import { compileOverrides } from './glob-patterns.js';
import { loadLayerChain } from './ignore-layers.js';
import { readSearchable } from './read-searchable.js';
import type { SearchQuery } from './types.js';
import { walkFiles } from './walk.js';

export interface WalkJob {
  kind: 'walk';
  root: string;
  globs: readonly string[];
  type: string | undefined;
  /** The global git excludes file, if there is one to read. */
  excludesFile: string | undefined;
}

export interface MatchJob {
  kind: 'match';
  files: readonly string[];
  query: SearchQuery;
  /** One Int32 slot: the index in `files` of the file being searched. */
  progress: SharedArrayBuffer;
}

export interface GlobJob {
  kind: 'glob';
  /** Absolute; the pattern is matched relative to it. */
  directory: string;
  pattern: string;
  /** An Int32 byte length, then the UTF-8 bytes of the directory being matched (see below). */
  progress: SharedArrayBuffer;
}

export type SearchJob = WalkJob | MatchJob | GlobJob;

export type JobMessage =
  | { kind: 'walked'; files: string[]; unreadable: number }
  | { kind: 'match'; path: string }
  | { kind: 'count'; path: string; count: number }
  | { kind: 'lines'; lines: string[] }
  | { kind: 'problem'; problem: 'unreadable' | 'tooLarge' }
  | { kind: 'globbed'; files: string[] }
  | { kind: 'done' }
  | { kind: 'failed'; message: string };

export async function runWalkJob(job: WalkJob, post: (message: JobMessage) => void) {
  const walk = await walkFiles({
    root: job.root,
    rootLayer: await loadLayerChain(job.root, job.excludesFile),
    overrides: compileOverrides(job.globs),
    // The main thread checked the type name already.
    fileType: job.type === undefined ? undefined : compileFileType(job.type),
    // The main thread stops a walk by terminating the worker.
    signal: new AbortController().signal,
  });
  post({ kind: 'walked', files: walk.files, unreadable: walk.unreadable });
  post({ kind: 'done' });
}

export function runGlobJob(job: GlobJob, post: (message: JobMessage) => void): void {
  // Synchronous: the worker has nothing else to do, and a crawl without a callback per
  // directory is faster.
  const files = globSync(job.pattern, {
    cwd: job.directory,
    absolute: true,
    dot: true,
    onlyFiles: true,
    expandDirectories: false,
    followSymbolicLinks: false,
    ignore: ['**/.git/**'],
    // The crawler matches a directory's names as soon as it has read them, so the last
    // directory read is the one whose names are being matched.
    fs: {
      readdirSync: ((path: string, options: object) => {
        const entries = readdirSync(path, options as { withFileTypes: true });
        writeProgress(job.progress, path);
        return entries;
      }) as typeof readdirSync,
    },
  });
  post({ kind: 'globbed', files });
  post({ kind: 'done' });
}

/** A shared buffer, not a message per directory: the main thread reads it only once stopped. */
export const GLOB_PROGRESS_BYTES = 4 + 4096;

function writeProgress(progress: SharedArrayBuffer, directory: string): void {
  // Buffer.write stops before a character that does not fit whole.
  const length = Buffer.from(progress, 4).write(directory, 'utf8');
  Atomics.store(new Int32Array(progress, 0, 1), 0, length);
}

export function readProgress(progress: SharedArrayBuffer): string | undefined {
  const length = Atomics.load(new Int32Array(progress, 0, 1), 0);
  return length === 0 ? undefined : Buffer.from(progress, 4, length).toString('utf8');
}

export function runMatchJob(job: MatchJob, post: (message: JobMessage) => void): void {
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
