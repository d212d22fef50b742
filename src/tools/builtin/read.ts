/**
 * Read: a file's text with line numbers, or an image as an image block.
 *
 * validateInput refuses what cannot be shown (missing, directory, binary, too large); call() reads,
 * records what the model saw in the file state (for Edit/Write, docs/DECISIONS.md #2/#3) and returns the
 * structured result; the mapping renders the numbered view (docs/DECISIONS.md #13).
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import * as z from 'zod';
import { describeKind, readRegularFile } from '../../util/regular-file.js';
import { defineTool } from '../tool.js';
import type { ToolContext, ValidationResult } from '../tool.js';
import type { ToolResultBlock } from '../../model/types.js';
import { imageTypeFromExtension, isBinaryExtension, sniffImageType } from './file/file-kinds.js';
import type { ImageMediaType } from './file/file-kinds.js';
import { describeError, isNotFound } from './file/fs-errors.js';
import { fileNotFoundMessage } from './file/missing-file.js';
import { formatNumberedLines } from './file/numbered-lines.js';
import { BINARY_SNIFF_BYTES, looksBinary, readHead, readTextFile, toLf } from './file/text-file.js';
import { filePermissionRequest } from './file/file-permission.js';
import { inSandboxTerms, readProblem, sandboxName, toolPath } from './file/sandbox-reach.js';
import { isNotebookPath } from './notebook/notebook-file.js';
import { renderNotebook } from './notebook/notebook-view.js';
import type { NotebookReadOutput } from './notebook/notebook-view.js';

// A notebook's reading and a window of lines load with the first call that needs them, not at
// start-up (docs/ARCHITECTURE.md, "Start-up").
const loadNotebookRead = () => import('./notebook/notebook-read.js');

export const MAX_LINES_PER_READ = 2000;
export const MAX_LINE_LENGTH = 2000;
export const MAX_WHOLE_FILE_BYTES = 256 * 1024;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const inputSchema = z.object({
  file_path: z
    .string()
    .describe(
      'Absolute path of the file to read (a relative path is taken from the project root).',
    ),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      '1-based line number to start from. Give it only for files too long to read at once.',
    ),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`How many lines to return, starting at offset (default ${MAX_LINES_PER_READ}).`),
});

export type ReadOutput =
  | {
      type: 'text';
      file: {
        filePath: string;
        /**
         * The lines shown, joined with LF, uncut; except in a file over MAX_WHOLE_FILE_BYTES,
         * whose lines over MAX_LINE_LENGTH are cut there and listed in `cutLines`.
         */
        content: string;
        numLines: number;
        startLine: number;
        totalLines: number;
        /** The lines cut in `content` (1-based line numbers) with their full length. */
        cutLines?: Array<{ line: number; length: number }>;
      };
    }
  | { type: 'image'; file: { base64: string; type: ImageMediaType; originalSize: number } }
  | NotebookReadOutput;

const description = `Reads a file from the local file system and returns its contents.

- file_path must be an absolute path.
- Text comes back one line per row as "<line number><tab><text>". The number and the tab are not part of the file: leave them out of anything you pass to Edit.
- Up to ${MAX_LINES_PER_READ} lines are returned from the start of the file. For longer files, read on with offset (first line, 1-based) and limit (number of lines); a note says where to continue.
- Lines longer than ${MAX_LINE_LENGTH} characters are cut and marked.
- Files over ${MAX_WHOLE_FILE_BYTES / 1024} KiB must be read in parts with offset and limit, or searched with Grep.
- PNG, JPEG, GIF and WebP images are returned as images you can look at.
- Jupyter notebooks (.ipynb) are returned as their cells with outputs; offset and limit do not apply.
- Other binary files are refused. Directories cannot be read: list them with Bash (ls) or find files with Glob.
- You can read several files in one turn by calling this tool more than once; the calls run in parallel.
- A file must be read before you change it with Edit or Write.`;

