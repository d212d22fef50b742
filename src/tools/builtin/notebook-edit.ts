/**
 * NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook (docs/CC-COMPAT.md §3).
 *
 * The checks live in notebook/notebook-edit-plan.ts and run twice: in validateInput, so the model
 * gets its mistakes back before hooks and permissions run, and in call(), on the file as it is
 * then. Edit(…) rules apply to it (the permission request is the same as Edit's).
 */
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { ToolContext, ValidationResult } from '../tool.js';
import { editPermissionRequest, judgedLocation } from './file/file-permission.js';
import { toolPath, writeProblem } from './file/sandbox-reach.js';
import { writeTextFile } from './file/text-file.js';
import type { EditMode, NotebookEditRequest } from './notebook/notebook-edit-plan.js';
import type { CellType } from './notebook/notebook-file.js';

// The edit's planning loads with the first call, not at start-up (docs/ARCHITECTURE.md, "Start-up").
const loadPlan = () => import('./notebook/notebook-edit-plan.js');

const inputSchema = z.object({
  notebook_path: z
    .string()
    .describe(
      'Absolute path of the .ipynb notebook to change (a relative path is taken from the project root).',
    ),
  cell_id: z
    .string()
    .optional()
    .describe(
      'Id of the cell to replace or delete, as Read shows it. With edit_mode "insert", the new cell goes after this cell, or first when cell_id is left out.',
    ),
  new_source: z
    .string()
    .describe('The new source of the cell (ignored when deleting; pass an empty string).'),
  cell_type: z
    .enum(['code', 'markdown'])
    .optional()
    .describe(
      'The type of the cell. Required with edit_mode "insert"; with "replace" it changes the type, and defaults to the current one.',
    ),
  edit_mode: z
    .enum(['replace', 'insert', 'delete'])
    .optional()
    .describe('What to do: replace the cell (the default), insert a new cell, or delete the cell.'),
});

type NotebookEditInput = z.infer<typeof inputSchema>;

export interface NotebookEditOutput {
  new_source: string;
  cell_id: string;
  cell_type: CellType;
  language: string;
  edit_mode: EditMode;
  notebook_path: string;
  original_file: string;
  updated_file: string;
}

const description = `Changes one cell of a Jupyter notebook (.ipynb file): replaces its source, inserts a new cell, or deletes it.

- Read the notebook first: Read shows each cell with its id. A notebook you have not read in full, or that changed since you read it, is refused.
- notebook_path must be an absolute path.
- edit_mode "replace" (the default) sets the source of the cell named by cell_id; a code cell's outputs and execution count are cleared, because they belonged to the old source. Give cell_type to change the cell's type.
- edit_mode "insert" adds a cell of cell_type after the cell named by cell_id, or at the start of the notebook when cell_id is left out.
- edit_mode "delete" removes the cell named by cell_id.
- Use Edit and Write for other files; Edit refuses notebooks.`;

export const notebookEditTool = defineTool({
  name: 'NotebookEdit',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'NotebookEdit',
  isReadOnly: () => false,
  isConcurrencySafe: () => false,

  checkPermissions: (input, context) => editPermissionRequest(input, input.notebook_path, context),

  async validateInput(input, context): Promise<ValidationResult> {
    const request = toRequest(input, context);
    const unreachable = writeProblem('NotebookEdit', request.path, context);
    if (unreachable) return { result: false, message: unreachable, errorCode: 1 };
    const planned = await (await loadPlan()).planNotebookEdit(request, context);
    return planned.ok
      ? { result: true }
      : { result: false, message: planned.message, errorCode: 1 };
  },

  async *call(input, context) {
    const request = toRequest(input, context);
    const unreachable = writeProblem('NotebookEdit', request.path, context);
    if (unreachable) throw new Error(unreachable);
    const planned = await (await loadPlan()).planNotebookEdit(request, context);
    if (!planned.ok) throw new Error(planned.message);
    const { plan } = planned;
    const location = judgedLocation(input, request.path);
    const written = await writeTextFile(request.path, plan.output, plan.file.encoding, location);
    context.fileState.recordWrite(request.path, written.raw, written.mtimeMs);
    const data: NotebookEditOutput = {
      new_source: input.new_source,
      cell_id: plan.cellId,
      cell_type: plan.cellType,
      language: plan.language,
      edit_mode: request.editMode,
      notebook_path: request.path,
      original_file: plan.file.text,
      updated_file: plan.output,
    };
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId) {
    const content =
      output.edit_mode === 'delete'
        ? `Deleted cell ${output.cell_id}`
        : output.edit_mode === 'insert'
          ? `Inserted cell ${output.cell_id} with ${output.new_source}`
          : `Updated cell ${output.cell_id} with ${output.new_source}`;
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
});

function toRequest(input: NotebookEditInput, context: ToolContext): NotebookEditRequest {
  return {
    path: toolPath(input.notebook_path, context),
    ...(input.cell_id !== undefined && { cellId: input.cell_id }),
    newSource: input.new_source,
    ...(input.cell_type !== undefined && { cellType: input.cell_type }),
    editMode: input.edit_mode ?? 'replace',
  };
}
