/**
 * One handler's run → what it decided, per docs/DECISIONS.md #6 and #7:
 *   1. never started, timed out, cancelled, or exited with a code other than 0 and 2: a
 *      non-blocking failure, logged — except a required PreToolUse hook, which then denies;
 *   2. exit 2: blocks, whatever stdout says. The reason is the one a valid blocking JSON on
 *      stdout gives (`decision: "block"` + `reason`, or on PreToolUse `permissionDecision: "deny"`
 *      + `permissionDecisionReason`), else stderr — as Claude Code 2.1.197 does, even when stderr
 *      has text. The rest of a valid JSON (context, systemMessage, `continue`) applies too;
 *   3. exit 0: stdout that starts with `{` is JSON and decides (invalid JSON is a failure as in
 *      1.); plain text is context for SessionStart and UserPromptSubmit, ignored elsewhere.
 */
import type { Behavior } from '../permissions/types.js';
import type { HookEventName } from './config.js';
import type { HookProcessResult } from './hook-process.js';
import type { HookOutput } from './output-schema.js';
import { capText, parseHookStdout } from './output-schema.js';
import type { HookRunDecision } from './types.js';

/** A handler picked for one event firing. */
export interface PlannedHandler {
  command: string;
  /** The command, shortened and quoted, for messages. */
  label: string;
  matcher: string;
  timeoutSeconds: number;
  required: boolean;
  source: string;
}

export interface HandlerVerdict {
  /** PreToolUse only. */
  permission?: { behavior: Behavior; reason?: string };
  /** Exit 2 or `decision: "block"` on the events where that means something (not PreToolUse). */
  block?: { reason: string };
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  stop?: { reason?: string };
  systemMessage?: string;
}

export interface Interpretation {
  verdict: HandlerVerdict;
  decision?: HookRunDecision;
  error?: string;
}

const CONTEXT_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SessionStart',
  'UserPromptSubmit',
]);
const PLAIN_TEXT_CONTEXT_EVENTS: ReadonlySet<HookEventName> = new Set([
  'SessionStart',
  'UserPromptSubmit',
]);
/** Where exit 2 or `decision: "block"` has an effect besides PreToolUse's deny. */
const BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SubagentStop',
  'UserPromptSubmit',
  'PreCompact',
]);

export function interpretRun(
  event: HookEventName,
  handler: PlannedHandler,
  result: HookProcessResult,
): Interpretation {
  const failure = describeFailure(result, handler);
  if (failure !== undefined) return failed(event, handler, failure);

  if (result.exitCode === 2) return blockingExit(event, result);

  const parsed = parseHookStdout(result.stdout, event);
  switch (parsed.kind) {
    case 'empty':
      return { verdict: {} };
    case 'text':
      return PLAIN_TEXT_CONTEXT_EVENTS.has(event)
        ? { verdict: { additionalContext: capText(parsed.text) } }
        : { verdict: {} };
    case 'invalid':
      return failed(event, handler, parsed.error);
    case 'json':
      return fromJson(event, parsed.output);
  }
}

/**
 * Exit 2. A valid JSON on stdout still counts, but cannot lift the block: an `allow` in it, or
 * JSON that fails validation, leaves stderr as the reason (docs/CC-COMPAT.md §1.6).
 */
function blockingExit(event: HookEventName, result: HookProcessResult): Interpretation {
  const stderr = result.stderr.trim();
  const parsed = parseHookStdout(result.stdout, event);
  const output = parsed.kind === 'json' ? parsed.output : undefined;
  const reason = capText(
    (output && jsonBlockReason(event, output)) ||
      stderr ||
      'the hook exited with code 2 and gave no reason',
  );
  // What the JSON says besides its decision: context, systemMessage, `continue: false`.
  const rest: HandlerVerdict = output ? fromJson(event, output).verdict : {};
  delete rest.permission;
  delete rest.updatedInput;
  delete rest.block;
  if (event === 'PreToolUse') {
    const verdict: HandlerVerdict = { ...rest, permission: { behavior: 'deny', reason } };
    return { verdict, decision: decisionOf(verdict) };
  }
  if (BLOCKING_EVENTS.has(event)) {
    const verdict: HandlerVerdict = { ...rest, block: { reason } };
    return { verdict, decision: decisionOf(verdict) };
  }
  // SessionStart / SessionEnd cannot be blocked: stderr is for the user only.
  const message = [rest.systemMessage, stderr && capText(stderr)].filter(Boolean).join('\n');
  const verdict: HandlerVerdict = message ? { ...rest, systemMessage: message } : rest;
  return { verdict, decision: decisionOf(verdict) };
}

