/**
 * Hook configuration after loading and validation: Claude Code's three levels
 * (event → matcher groups → handlers), with each handler remembering the file it came from.
 * The policy loader produces it; the hook runner consumes it.
 */

export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'UserPromptSubmit',
  'SessionEnd',
  'PreCompact',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export interface HookHandlerConfig {
  type: 'command';
  command: string;
  /** Seconds; the CI default (60 s, docs/DECISIONS.md #8) applies when absent. */
  timeout?: number;
  /** ci-agent policy only: a PreToolUse hook that fails or never runs blocks the call (docs/DECISIONS.md #7). */
  required?: boolean;
  /**
   * A permission rule (`Bash(git push:*)`): on tool events the hook runs only for calls the rule
   * matches, with deny-rule semantics (any part of a compound command); on other events, never.
   */
  if?: string;
  /** The file (or flag) this handler was declared in, for the tool log. */
  source: string;
}

export interface HookMatcherGroup {
  /** Tool-name matcher: exact names split on `|` or `,`, `*` or empty for all, else a regex. */
  matcher?: string;
  hooks: HookHandlerConfig[];
}

export type HooksConfig = Partial<Record<HookEventName, HookMatcherGroup[]>>;
