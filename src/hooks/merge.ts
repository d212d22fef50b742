/**
 * Combining the verdicts of the handlers of one event firing. Handlers run in parallel, but
 * everything here goes by config order, not by finishing order, so a run is reproducible:
 *   - permission: deny > ask > allow;
 *   - additionalContext and systemMessage: concatenated in config order;
 *   - updatedInput: the last handler in config order that gave one wins (Claude Code takes the
 *     last to finish, which is not deterministic);
 *   - `continue: false` from any handler stops the run (and on PreToolUse, denies the call).
 */
import type { Behavior } from '../permissions/types.js';
import type { HookEventName } from './config.js';
import type { HandlerVerdict, PlannedHandler } from './interpret.js';
import type {
  ContextOutcome,
  PostToolUseOutcome,
  PreCompactOutcome,
  PreToolUseOutcome,
  StopOutcome,
  UserPromptSubmitOutcome,
} from './types.js';

export interface HandlerResult {
  handler: PlannedHandler;
  verdict: HandlerVerdict;
}

type Merged<T> = Omit<T, 'runs'>;

const STRENGTH: Readonly<Record<Behavior, number>> = { allow: 1, ask: 2, deny: 3 };

export function mergePreToolUse(results: readonly HandlerResult[]): Merged<PreToolUseOutcome> {
  const merged: Merged<PreToolUseOutcome> = common('PreToolUse', results);
  const stop = merged.stop;
  let strongest: Behavior | undefined;
  for (const { verdict } of results) {
    const behavior = verdict.permission?.behavior;
    if (behavior && (!strongest || STRENGTH[behavior] > STRENGTH[strongest])) strongest = behavior;
  }
  if (stop && strongest !== 'deny') {
    const stoppers = results.filter(({ verdict }) => verdict.stop);
    const why = joinReasons(
      stoppers.map(({ handler, verdict }) => ({ handler, reason: verdict.stop?.reason })),
    );
    merged.decision = {
      behavior: 'deny',
      source: labels(stoppers),
      reason: `it stopped the run${why ? `: ${why}` : ''}`,
    };
  } else if (strongest) {
    const deciders = results.filter(({ verdict }) => verdict.permission?.behavior === strongest);
    const reason = joinReasons(
      deciders.map(({ handler, verdict }) => ({ handler, reason: verdict.permission?.reason })),
    );
    merged.decision = {
      behavior: strongest,
      source: labels(deciders),
      ...(reason === undefined ? {} : { reason }),
    };
  }
  for (const { verdict } of results) {
    if (verdict.updatedInput !== undefined) merged.updatedInput = verdict.updatedInput;
  }
  return merged;
}

export function mergePostToolUse(
  event: 'PostToolUse' | 'PostToolUseFailure',
  results: readonly HandlerResult[],
): Merged<PostToolUseOutcome> {
  const merged: Merged<PostToolUseOutcome> = common(event, results);
  const feedback = blockTexts(
    results,
    (label, reason) => `${event} hook ${label} reported a problem: ${reason}`,
  );
  if (feedback) merged.block = { reason: feedback };
  return merged;
}

export function mergeStop(
  results: readonly HandlerResult[],
  event: 'Stop' | 'SubagentStop' = 'Stop',
): Merged<StopOutcome> {
  const { stop, systemMessages } = common(event, results);
  const merged: Merged<StopOutcome> = { systemMessages };
  if (stop) merged.stop = stop;
  const instruction = blockTexts(
    results,
    (label, reason) => `${event} hook ${label} says the work is not finished: ${reason}`,
  );
  if (instruction) merged.continueWith = { reason: instruction };
  return merged;
}

export function mergeUserPromptSubmit(
  results: readonly HandlerResult[],
): Merged<UserPromptSubmitOutcome> {
  const merged: Merged<UserPromptSubmitOutcome> = common('UserPromptSubmit', results);
  const reason = blockTexts(
    results,
    (label, why) => `UserPromptSubmit hook ${label} blocked the prompt: ${why}`,
  );
  if (reason) merged.block = { reason };
  return merged;
}

export function mergePreCompact(results: readonly HandlerResult[]): Merged<PreCompactOutcome> {
  const { systemMessages } = common('PreCompact', results);
  const reason = blockTexts(
    results,
    (label, why) => `PreCompact hook ${label} blocked the compaction: ${why}`,
  );
  return reason ? { systemMessages, block: { reason } } : { systemMessages };
}

export function mergeContext(
  event: HookEventName,
  results: readonly HandlerResult[],
): Merged<ContextOutcome> {
  return common(event, results);
}

function common(event: HookEventName, results: readonly HandlerResult[]): Merged<ContextOutcome> {
  const additionalContext: string[] = [];
  const systemMessages: string[] = [];
  const stopReasons: string[] = [];
  for (const { handler, verdict } of results) {
    if (verdict.additionalContext !== undefined) additionalContext.push(verdict.additionalContext);
    if (verdict.systemMessage !== undefined) systemMessages.push(verdict.systemMessage);
    if (verdict.stop) {
      stopReasons.push(
        `${event} hook ${handler.label} stopped the run${verdict.stop.reason ? `: ${verdict.stop.reason}` : ''}`,
      );
    }
  }
  const merged: Merged<ContextOutcome> = { additionalContext, systemMessages };
  if (stopReasons.length > 0) merged.stop = { reason: stopReasons.join('\n') };
  return merged;
}

function blockTexts(
  results: readonly HandlerResult[],
  phrase: (label: string, reason: string) => string,
): string | undefined {
  const texts = results.flatMap(({ handler, verdict }) =>
    verdict.block ? [phrase(handler.label, verdict.block.reason)] : [],
  );
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function labels(results: readonly HandlerResult[]): string {
  return results.map(({ handler }) => handler.label).join(', ');
}

/** One decider: its reason as is. Several: each reason after the hook that gave it. */
function joinReasons(
  entries: ReadonlyArray<{ handler: PlannedHandler; reason: string | undefined }>,
): string | undefined {
  const given = entries.filter((entry) => entry.reason !== undefined);
  if (given.length === 0) return undefined;
  if (entries.length === 1) return given[0]?.reason;
  return given.map(({ handler, reason }) => `${handler.label}: ${reason}`).join('; ');
}
