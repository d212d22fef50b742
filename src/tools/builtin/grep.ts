/**
 * Grep: a regular-expression search over file contents, with ripgrep's syntax and semantics.
 *
 * The engine is ripgrep when the session found an `rg` binary (ToolContext.ripgrepPath), else the
 * built-in search, which gives the same results (search/builtin-search.ts lists the known
 * differences). The engine reports raw results; this file orders them (files by modification
 * time, counts by path; content comes in path order), pages them and renders the text. Files the
 * policy's Read deny rules cover are not searched; the result says how many were left out. What
 * the sandbox hides is not searched either, and its /tmp is its private folder
 * (file/sandbox-reach.ts): results name files there /tmp/….
 */
import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { describeKind } from '../../util/regular-file.js';
import { defineTool } from '../tool.js';
import type { ToolContext, ValidationResult } from '../tool.js';
import { permissionPaths } from '../paths.js';
import {
  inSandboxTerms,
  readProblem,
  sandboxName,
  searchHides,
  toolPath,
} from './file/sandbox-reach.js';
import type { ToolResultBlock } from '../../model/types.js';
import { errorCode } from './file/fs-errors.js';
import { splitGlobArgument } from './search/glob-patterns.js';
import {
  DEFAULT_HEAD_LIMIT,
  LineCollector,
  contentResult,
  countResult,
  filesResult,
  renderGrepText,
} from './search/grep-result.js';
import type { GrepOutput, Paging } from './search/grep-result.js';
import { comparePaths, sortByModificationTime } from './search/path-order.js';
import { SEARCH_TIMEOUT_MS } from './search/types.js';
import type { SearchOutcome, SearchQuery, SearchRun } from './search/types.js';

const contextLines = (what: string) =>
  z.number().int().nonnegative().optional().describe(`${what} Content mode only.`);

const inputSchema = z.object({
  pattern: z
    .string()
    .describe(
      'Regular expression to look for, in ripgrep (Rust regex) syntax. Escape regex characters to match them literally, e.g. "interface\\{\\}" or "log\\.Error".',
    ),
  path: z
    .string()
    .optional()
    .describe('File or directory to search. Defaults to the project root.'),
  glob: z
    .string()
    .optional()
    .describe(
      'Only search files matching this glob, e.g. "*.ts", "src/**/*.{ts,tsx}" or "!**/*.test.ts". Several globs may be separated by spaces or commas.',
    ),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count'])
    .optional()
    .describe(
      'files_with_matches (default): paths of matching files, most recently modified first. content: the matching lines. count: the number of matching lines per file.',
    ),
  '-B': contextLines('Lines of context to show before each match.'),
  '-A': contextLines('Lines of context to show after each match.'),
  '-C': contextLines('Lines of context to show before and after each match.'),
  context: contextLines('Same as -C.'),
  '-n': z
    .boolean()
    .optional()
    .describe('Prefix each line with its line number (default true). Content mode only.'),
  '-i': z.boolean().optional().describe('Ignore case.'),
  type: z
    .string()
    .optional()
    .describe(
      'Only search files of this ripgrep type, e.g. "js", "ts", "py", "rust", "go", "java", "md". Faster than glob for whole languages.',
    ),
  head_limit: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      `Show at most this many entries (files, lines or count lines). Default ${DEFAULT_HEAD_LIMIT}; 0 means no limit.`,
    ),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Skip this many entries first, to page through long results with head_limit.'),
  multiline: z
    .boolean()
    .optional()
    .describe(
      'Let a match span lines, with "." matching line breaks too (e.g. "struct \\w+ \\{[\\s\\S]*?field"). Default false.',
    ),
});

type GrepInput = z.infer<typeof inputSchema>;

const description = `Searches file contents with a regular expression (ripgrep).

- Use this tool for content searches rather than running grep or rg through Bash.
- Patterns use ripgrep's regex syntax, e.g. "log.*Error" or "function\\s+\\w+". Literal braces and other regex characters must be escaped ("interface\\{\\}").
- By default each line is searched on its own. Set multiline: true to let a pattern span lines.
- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines (with -A/-B/-C context and -n line numbers); "count" gives the number of matching lines per file.
- Narrow the search with glob (e.g. "*.tsx", "src/**/*.{ts,tsx}") or type (e.g. "py", "rust").
- Files ignored by .gitignore, .ignore or .rgignore are skipped; hidden files are searched; binary files are skipped.
- Results are limited to ${DEFAULT_HEAD_LIMIT} entries by default; use head_limit and offset to page, or head_limit: 0 for everything.
- For open-ended searches that may take several rounds, combine Glob and Grep calls in one turn; they run in parallel.`;

