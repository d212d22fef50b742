/**
 * The search engine used when no ripgrep binary is available: walk, filter, read, match, print,
 * with ripgrep's semantics (see walk.ts and file-search.ts).
 *
 * 1. Compile the pattern and the type filter; a bad one is an error result.
 * 2. List the files: the target itself, or a walk under it with ignore files, globs and type,
 *    leaving out (and counting) files Read deny rules hide.
 * 3. Read and match the files in walk order, so that content output is ordered like
 *    `rg --sort path` and can stop as soon as the caller has enough lines.
 *
 * Binary files: a file with a NUL byte in its first 64 KiB is skipped; a NUL further on ends the
 * searched text at that line. A file named as the target is searched whole, and content mode
 * then says only that it matches, as ripgrep does. Known differences:
 * ripgrep decides at its read-buffer boundaries, so files whose first NUL lies past 64 KiB may
 * show a few lines more or fewer; only the default location of the global git excludes file is
 * read (`core.excludesFile` in git config is not).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { compileFileType, unknownTypeMessage } from './file-types.js';
import { compileMatcher, countMatches, printGroups, searchText } from './file-search.js';
import type { TextMatcher } from './file-search.js';
import { compileOverrides } from './glob-patterns.js';
import { loadLayerChain } from './ignore-layers.js';
import { walkFiles } from './walk.js';
import type { FileCount, SearchEngine, SearchQuery, SearchRun } from './types.js';

const SLICE_MS = 10;
const BINARY_SNIFF_BYTES = 64 * 1024;
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export function builtinSearchEngine(env: Readonly<Record<string, string>>): SearchEngine {
  return async (query, run) => {
    let matcher: TextMatcher;
    try {
      matcher = compileMatcher(query);
    } catch (error) {
      return { ok: false, error: regexErrorText(query.pattern, error) };
    }
    const fileType = query.type === undefined ? undefined : compileFileType(query.type);
    if (query.type !== undefined && !fileType) {
      return { ok: false, error: unknownTypeMessage(query.type) };
    }
    const timeout = AbortSignal.timeout(run.timeoutMs);
    const stop = AbortSignal.any([run.signal, timeout]);
    const problems = { unreadable: 0, tooLarge: 0 };
    let files = [query.target];
    let hidden = 0;
    if (!query.targetIsFile) {
      const rootLayer = await loadLayerChain(query.target, globalExcludesFile(env));
      const walk = await walkFiles({
        root: query.target,
        rootLayer,
        overrides: compileOverrides(query.globs),
        fileType,
        signal: stop,
        ...(run.isReadDenied && { exclude: run.isReadDenied }),
      });
      files = walk.files;
      problems.unreadable += walk.unreadable;
      hidden = walk.excluded ?? 0;
    }
    const found = await searchFiles(files, query, matcher, run, stop, problems);
    run.signal.throwIfAborted();
    const warning = describeProblems(problems, timeout.aborted, run.timeoutMs);
    return { ok: true, ...found, ...(warning && { warning }), ...(hidden > 0 && { hidden }) };
  };
}

async function searchFiles(
  files: readonly string[],
  query: SearchQuery,
  matcher: TextMatcher,
  run: SearchRun,
  stop: AbortSignal,
  problems: { unreadable: number; tooLarge: number },
) {
  const paths: string[] = [];
  const counts: FileCount[] = [];
  const contextEnabled = query.before > 0 || query.after > 0;
  let printedAny = false;
  let sliceStart = performance.now();
  for (const path of files) {
    // Reads are synchronous (several times faster than promise reads for many small files), so
    // the loop yields every few milliseconds to let other work and the stop signal through.
    if (performance.now() - sliceStart > SLICE_MS) {
      await setImmediate();
      sliceStart = performance.now();
    }
    if (stop.aborted) break;
    const content = readSearchable(path, query.targetIsFile);
    if (content === 'unreadable' || content === 'too-large') {
      problems[content === 'unreadable' ? 'unreadable' : 'tooLarge']++;
      continue;
    }
    if (content === 'binary') continue;
    const search = searchText(content.text, matcher, query.mode === 'files_with_matches');
    if (search.groups.length === 0) continue;
    if (query.mode === 'files_with_matches') {
      paths.push(path);
    } else if (query.mode === 'count') {
      counts.push({ path, count: countMatches(search) });
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
      for (const line of lines) if (!run.onLine(line)) return { paths, counts };
    }
  }
  return { paths, counts };
}

type Searchable =
  { text: string; binaryOffset: number | undefined } | 'binary' | 'unreadable' | 'too-large';

function readSearchable(path: string, explicit: boolean): Searchable {
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

function globalExcludesFile(env: Readonly<Record<string, string>>): string | undefined {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'git', 'ignore');
  if (env.HOME) return join(env.HOME, '.config', 'git', 'ignore');
  return undefined;
}

function describeProblems(
  problems: { unreadable: number; tooLarge: number },
  timedOut: boolean,
  timeoutMs: number,
): string | undefined {
  const notes: string[] = [];
  if (timedOut) {
    notes.push(`The search was stopped after ${timeoutMs / 1000} s; results are incomplete.`);
  }
  if (problems.unreadable > 0) notes.push(`${problems.unreadable} paths could not be read.`);
  if (problems.tooLarge > 0) {
    notes.push(
      `${problems.tooLarge} files over ${MAX_FILE_BYTES / 1024 / 1024} MiB were not searched.`,
    );
  }
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/** Shaped like ripgrep's message: the pattern, then the reason. */
function regexErrorText(pattern: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  return `regex parse error:\n    ${pattern}\nerror: ${reason}`;
}
