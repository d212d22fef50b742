/**
 * The ripgrep engine: one `rg` process per search.
 *
 * rg runs in the searched directory (so that globs with a slash are relative to it, as in the
 * built-in engine) and is given the absolute target, so every path it prints is absolute. File
 * lists and counts use NUL separators so that any file name survives; content output is taken
 * line by line, in `--sort path` order, until the caller has enough, and rg is then stopped.
 *
 * Exit codes: 0 found, 1 found nothing, 2 an error — with output, the error was partial (an
 * unreadable file) and what was found is reported with a warning; without, it is the result.
 * When Read deny rules hide files, a listing run first finds them (ripgrep-hidden.ts).
 */
import { dirname } from 'node:path';
import { runProcess } from '../../../process/run-process.js';
import { findHiddenFiles } from './ripgrep-hidden.js';
import { MAX_COLUMNS } from './types.js';
import type { FileCount, SearchEngine, SearchOutcome, SearchQuery, SearchRun } from './types.js';

const MAX_STDERR_CHARS = 4000;

/**
 * The rg arguments for a query, without the binary. `exclusions` (globs hiding what Read deny
 * rules cover) come after everything that could include a file.
 */
export function ripgrepArgs(query: SearchQuery, exclusions: readonly string[] = []): string[] {
  const args = ['--no-config', '--hidden', '--color', 'never', '--no-heading'];
  if (query.mode === 'files_with_matches') args.push('-l', '--null');
  else if (query.mode === 'count') args.push('-c', '--with-filename', '--null');
  else {
    args.push('--sort', 'path', '--max-columns', String(MAX_COLUMNS), '--max-columns-preview');
    if (query.lineNumbers) args.push('-n');
    if (query.after > 0) args.push('-A', String(query.after));
    if (query.before > 0) args.push('-B', String(query.before));
  }
  if (query.ignoreCase) args.push('-i');
  if (query.multiline) args.push('-U', '--multiline-dotall');
  args.push(...filterArgs(query));
  for (const glob of exclusions) args.push('--glob', glob);
  args.push('-e', query.pattern, '--', query.target);
  return args;
}

/** Which files are searched: type, the model's globs, and never `.git`. */
function filterArgs(query: SearchQuery): string[] {
  const args: string[] = [];
  if (query.type !== undefined) args.push('--type', query.type);
  for (const glob of query.globs) args.push('--glob', glob);
  // Last, so that no glob of the model's can bring the repository's internals back in.
  args.push('--glob', '!.git');
  return args;
}

/** The directory rg runs in: the searched directory, or the searched file's. */
export function ripgrepCwd(query: SearchQuery): string {
  return query.targetIsFile ? dirname(query.target) : query.target;
}

export function ripgrepEngine(binary: string, env: Readonly<Record<string, string>>): SearchEngine {
  return async (query, run) => {
    const hidden = await findHiddenFiles(binary, env, query, run, filterArgs(query));
    const outcome = await search(binary, env, query, run, hidden.globs);
    if (!outcome.ok || hidden.hidden === 0) return outcome;
    // The exclusions did the work; this only guards against a path they failed to express.
    const visible = (path: string) => run.isReadDenied?.(path) !== true;
    return {
      ...outcome,
      paths: outcome.paths.filter(visible),
      counts: outcome.counts.filter((entry) => visible(entry.path)),
      hidden: hidden.hidden,
    };
  };
}

async function search(
  binary: string,
  env: Readonly<Record<string, string>>,
  query: SearchQuery,
  run: SearchRun,
  exclusions: readonly string[],
): Promise<SearchOutcome> {
  let stopped = false;
  let pending = '';
  let sawOutput = false;
  const content = query.mode === 'content';
  const running = runProcess({
    file: binary,
    args: ripgrepArgs(query, exclusions),
    cwd: ripgrepCwd(query),
    env,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    // rg needs no grace: what it has printed is all there is to keep.
    killGraceMs: 0,
    scope: 'process-group',
    // Content lines go to onLine as they come; file lists and counts are read whole.
    ...(content && { maxOutputChars: 0 }),
    maxStderrChars: MAX_STDERR_CHARS,
    onStdout: (chunk) => {
      if (stopped) return;
      sawOutput = true;
      if (!content) return;
      pending += chunk;
      let newline = pending.indexOf('\n');
      let consumed = 0;
      while (newline !== -1) {
        if (!run.onLine(pending.slice(consumed, newline))) {
          stopped = true;
          running.kill();
          return;
        }
        consumed = newline + 1;
        newline = pending.indexOf('\n', consumed);
      }
      pending = pending.slice(consumed);
    },
  });
  const result = await running.result;
  if (run.signal.aborted) throw abortReason(run.signal);
  // Rejects with the spawn error, whose code (ENOENT, EACCES) sends the caller to the built-in
  // engine.
  if (result.outcome === 'failed-to-start') await running.started;
  if (!stopped && pending !== '' && content) run.onLine(pending);
  const timedOut = result.outcome === 'timed-out';
  const code = result.exitSignal ? null : result.exitCode;
  const stderr = result.stderr.text.trim().slice(0, MAX_STDERR_CHARS);
  const found = parseOutput(query, result.stdout.text);
  if (stopped || code === 0 || code === 1) {
    return { ok: true, ...found, ...(timedOut && { warning: timeoutWarning(run.timeoutMs) }) };
  }
  if (timedOut) return { ok: true, ...found, warning: timeoutWarning(run.timeoutMs) };
  if (code === 2 && sawOutput) {
    return { ok: true, ...found, warning: `Some paths could not be searched: ${stderr}` };
  }
  return { ok: false, error: stderr || `ripgrep exited with code ${String(code)}` };
}

function parseOutput(query: SearchQuery, text: string): { paths: string[]; counts: FileCount[] } {
  if (query.mode === 'files_with_matches') {
    return { paths: text.split('\0').filter((path) => path !== ''), counts: [] };
  }
  const counts: FileCount[] = [];
  if (query.mode === 'count') {
    for (const match of text.matchAll(/([^\0]*)\0(\d+)\n/g)) {
      counts.push({ path: match[1]!, count: Number(match[2]) });
    }
  }
  return { paths: [], counts };
}

function timeoutWarning(timeoutMs: number): string {
  return `The search was stopped after ${timeoutMs / 1000} s; results are incomplete.`;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('The search was cancelled');
}
