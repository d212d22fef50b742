/**
 * Glob: file paths matching a glob pattern, newest first.
 *
 * The fixed leading part of the pattern (`src/` in `src/**\/*.ts`, or all of `/abs/dir/` in an
 * absolute pattern) is joined to the directory searched, so that permission checks see the
 * directory actually listed. Like Claude Code's Glob, .gitignore is not applied; hidden files
 * are listed; `.git` internals are not. Symbolic links are not followed. Files Read deny rules
 * cover are left out, with a note saying how many (docs/CC-COMPAT.md §2.4); what the sandbox
 * hides is neither searched nor listed, and its /tmp is its private folder (file/sandbox-reach.ts).
 *
 * The names are matched in the search worker (search/worker-search.ts), not on the main thread:
 * globs become backtracking regular expressions, and `*a*a*a*a*a*a*b` against one long name would
 * hold the event loop (timers, the run's time limit, SIGTERM) for seconds or hours. The same limit
 * as Grep's or the call's abort terminates the worker; a listing stopped by the limit is an error
 * result that says where it was.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { ToolContext, ValidationResult } from '../tool.js';
import { expandPath, permissionPaths } from '../paths.js';
import { readProblem, sandboxName, searchHides, toolPath } from './file/sandbox-reach.js';
import type { ToolResultBlock } from '../../model/types.js';
import { errorCode } from './file/fs-errors.js';
import { hiddenNote, withoutHidden } from './search/hidden-files.js';
import { sortByModificationTime } from './search/path-order.js';
import { SEARCH_TIMEOUT_MS } from './search/types.js';

export const MAX_GLOB_RESULTS = 100;
const TRUNCATION_NOTE = '(Results are truncated. Consider using a more specific path or pattern.)';

const inputSchema = z.object({
  pattern: z
    .string()
    .describe(
      'Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/index.{js,ts}".',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'Directory to search in. Defaults to the project root; leave it out rather than passing "undefined" or "null".',
    ),
});

type GlobInput = z.infer<typeof inputSchema>;

export interface GlobOutput {
  durationMs: number;
  numFiles: number;
  /** Absolute paths, most recently modified first. */
  filenames: string[];
  truncated: boolean;
  /** Matching files left out because Read deny rules cover them; absent when none. */
  hiddenByPermissions?: number;
  /** Why the listing was stopped before it ended (no files are then listed); absent otherwise. */
  error?: string;
}

const description = `Finds files whose paths match a glob pattern, in any size of codebase.

- Patterns like "**/*.js" or "src/**/*.{ts,tsx}" are matched relative to path (default: the project root).
- Returns absolute paths, most recently modified first, at most ${MAX_GLOB_RESULTS}.
- Hidden files are included and .gitignore is not applied; .git internals are left out.
- Use it to find files by name. To search file contents, use Grep.
- Several Glob and Grep calls can go in one turn when you are exploring; they run in parallel.`;