/** The reason a blocking JSON gives, if the JSON blocks; empty strings count as none. */
function jsonBlockReason(event: HookEventName, output: HookOutput): string | undefined {
  const specific = output.hookSpecificOutput;
  if (event === 'PreToolUse') {
    if (specific?.permissionDecision === 'deny') {
      return specific.permissionDecisionReason || output.reason || undefined;
    }
    if (output.decision === 'block')
      return output.reason || specific?.permissionDecisionReason || undefined;
    return undefined;
  }
  return output.decision === 'block' ? output.reason || undefined : undefined;
}

function fromJson(event: HookEventName, output: HookOutput): Interpretation {
  const verdict: HandlerVerdict = {};
  const specific = output.hookSpecificOutput;
  if (output.systemMessage !== undefined) verdict.systemMessage = capText(output.systemMessage);
  if (specific?.additionalContext !== undefined && CONTEXT_EVENTS.has(event)) {
    verdict.additionalContext = capText(specific.additionalContext);
  }
  if (event === 'PreToolUse') {
    const reason = specific?.permissionDecisionReason ?? output.reason;
    const behavior = specific?.permissionDecision
      ? toBehavior(specific.permissionDecision)
      : legacyBehavior(output.decision);
    if (behavior) {
      verdict.permission =
        reason === undefined ? { behavior } : { behavior, reason: capText(reason) };
    }
    if (specific?.updatedInput !== undefined) verdict.updatedInput = specific.updatedInput;
  } else if (output.decision === 'block' && BLOCKING_EVENTS.has(event)) {
    verdict.block = { reason: capText(output.reason ?? 'no reason given') };
  }
  if (output.continue === false) {
    verdict.stop = output.stopReason === undefined ? {} : { reason: capText(output.stopReason) };
  }
  return { verdict, decision: decisionOf(verdict) };
}

/** A handler that never ran (its group's matcher is invalid): a failure like any other. */
export function interpretUnrunnable(
  event: HookEventName,
  handler: PlannedHandler,
  error: string,
): Interpretation {
  return failed(event, handler, error);
}

/**
 * A hook whose script changed since the run started (hook-scripts.ts) is not run: on PreToolUse
 * it blocks the call, required or not, since what judged the agent is no longer what was set up.
 */
export function interpretTampered(event: HookEventName, reason: string): Interpretation {
  const failure = `was not run: ${reason}`;
  if (event !== 'PreToolUse') return { verdict: {}, error: failure };
  return {
    verdict: {
      permission: {
        behavior: 'deny',
        reason: capText(
          `the hook ${failure}; a hook that was changed during the run blocks the call`,
        ),
      },
    },
    decision: 'deny',
    error: failure,
  };
}

function failed(event: HookEventName, handler: PlannedHandler, failure: string): Interpretation {
  if (!(handler.required && event === 'PreToolUse')) return { verdict: {}, error: failure };
  const reason = `it is a required hook and it ${failure}; a required hook that fails blocks the call`;
  return {
    verdict: { permission: { behavior: 'deny', reason: capText(reason) } },
    decision: 'deny',
    error: failure,
  };
}

/** Why the hook did not do its job, phrased to follow "the hook …"; undefined when it did. */
function describeFailure(result: HookProcessResult, handler: PlannedHandler): string | undefined {
  switch (result.status) {
    case 'failed-to-start':
      return `could not start: ${result.error ?? 'unknown error'}`;
    case 'timed-out':
      return `timed out after ${handler.timeoutSeconds} s and was killed`;
    case 'aborted':
      return 'was cancelled before it finished';
    case 'exited':
      break;
  }
  if (result.exitCode === 0 || result.exitCode === 2) return undefined;
  const firstLine = result.stderr.trim().split('\n', 1)[0] ?? '';
  const code = result.exitCode === null ? 'no exit code' : `code ${result.exitCode}`;
  return capText(`exited with ${code}${firstLine ? ` (${firstLine})` : ''}`);
}

function toBehavior(decision: 'allow' | 'deny' | 'ask' | 'defer'): Behavior {
  return decision === 'defer' ? 'ask' : decision;
}

function legacyBehavior(decision: 'approve' | 'block' | undefined): Behavior | undefined {
  if (decision === 'approve') return 'allow';
  if (decision === 'block') return 'deny';
  return undefined;
}

function decisionOf(verdict: HandlerVerdict): HookRunDecision | undefined {
  if (verdict.stop) return 'stop';
  if (verdict.permission) return verdict.permission.behavior;
  if (verdict.block) return 'block';
  return undefined;
}
