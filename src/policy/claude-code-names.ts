/**
 * Names Claude Code knows that ci-agent does not act on, so messages can say "not supported"
 * instead of "unknown" (docs/CC-COMPAT.md §1.1, §1.10, §2.1), and the tool aliases of docs/DECISIONS.md #1 (the
 * tool names themselves come from the tools: tool-names.ts).
 */
import { compileMatcher } from '../hooks/matcher.js';

/** Claude Code hook events ci-agent does not run. */
export const UNSUPPORTED_HOOK_EVENTS: readonly string[] = [
  'Notification',
  'PostCompact',
  'SubagentStart',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolBatch',
  'Setup',
  'UserPromptExpansion',
  'TaskCreated',
  'TaskCompleted',
  'StopFailure',
  'TeammateIdle',
  'InstructionsLoaded',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'Elicitation',
  'ElicitationResult',
  'MessageDisplay',
];

/** Handler fields of current Claude Code that ci-agent does not implement. */
export const UNSUPPORTED_HANDLER_KEYS: readonly string[] = [
  'async',
  'asyncRewake',
  'args',
  'shell',
  'statusMessage',
  'once',
];

/** Events whose matcher matches tool names (the others match an agent type, a trigger, …). */
export const TOOL_MATCHER_EVENTS: readonly string[] = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
];

/** Events whose matcher Claude Code ignores: nothing to match on. */
export const EVENTS_WITHOUT_MATCHER: readonly string[] = ['Stop', 'UserPromptSubmit'];

/** Tool names in rules and hook matchers that name another tool (docs/DECISIONS.md #1). */
export const TOOL_ALIASES: Readonly<Record<string, string>> = { Task: 'Agent' };

/** Why a hook matcher can never match, or undefined when it can (the runner's own compiler). */
export function matcherProblem(matcher: string): string | undefined {
  const compiled = compileMatcher(matcher);
  if (compiled.kind !== 'invalid') return undefined;
  return `expected tool names ("Edit|Write"), "*" or a regular expression; ${compiled.error}`;
}