/** The Glob tool, its listing stopped after `timeoutMs` (tests and benchmarks pass a shorter one). */
export const defineGlobTool = (timeoutMs: number) =>
  defineTool<typeof inputSchema, GlobOutput>({
    name: 'Glob',
    description,
    internalInputSchema: inputSchema,
    userFacingName: () => 'Search',
    isReadOnly: () => true,
    isConcurrencySafe: () => true,

    checkPermissions(input, context) {
      const { directory } = resolveSearch(input, context);
      return { access: 'read', ruleContent: directory, paths: permissionPaths(directory) };
    },

    async validateInput(input, context): Promise<ValidationResult> {
      const fail = (message: string): ValidationResult => ({
        result: false,
        message,
        errorCode: 1,
      });
      const base = baseDirectory(input, context);
      const unreachable =
        readProblem('Glob', base, context) ??
        readProblem('Glob', resolveSearch(input, context).directory, context);
      if (unreachable) return fail(unreachable);
      try {
        if (!(await stat(base)).isDirectory()) return fail(`Path is not a directory: ${base}`);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR')
          return fail(`Directory does not exist: ${base}`);
        return fail(
          `Cannot search ${base}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (resolveSearch(input, context).pattern.split('/').includes('..')) {
        return fail(
          'A glob pattern cannot climb out with ".." after a wildcard. Pass the directory to search as path instead.',
        );
      }
      return { result: true };
    },

    async *call(input, context) {
      const started = performance.now();
      const { directory, pattern } = resolveSearch(input, context);
      const timeout = AbortSignal.timeout(timeoutMs);
      // The search worker (and its source) loads on the first listing, not at start-up.
      const listing = (await isDirectory(directory))
        ? await (
            await import('./search/worker-search.js')
          ).globInWorker({ directory, pattern }, AbortSignal.any([context.signal, timeout]))
        : { files: [] };
      context.signal.throwIfAborted();
      if ('stopped' in listing) {
        const error = stoppedMessage(timeoutMs, listing.directory);
        return { data: { ...emptyOutput(started), error } };
      }
      const { visible, hidden } = withoutHidden(listing.files, searchHides(directory, context));
      const sorted = await sortByModificationTime(visible);
      const filenames = sorted.slice(0, MAX_GLOB_RESULTS).map((file) => sandboxName(file, context));
      const data: GlobOutput = {
        ...emptyOutput(started),
        numFiles: filenames.length,
        filenames,
        truncated: sorted.length > MAX_GLOB_RESULTS,
        ...(hidden > 0 && { hiddenByPermissions: hidden }),
      };
      return { data };
    },

    mapToolResultToToolResultBlockParam(output, toolUseId): ToolResultBlock {
      if (output.error !== undefined) {
        return {
          type: 'tool_result',
          tool_use_id: toolUseId,
          content: output.error,
          is_error: true,
        };
      }
      let content = output.numFiles === 0 ? 'No files found' : output.filenames.join('\n');
      if (output.truncated) content += `\n${TRUNCATION_NOTE}`;
      if (output.hiddenByPermissions) content += `\n${hiddenNote(output.hiddenByPermissions)}`;
      return { type: 'tool_result', tool_use_id: toolUseId, content };
    },
  });

export const globTool = defineGlobTool(SEARCH_TIMEOUT_MS);

function emptyOutput(started: number): GlobOutput {
  return {
    durationMs: Math.round(performance.now() - started),
    numFiles: 0,
    filenames: [],
    truncated: false,
  };
}

/** Without ripgrep's engine, a glob with many stars backtracks exponentially on long names. */
function stoppedMessage(timeoutMs: number, directory: string | undefined): string {
  const where =
    directory === undefined
      ? 'before it had read a directory'
      : `while it was matching the names in ${directory.replace(/(?<=.)\/$/, '')}`;
  return [
    `Glob was stopped after ${timeoutMs / 1000} s, ${where}. No files are listed: the listing ends only when every name has been matched.`,
    'A pattern with many stars, like *a*a*a*a*a*a*b, is matched by a backtracking engine that takes exponential time on long names; a very large tree also takes long.',
    'Use fewer wildcards (e.g. *a*b), or pass a narrower path.',
  ].join(' ');
}

function baseDirectory(input: GlobInput, context: ToolContext): string {
  return toolPath(input.path ?? context.projectDir, context);
}

const GLOB_SYNTAX = /[*?[\]{}()!]/;

/**
 * Splits the pattern into the directory its fixed leading segments name and the rest. A
 * pattern without any wildcard keeps its last segment as the pattern.
 */
export function resolveSearch(
  input: GlobInput,
  context: ToolContext,
): { directory: string; pattern: string } {
  const base = baseDirectory(input, context);
  const segments = input.pattern.split('/');
  let firstGlob = segments.findIndex((segment) => GLOB_SYNTAX.test(segment));
  if (firstGlob === -1) firstGlob = segments.length - 1;
  const prefix = segments.slice(0, firstGlob).join('/');
  const pattern = segments.slice(firstGlob).join('/');
  if (prefix === '' && firstGlob === 0) return { directory: base, pattern };
  const fixed = prefix === '' && isAbsolute(input.pattern) ? '/' : prefix;
  const directory = expandPath(fixed, base);
  return { directory: context.sandbox ? context.sandbox.hostPath(directory) : directory, pattern };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
