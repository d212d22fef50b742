/**
 * The parts of a hook's stdin payload that are shaped as Claude Code shapes them (observed in
 * Claude Code 2.1.197 by dumping every event's stdin from `claude -p`): the common fields and
 * their order, and `tool_input`.
 */
import type { PermissionMode } from '../permissions/types.js';
import type { HookEventName } from './config.js';

/** Events whose payload carries `effort`: the tool-context ones and Stop. */
const EFFORT_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SubagentStop',
]);

export interface CommonFieldValues {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  promptId?: string;
  permissionMode: PermissionMode;
  effort: string;
  agent?: { id: string; type: string };
}

/**
 * `session_id, transcript_path, cwd, prompt_id, permission_mode, effort, hook_event_name`, in
 * that order. SessionStart fires before the prompt exists, so it has no `prompt_id`.
 * (Claude Code also leaves `permission_mode` out on SessionStart and SessionEnd; it is kept
 * here, since a hook that does not look for it cannot tell.)
 */
export function commonFields(
  event: HookEventName,
  values: CommonFieldValues,
): Record<string, unknown> {
  return {
    session_id: values.sessionId,
    transcript_path: values.transcriptPath,
    cwd: values.cwd,
    ...(event !== 'SessionStart' &&
      values.promptId !== undefined && { prompt_id: values.promptId }),
    permission_mode: values.permissionMode,
    ...(EFFORT_EVENTS.has(event) && { effort: { level: values.effort } }),
    hook_event_name: event,
    ...(values.agent && { agent_id: values.agent.id, agent_type: values.agent.type }),
  };
}

/**
 * The model's input as sent, except that Claude Code fills in Edit's `replace_all: false` when
 * the model left it out (PreToolUse and PostToolUse alike); no other tool's defaults are filled.
 */
export function toolInputAsSent(toolName: string, input: unknown): unknown {
  if (toolName !== 'Edit' || !isRecord(input) || input.replace_all !== undefined) return input;
  return { ...input, replace_all: false };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
