/**
 * Write: creates a file or replaces one wholesale.
 *
 * A new file needs nothing; an existing one must have been read in full and be unchanged since
 * (docs/DECISIONS.md #2/#3). The content is written verbatim (no line-ending conversion); an existing
 * file keeps its encoding (BOM, UTF-16). The new state is recorded so the model may edit on.
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { ValidationResult } from '../tool.js';
import { describeError, errorCode } from './file/fs-errors.js';
import { fullReadProblem } from './file/read-guard.js';
import type { PatchHunk } from './file/structured-patch.js';
import { readTextFile, writeTextFile } from './file/text-file.js';
import type { TextFile } from './file/text-file.js';
import { editPermissionRequest, judgedLocation } from './file/file-permission.js';
import { linkProblem } from './file/links.js';
import { writeProblem, toolPath } from './file/sandbox-reach.js';

// The diff library loads with the first change, not at start-up (docs/ARCHITECTURE.md, "Start-up").
const loadPatch = () => import('./file/structured-patch.js');

const inputSchema = z.object({
  file_path: z
    .string()
    .describe(
      'Absolute path of the file to write (a relative path is taken from the project root).',
    ),
  content: z.string().describe('The complete new content of the file.'),
});

export interface WriteOutput {
  type: 'create' | 'update';
  filePath: string;
  content: string;
  structuredPatch: PatchHunk[];
  originalFile: string | null;
  /** Claude Code's flag for content the user changed in its approval dialog; never, in CI. */
  userModified: false;
}

const description = `Writes a file to the local file system, replacing it completely if it exists.

- file_path must be an absolute path. Missing parent directories are created. A symbolic link is not written through.
- To overwrite an existing file you must have read all of it with Read first, and it must not have changed since; otherwise the write is refused.
- To change part of a file, prefer Edit: it sends only the change.
- Create new files only when the task needs them; do not add documentation files unless asked to.
- The content is written exactly as given.`;

export const writeTool = defineTool({
  name: 'Write',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'Write',
  isReadOnly: () => false,
  isConcurrencySafe: () => false,

  checkPermissions: (input, context) => editPermissionRequest(input, input.file_path, context),

  async validateInput(input, context): Promise<ValidationResult> {
    const path = toolPath(input.file_path, context);
    const unreachable = writeProblem('Write', path, context);
    if (unreachable) return { result: false, message: unreachable, errorCode: 1 };
    const existing = await loadExisting(path);
    if (typeof existing === 'string') return { result: false, message: existing, errorCode: 1 };
    if (!existing) return { result: true };
    const problem = fullReadProblem(context.fileState, path, existing);
    return problem ? { result: false, message: problem, errorCode: 2 } : { result: true };
  },

  async *call(input, context) {
    const path = toolPath(input.file_path, context);
    const unreachable = writeProblem('Write', path, context);
    if (unreachable) throw new Error(unreachable);
    const original = await loadExisting(path);
    if (typeof original === 'string') throw new Error(original);
    // Hooks ran between validation and now; a change they or anyone else made must not be lost.
    const problem = original && fullReadProblem(context.fileState, path, original);
    if (problem) throw new Error(problem);
    const encoding = original?.encoding ?? 'utf8';
    const location = judgedLocation(input, path);
    const written = await writeTextFile(path, input.content, encoding, location);
    context.fileState.recordWrite(path, written.raw, written.mtimeMs);
    const data: WriteOutput = {
      type: original ? 'update' : 'create',
      filePath: path,
      content: input.content,
      structuredPatch: original
        ? (await loadPatch()).structuredPatch(original.text, input.content)
        : [],
      originalFile: original ? original.text : null,
      userModified: false,
    };
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId) {
    const content =
      output.type === 'create'
        ? `File created successfully at: ${output.filePath}`
        : `The file ${output.filePath} has been updated successfully.`;
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
});

/** The file as it is now, undefined when there is none, or a message when it cannot be written. */
async function loadExisting(path: string): Promise<TextFile | undefined | string> {
  const link = await linkProblem(path);
  if (link) return link;
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    if (errorCode(error) === 'ENOTDIR') return `Cannot write ${path}: a parent of it is a file.`;
    return `Cannot write ${path}: ${describeError(error)}`;
  }
  if (info.isDirectory()) return `${path} is a directory; give the path of a file inside it.`;
  try {
    return await readTextFile(path);
  } catch (error) {
    return `Cannot write ${path}: ${describeError(error)}`;
  }
}
