/**
 * Edit: replaces an exact string in a file (or every occurrence of it with replace_all).
 *
 * All checks live in file/edit-plan.ts and run twice: in validateInput, so the model gets its
 * mistakes back before hooks and permissions run, and in call(), on the file as it is then.
 */
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { ToolContext, ValidationResult } from '../tool.js';
import type { EditRequest } from './file/edit-plan.js';
import type { PatchHunk } from './file/structured-patch.js';
import { writeTextFile } from './file/text-file.js';
import { editPermissionRequest, judgedLocation } from './file/file-permission.js';
import { toolPath, writeProblem } from './file/sandbox-reach.js';

// The planning and the diff library load with the first Edit, not at start-up
// (docs/ARCHITECTURE.md, "Start-up").
const loadPlan = () => import('./file/edit-plan.js');
const loadPatch = () => import('./file/structured-patch.js');

const inputSchema = z.object({
  file_path: z
    .string()
    .describe(
      'Absolute path of the file to change (a relative path is taken from the project root).',
    ),
  old_string: z
    .string()
    .describe('The exact text to replace, as it appears in the file without line-number prefixes.'),
  new_string: z.string().describe('The text to put in its place; must differ from old_string.'),
  replace_all: z
    .boolean()
    .default(false)
    .describe('Replace every occurrence of old_string instead of requiring exactly one.'),
});

type EditInput = z.infer<typeof inputSchema>;

export interface EditOutput {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string;
  structuredPatch: PatchHunk[];
  userModified: boolean;
  replaceAll: boolean;
  /** How many occurrences were replaced; 0 when the edit created the file. */
  occurrences: number;
  created: boolean;
}

const description = `Replaces text in a file with an exact string match.

- Read the file first: an edit to a file you have not read, or that changed since you read it, is refused. For a long file it is enough to have read the part you are changing.
- old_string must match the file exactly, including indentation and blank lines. Copy it from the Read output without the line-number prefix (the number and the tab before the text).
- old_string must occur exactly once; include surrounding lines to make it unique, or set replace_all to rename or change every occurrence.
- An empty new_string deletes old_string (with the line break after it, when it ends a line).
- An empty old_string creates a new file with new_string as its content.`;

export const editTool = defineTool({
  name: 'Edit',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'Edit',
  isReadOnly: () => false,
  isConcurrencySafe: () => false,

  checkPermissions: (input, context) => editPermissionRequest(input, input.file_path, context),

  async validateInput(input, context): Promise<ValidationResult> {
    const request = toRequest(input, context);
    const unreachable = writeProblem('Edit', request.path, context);
    if (unreachable) return { result: false, message: unreachable, errorCode: 1 };
    const planned = await (await loadPlan()).planEdit(request, context);
    return planned.ok
      ? { result: true }
      : { result: false, message: planned.message, errorCode: 1 };
  },

  async *call(input, context) {
    const request = toRequest(input, context);
    const unreachable = writeProblem('Edit', request.path, context);
    if (unreachable) throw new Error(unreachable);
    const planned = await (await loadPlan()).planEdit(request, context);
    if (!planned.ok) throw new Error(planned.message);
    const { plan } = planned;
    const location = judgedLocation(input, request.path);
    const written = await writeTextFile(request.path, plan.output, plan.encoding, location);
    context.fileState.recordWrite(request.path, written.raw, written.mtimeMs);
    const data: EditOutput = {
      filePath: request.path,
      oldString: input.old_string,
      newString: input.new_string,
      originalFile: plan.original?.text ?? '',
      structuredPatch: (await loadPatch()).structuredPatch(plan.before, plan.after),
      userModified: false,
      replaceAll: input.replace_all,
      occurrences: plan.original ? plan.occurrences : 0,
      created: plan.original === null,
    };
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId) {
    let content = `The file ${output.filePath} has been updated successfully.`;
    if (output.created) content = `File created successfully at: ${output.filePath}`;
    else if (output.replaceAll) {
      const times = output.occurrences === 1 ? 'occurrence' : 'occurrences';
      content += ` Replaced ${output.occurrences} ${times} of old_string.`;
    }
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
});

function toRequest(input: EditInput, context: ToolContext): EditRequest {
  return {
    path: toolPath(input.file_path, context),
    oldString: input.old_string,
    newString: input.new_string,
    replaceAll: input.replace_all,
  };
}
