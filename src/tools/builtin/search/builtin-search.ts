/**
 * The search engine used when no ripgrep binary is available: walk, filter, read, match, print,
 * with ripgrep's semantics (see walk.ts and file-search.ts).
 *
 * 1. Compile the pattern and the type filter; a bad one is an error result.
 * 2. List the files: the target itself, or a walk under it with ignore files, globs and type;
 *    then leave out (and count) files Read deny rules hide.
 * 3. Read and match the files in walk order, so that content output is ordered like
 *    `rg --sort path` and can stop as soon as the caller has enough lines.
 * Steps 2 and 3 run in a worker thread (worker-search.ts) that a timeout or an abort terminates
 * even inside a match: globs and patterns run on JavaScript's backtracking engine.
 *
 * Binary files (read-searchable.ts): a file with a NUL byte in its first 64 KiB is skipped; a NUL
 * further on ends the searched text at that line. A file named as the target is searched whole,
 * and content mode then says only that it matches, as ripgrep does. Known differences:
 * ripgrep decides at its read-buffer boundaries, so files whose first NUL lies past 64 KiB may
 * show a few lines more or fewer; only the default location of the global git excludes file is
 * read (`core.excludesFile` in git config is not).
 */
import { join } from 'node:path';
import { compileFileType, unknownTypeMessage } from './file-types.js';
import { compileMatcher } from './file-search.js';
import { MAX_FILE_BYTES } from './read-searchable.js';
import type { SearchEngine } from './types.js';
import { searchInWorker, walkInWorker } from './worker-search.js';

export function builtinSearchEngine(env: Readonly<Record<string, string>>): SearchEngine {
  return async (query, run) => {
    try {
      compileMatcher(query);
    } catch (error) {
      return { ok: false, error: regexErrorText(query.pattern, error) };
    }
    const fileType = query.type === undefined ? undefined : compileFileType(query.type);
    if (query.type !== undefined && !fileType) {
      return { ok: false, error: unknownTypeMessage(query.type) };
    }
    const timeout = AbortSignal.timeout(run.timeoutMs);
    const stop = AbortSignal.any([run.signal, timeout]);
    let files = [query.target];
    let unreadable = 0;
    let hidden = 0;
    let walking = false;
    if (!query.targetIsFile) {
      const walked = await walkInWorker(
        {
          kind: 'walk',
          root: query.target,
          globs: query.globs,
          type: query.type,
          excludesFile: globalExcludesFile(env),
        },
        stop,
      );
      walking = walked === undefined;
      const isReadDenied = run.isReadDenied ?? (() => false);
      files = (walked?.files ?? []).filter((path) => !isReadDenied(path));
      unreadable = walked?.unreadable ?? 0;
      hidden = (walked?.files.length ?? 0) - files.length;
    }
    const { paths, counts, problems, stoppedIn } = await searchInWorker(files, query, run, stop);
    run.signal.throwIfAborted();
    problems.unreadable += unreadable;
    const stoppedAt = walking ? 'walking' : stoppedIn;
    const warning = describeProblems(problems, timeout.aborted && { stoppedAt }, run.timeoutMs);
    return { ok: true, paths, counts, ...(warning && { warning }), ...(hidden > 0 && { hidden }) };
  };
}

function globalExcludesFile(env: Readonly<Record<string, string>>): string | undefined {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'git', 'ignore');
  if (env.HOME) return join(env.HOME, '.config', 'git', 'ignore');
  return undefined;
}

function describeProblems(
  problems: { unreadable: number; tooLarge: number },
  timedOut: false | { stoppedAt: string | undefined },
  timeoutMs: number,
): string | undefined {
  const notes: string[] = [];
  if (timedOut) {
    notes.push(`The search was stopped after ${timeoutMs / 1000} s; results are incomplete.`);
    if (timedOut.stoppedAt !== undefined) notes.push(backtrackingNote(timedOut.stoppedAt));
  }
  if (problems.unreadable > 0) notes.push(`${problems.unreadable} paths could not be read.`);
  if (problems.tooLarge > 0) {
    notes.push(
      `${problems.tooLarge} files over ${MAX_FILE_BYTES / 1024 / 1024} MiB were not searched.`,
    );
  }
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/** Without ripgrep, patterns and globs run on JavaScript's backtracking engine; ripgrep's is not. */
function backtrackingNote(where: string): string {
  if (where === 'walking') {
    return 'It was still listing files: the tree is large, or a glob (the glob argument or an ignore file) has so many stars, like *a*a*a*a*a*a*b, that the backtracking engine used without ripgrep takes exponential time on long names. Narrow the search or simplify the glob.';
  }
  return `It was still matching ${where}: without ripgrep the pattern runs on a backtracking engine, where nested or overlapping repetition such as (a|aa)+ can take exponential time on a long line. Simplify the pattern or narrow the search.`;
}

/** Shaped like ripgrep's message: the pattern, then the reason. */
function regexErrorText(pattern: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  return `regex parse error:\n    ${pattern}\nerror: ${reason}`;
}