export const readTool = defineTool<typeof inputSchema, ReadOutput>({
  name: 'Read',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'Read',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,

  checkPermissions: (input, context) => filePermissionRequest(input.file_path, context, 'read'),

  async validateInput(input, context): Promise<ValidationResult> {
    const path = toolPath(input.file_path, context);
    const fail = (message: string): ValidationResult => ({
      result: false,
      message: inSandboxTerms(message, context),
      errorCode: 1,
    });
    const unreachable = readProblem('Read', path, context);
    if (unreachable) return fail(unreachable);
    let info: Stats;
    try {
      info = await stat(path);
    } catch (error) {
      if (isNotFound(error)) return fail(await fileNotFoundMessage(path, context.projectDir));
      return fail(`Cannot read ${path}: ${describeError(error)}`);
    }
    if (info.isDirectory()) {
      return fail(
        `${path} is a directory, not a file. List its contents with Bash (ls) or find files in it with Glob.`,
      );
    }
    if (!info.isFile()) {
      // A FIFO would hold the call (and a thread of the controller's) until someone wrote to
      // it; a device never ends. Checked again on the open descriptor (regular-file.ts).
      return fail(`${path} is ${describeKind(info)}, not a regular file: Read reads files only.`);
    }
    if (imageTypeFromExtension(path)) {
      return info.size > MAX_IMAGE_BYTES
        ? fail(
            `Image is too large to read (${formatSize(info.size)}; the maximum is ${formatSize(MAX_IMAGE_BYTES)}).`,
          )
        : { result: true };
    }
    const notebookCheck = isNotebookPath(path)
      ? await (await loadNotebookRead()).checkNotebookRead(path)
      : undefined;
    if (notebookCheck) return notebookCheck;
    if (isBinaryExtension(path) || looksBinary(await readHead(path, BINARY_SNIFF_BYTES))) {
      return fail(
        `${path} is a binary file and cannot be read as text. Inspect it with a suitable command-line tool through Bash instead.`,
      );
    }
    if (
      input.offset === undefined &&
      input.limit === undefined &&
      info.size > MAX_WHOLE_FILE_BYTES
    ) {
      return fail(
        `File content (${formatSize(info.size)}) exceeds maximum allowed size (${formatSize(MAX_WHOLE_FILE_BYTES)}). Read it in parts with offset and limit, or search it for what you need with Grep.`,
      );
    }
    return { result: true };
  },

  async *call(input, context) {
    const path = toolPath(input.file_path, context);
    // Hooks ran between validation and now, and may have put a link in the way.
    const unreachable = readProblem('Read', path, context);
    if (unreachable) throw new Error(unreachable);
    if (imageTypeFromExtension(path)) {
      const bytes = await readRegularFile(path);
      const type = sniffImageType(bytes) ?? imageTypeFromExtension(path) ?? 'image/png';
      const data: ReadOutput = {
        type: 'image',
        file: { base64: bytes.toString('base64'), type, originalSize: bytes.length },
      };
      return { data };
    }
    const notebook = isNotebookPath(path)
      ? await (await loadNotebookRead()).readNotebookForModel(path, context.fileState)
      : undefined;
    if (notebook) return { data: notebook };
    const startLine = Math.max(input.offset ?? 1, 1);
    const limit = input.limit ?? MAX_LINES_PER_READ;
    const { lines, totalLines, cutLines } = await readWindow(path, startLine, limit, context);
    const data: ReadOutput = {
      type: 'text',
      file: {
        // Hooks run in the sandbox: the name they can open.
        filePath: sandboxName(path, context),
        content: lines.join('\n'),
        numLines: lines.length,
        startLine,
        totalLines,
        ...(cutLines.length > 0 && { cutLines }),
      },
    };
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId): ToolResultBlock {
    if (output.type === 'image') {
      const source = {
        type: 'base64' as const,
        media_type: output.file.type,
        data: output.file.base64,
      };
      return { type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'image', source }] };
    }
    if (output.type === 'notebook') {
      return { type: 'tool_result', tool_use_id: toolUseId, content: renderNotebook(output.file) };
    }
    return { type: 'tool_result', tool_use_id: toolUseId, content: renderText(output.file) };
  },
});

/**
 * The lines asked for, recorded in the file state. A file small enough to be read whole is loaded
 * and recorded with its text; a larger one (only ever read with offset or limit, validateInput
 * sees to that) is streamed, so that one line of a huge file costs one line of memory.
 */
async function readWindow(
  path: string,
  startLine: number,
  limit: number,
  context: ToolContext,
): Promise<{
  lines: string[];
  totalLines: number;
  cutLines: Array<{ line: number; length: number }>;
}> {
  const info = await stat(path);
  const endOf = (lines: string[]) => startLine + lines.length - 1;
  if (info.size > MAX_WHOLE_FILE_BYTES) {
    const { lines, totalLines, cut } = await (
      await import('./file/line-window.js')
    ).readLineWindow(path, startLine, limit, {
      maxLineLength: MAX_LINE_LENGTH,
      signal: context.signal,
    });
    const record = (first: number, last: number) =>
      context.fileState.recordPartialRead(path, info.mtimeMs, first, last, totalLines);
    // As below: an empty file counts as line 1 seen; a window past the end records nothing.
    if (totalLines === 0) record(1, 1);
    else if (lines.length > 0) record(startLine, endOf(lines));
    const cutLines = cut.map(({ index, length }) => ({ line: startLine + index, length }));
    return { lines, totalLines, cutLines };
  }
  const textFile = await readTextFile(path);
  const text = toLf(textFile.text);
  const allLines = text === '' ? [] : text.split('\n');
  const lines = allLines.slice(startLine - 1, startLine - 1 + limit);
  if (allLines.length === 0) {
    // An empty file has been seen whole; record it as line 1 so it counts as fully read.
    context.fileState.recordRead(path, textFile.raw, textFile.mtimeMs, 1, 1);
  } else if (lines.length > 0) {
    context.fileState.recordRead(path, textFile.raw, textFile.mtimeMs, startLine, endOf(lines));
  }
  return { lines, totalLines: allLines.length, cutLines: [] };
}

function renderText(file: Extract<ReadOutput, { type: 'text' }>['file']): string {
  if (file.totalLines === 0) {
    return '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>';
  }
  if (file.numLines === 0) {
    return `<system-reminder>Warning: the file exists but is shorter than the provided offset (${file.startLine}). The file has ${file.totalLines} lines.</system-reminder>`;
  }
  const fullLengths = new Map(file.cutLines?.map(({ line, length }) => [line, length]));
  const numbered = formatNumberedLines(
    file.content.split('\n'),
    file.startLine,
    MAX_LINE_LENGTH,
    fullLengths,
  );
  const endLine = file.startLine + file.numLines - 1;
  // Only a window cut by the default size gets the note: a model that chose its limit knows it
  // asked for part of the file, and the note would be noise in its view.
  if (endLine < file.totalLines && file.numLines === MAX_LINES_PER_READ) {
    return `${numbered}\n\n(Showing lines ${file.startLine}-${endLine} of ${file.totalLines}. To read on, call Read again with offset ${endLine + 1}.)`;
  }
  return numbered;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;
}
