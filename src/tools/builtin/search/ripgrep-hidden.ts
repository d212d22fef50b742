/**
 * Read deny rules with the ripgrep engine (docs/CC-COMPAT.md §3 Grep: "Permission-denied paths are
 * excluded via `--glob !...`"). The rules are gitignore-style patterns anchored at several
 * places, which rg's globs cannot all express, so the excluded paths are found rather than
 * translated:
 *
 *   1. `rg --files` with the search's own filters lists what the search would read;
 *   2. the files the rules hide become `--glob !/<path>` (relative to the searched directory, a
 *      whole directory at once when the rules cover all of it), passed after the model's globs so
 *      that none of them can bring a file back;
 *   3. more exclusions than fit a command line, or a list that took too long: the caller
 *      searches with the built-in engine, which filters while it walks.
 */
import { dirname, relative } from 'node:path';
import { runProcess } from '../../../process/run-process.js';
import type { SearchQuery, SearchRun } from './types.js';

/** Exclusion globs beyond this many characters go to the built-in engine instead. */
const MAX_EXCLUSION_CHARS = 100_000;

export class TooManyHiddenFiles extends Error {
  override readonly name = 'TooManyHiddenFiles';
}

export interface HiddenFiles {
  /** `--glob` values excluding the hidden paths. */
  globs: string[];
  /** How many files they hide. */
  hidden: number;
}

export async function findHiddenFiles(
  binary: string,
  env: Readonly<Record<string, string>>,
  query: SearchQuery,
  run: SearchRun,
  filterArgs: readonly string[],
): Promise<HiddenFiles> {
  const isReadDenied = run.isReadDenied;
  if (!isReadDenied || query.targetIsFile) return { globs: [], hidden: 0 };
  const listed = await listFiles(binary, env, query.target, run, filterArgs);
  const hiddenFiles = listed.filter((path) => isReadDenied(path));
  const excluded = new Set<string>();
  const directoryDenied = new Map<string, boolean>();
  const denied = (directory: string) => {
    let answer = directoryDenied.get(directory);
    if (answer === undefined) directoryDenied.set(directory, (answer = isReadDenied(directory)));
    return answer;
  };
  for (const file of hiddenFiles) {
    let top = file;
    for (let directory = dirname(file); isBelow(directory, query.target);) {
      if (denied(directory)) top = directory;
      directory = dirname(directory);
    }
    excluded.add(top);
  }
  const globs = [...excluded].map((path) => `!/${escapeGlob(relative(query.target, path))}`);
  if (globs.reduce((total, glob) => total + glob.length + 8, 0) > MAX_EXCLUSION_CHARS) {
    throw new TooManyHiddenFiles(`${hiddenFiles.length} files are hidden by permission rules`);
  }
  return { globs, hidden: hiddenFiles.length };
}

function isBelow(path: string, root: string): boolean {
  return path.length > root.length && path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** A literal path as an rg glob: metacharacters and a trailing blank escaped. */
function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}]/g, '\\$&').replace(/ $/, '\\ ');
}

async function listFiles(
  binary: string,
  env: Readonly<Record<string, string>>,
  target: string,
  run: SearchRun,
  filterArgs: readonly string[],
): Promise<string[]> {
  const args = ['--no-config', '--hidden', '--files', '--null', ...filterArgs, '--', target];
  const running = runProcess({
    file: binary,
    args,
    cwd: target,
    env,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    killGraceMs: 0,
    maxStderrChars: 0,
    scope: 'process-group',
  });
  const result = await running.result;
  if (run.signal.aborted) {
    const reason: unknown = run.signal.reason;
    throw reason instanceof Error ? reason : new Error('The search was cancelled');
  }
  // Rejects with the spawn error (ENOENT, EACCES), which sends the caller to the built-in engine.
  if (result.outcome === 'failed-to-start') await running.started;
  // A list cut short could miss files the search then reads: let the built-in engine, which
  // filters as it walks, do the search. (An unreadable directory is unreadable to both.)
  if (result.outcome === 'timed-out') {
    throw new TooManyHiddenFiles('listing the files to search took too long');
  }
  return result.stdout.text.split('\0').filter((path) => path !== '');
}
