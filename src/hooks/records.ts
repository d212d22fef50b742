/** HookRunRecord: one per handler per firing, whether it ran or not (docs/DECISIONS.md #7). */
import type { HookEventName } from './config.js';
import type { HookProcessResult } from './hook-process.js';
import type { Interpretation, PlannedHandler } from './interpret.js';
import type { HookRunRecord, HookRunStatus } from './types.js';

const STDERR_EXCERPT_CHARS = 1_000;

const STATUS: Readonly<Record<HookProcessResult['status'], HookRunStatus>> = {
  exited: 'completed',
  'timed-out': 'timed-out',
  aborted: 'aborted',
  'failed-to-start': 'failed-to-start',
};

export interface RecordContext {
  event: HookEventName;
  toolName?: string;
  toolUseId?: string;
}

/** `result` is absent for a handler that was never started. */
export function recordOf(
  context: RecordContext,
  handler: PlannedHandler,
  result: HookProcessResult | undefined,
  interpretation: Interpretation,
): HookRunRecord {
  const stderr = result?.stderr.trim() ?? '';
  const { decision, error, verdict } = interpretation;
  return {
    event: context.event,
    matcher: handler.matcher,
    command: handler.command,
    exitCode: result?.exitCode ?? null,
    durationMs: result?.durationMs ?? 0,
    status: result ? STATUS[result.status] : 'skipped',
    ...(decision ? { decision } : {}),
    ...(error ? { error } : {}),
    ...(stderr ? { stderrExcerpt: stderr.slice(0, STDERR_EXCERPT_CHARS) } : {}),
    ...(verdict.systemMessage ? { systemMessage: verdict.systemMessage } : {}),
    source: handler.source,
    ...(handler.required ? { required: true } : {}),
    ...(context.toolName ? { toolName: context.toolName } : {}),
    ...(context.toolUseId ? { toolUseId: context.toolUseId } : {}),
  };
}