export const grepTool = defineTool<typeof inputSchema, GrepOutput>({
  name: 'Grep',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'Search',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,

  checkPermissions(input, context) {
    const path = searchPath(input, context);
    return { access: 'read', ruleContent: path, paths: permissionPaths(path) };
  },

  async validateInput(input, context): Promise<ValidationResult> {
    const path = searchPath(input, context);
    const unreachable = readProblem('Grep', path, context);
    if (unreachable) return { result: false, message: unreachable, errorCode: 1 };
    try {
      const info = await stat(path);
      // ripgrep skips FIFOs and devices it meets in a folder, but reads one it is given
      // (a FIFO: until someone writes to it).
      if (!info.isFile() && !info.isDirectory()) {
        const message = `${path} is ${describeKind(info)}, not a file or a directory: Grep searches files only.`;
        return { result: false, message, errorCode: 1 };
      }
      return { result: true };
    } catch (error) {
      const code = errorCode(error);
      const message =
        code === 'ENOENT' || code === 'ENOTDIR'
          ? `Path does not exist: ${path}`
          : `Cannot search ${path}: ${error instanceof Error ? error.message : String(error)}`;
      return { result: false, message, errorCode: 1 };
    }
  },

  async *call(input, context) {
    const target = searchPath(input, context);
    const query = buildQuery(input, target, (await stat(target)).isFile());
    const paging: Paging = {
      offset: input.offset ?? 0,
      limit: input.head_limit === 0 ? undefined : (input.head_limit ?? DEFAULT_HEAD_LIMIT),
    };
    const collector = new LineCollector(paging);
    const hides = query.targetIsFile ? context.isReadDenied : searchHides(target, context);
    const run: SearchRun = {
      signal: context.signal,
      timeoutMs: SEARCH_TIMEOUT_MS,
      onLine: context.sandbox
        ? (line) => collector.push(inSandboxTerms(line, context))
        : collector.push,
      ...(hides && { isReadDenied: hides }),
    };
    const outcome = await runSearch(query, run, context);
    if (!outcome.ok) {
      return { data: { mode: query.mode, numFiles: 0, filenames: [], error: outcome.error } };
    }
    let data: GrepOutput;
    if (query.mode === 'files_with_matches') {
      const sorted = await sortByModificationTime(outcome.paths);
      data = filesResult(
        sorted.map((path) => sandboxName(path, context)),
        paging,
      );
    } else if (query.mode === 'count') {
      const sorted = outcome.counts
        .map(({ path, count }) => ({ path: sandboxName(path, context), count }))
        .sort((a, b) => comparePaths(a.path, b.path));
      data = countResult(sorted, paging);
    } else {
      data = contentResult(collector, paging);
    }
    if (outcome.warning !== undefined) data.warning = outcome.warning;
    if (outcome.hidden !== undefined) data.hiddenByPermissions = outcome.hidden;
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId): ToolResultBlock {
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: renderGrepText(output),
      ...(output.error !== undefined && { is_error: true }),
    };
  },
});

function searchPath(input: GrepInput, context: ToolContext): string {
  return toolPath(input.path ?? context.projectDir, context);
}

export function buildQuery(input: GrepInput, target: string, targetIsFile: boolean): SearchQuery {
  const mode = input.output_mode ?? 'files_with_matches';
  const around = input['-C'] ?? input.context ?? 0;
  const content = mode === 'content';
  return {
    pattern: input.pattern,
    target,
    targetIsFile,
    mode,
    globs: splitGlobArgument(input.glob),
    type: input.type,
    ignoreCase: input['-i'] ?? false,
    lineNumbers: content && (input['-n'] ?? true),
    before: content ? (input['-B'] ?? around) : 0,
    after: content ? (input['-A'] ?? around) : 0,
    multiline: input.multiline ?? false,
  };
}

// What ripgrep releases older than 12 say about a flag they lack (--max-columns-preview).
const OLD_RIPGREP = /Found argument '[^']*' which wasn't expected|unexpected argument/;

/**
 * ripgrep when there is one; the built-in search when not, when it cannot be started, when it
 * is too old for the flags we pass, or when the files Read deny rules hide are too many to
 * exclude on its command line.
 */
async function runSearch(
  query: SearchQuery,
  run: SearchRun,
  context: ToolContext,
): Promise<SearchOutcome> {
  // Both engines load on the first search, not at start-up (docs/ARCHITECTURE.md, "Start-up").
  const { builtinSearchEngine } = await import('./search/builtin-search.js');
  const builtin = builtinSearchEngine(context.env);
  if (context.ripgrepPath === null) return builtin(query, run);
  const { ripgrepEngine } = await import('./search/ripgrep.js');
  const { TooManyHiddenFiles } = await import('./search/ripgrep-hidden.js');
  let outcome: SearchOutcome;
  try {
    outcome = await ripgrepEngine(context.ripgrepPath, context.env)(query, run);
  } catch (error) {
    const code = errorCode(error);
    const unusable = code === 'ENOENT' || code === 'EACCES' || error instanceof TooManyHiddenFiles;
    if (!unusable) throw error;
    return builtin(query, run);
  }
  return !outcome.ok && OLD_RIPGREP.test(outcome.error) ? builtin(query, run) : outcome;
}
