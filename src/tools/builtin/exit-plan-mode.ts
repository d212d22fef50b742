/**
 * ExitPlanMode: the model presents its plan and asks to leave plan mode (docs/CC-COMPAT.md §3, §2.7).
 *
 * Interactively a person approves the plan. In CI nobody can, so the tool needs a person
 * (requiresUserInteraction) and its request is an ask resolved by the policy like any other
 * (docs/DECISIONS.md #9: `onAsk.tools.ExitPlanMode`, else `onAsk.default`, which is deny). Only when the
 * call is allowed does call() run, and it moves the session out of plan mode for the rest of the
 * run, to the mode the session names for after the plan (`default` unless set).
 *
 * Read-only, so plan mode itself never refuses it; not concurrency-safe, because the calls after
 * it in the same turn must be decided in the new mode, not raced against the switch.
 */
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { ValidationResult } from '../tool.js';
import type { PermissionMode } from '../../permissions/types.js';

const inputSchema = z.object({
  plan: z
    .string()
    .min(1)
    .describe(
      'The plan to carry out, in Markdown: concise, with the steps and the files involved.',
    ),
});

export interface ExitPlanModeOutput {
  plan: string;
  /** The mode the rest of the run is decided in. */
  mode: PermissionMode;
}

export const NOT_IN_PLAN_MODE_MESSAGE =
  'You are not in plan mode. This tool is only for leaving plan mode after presenting a plan; carry on with the task.';

const description = `Presents your plan and asks to leave plan mode, so that you can start making changes.

- Use it only in plan mode, once you have explored enough to know what to change: the plan should name the steps and the files involved.
- Use it only for tasks that need changes (code, files, commands with effects). For research or questions, answer directly instead.
- Whether the plan is approved is decided by the repository's policy. If the call is denied, you stay in plan mode: do not retry, finish by presenting the plan as your answer.
- If it is approved, the result says which permission mode the rest of the run is in.`;

export const exitPlanModeTool = defineTool({
  name: 'ExitPlanMode',
  description,
  internalInputSchema: inputSchema,
  userFacingName: () => 'ExitPlanMode',
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  requiresUserInteraction: () => true,
  // Only a session that starts in plan mode can leave it: elsewhere the tool is noise to the model.
  isEnabled: ({ permissionMode }) => permissionMode === 'plan',

  checkPermissions: () => ({ access: 'other' }),

  async validateInput(_input, context): Promise<ValidationResult> {
    return context.permissionMode?.mode === 'plan'
      ? { result: true }
      : { result: false, message: NOT_IN_PLAN_MODE_MESSAGE, errorCode: 1 };
  },

  async *call(input, context) {
    const state = context.permissionMode;
    // Checked again: hooks ran since validateInput, and the mode is what this call changes.
    if (state?.mode !== 'plan') throw new Error(NOT_IN_PLAN_MODE_MESSAGE);
    state.mode = state.afterPlan === 'plan' ? 'default' : state.afterPlan;
    const data: ExitPlanModeOutput = { plan: input.plan, mode: state.mode };
    return { data };
  },

  mapToolResultToToolResultBlockParam(output, toolUseId) {
    const content = `The policy approved your plan. Plan mode is over: the rest of the run is in ${output.mode} permission mode, so you can start making the changes.\n\nThe approved plan:\n${output.plan}`;
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
});
