/**
 * Which handlers run for one event firing. Matchers test the tool name on tool events, the
 * source on SessionStart, the reason on SessionEnd, the agent type on SubagentStop and the trigger
 * on PreCompact
 * (docs/CC-COMPAT.md §1.3); the other events run every group. After matching, a command string that repeats runs once: the first occurrence
 * is kept, and becomes required when any repeat is required (fail closed wins).
 */
import type { HookEventName, HookHandlerConfig, HooksConfig } from './config.js';
import type { PlannedHandler } from './interpret.js';
import type { CompiledMatcher } from './matcher.js';
import { compileMatcher, matcherAccepts } from './matcher.js';

export interface CompiledGroup {
  matcherText: string;
  matcher: CompiledMatcher;
  handlers: readonly HookHandlerConfig[];
}

export type CompiledHooks = ReadonlyMap<HookEventName, readonly CompiledGroup[]>;

export interface FiringPlan {
  handlers: PlannedHandler[];
  /** Handlers of groups whose matcher is an invalid regex: they never run. */
  unrunnable: Array<{ handler: PlannedHandler; group: CompiledGroup; error: string }>;
}

const MATCHED_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SessionStart',
  'SessionEnd',
  'SubagentStop',
  'PreCompact',
]);
const LABEL_CHARS = 60;

export function compileHooks(config: HooksConfig): CompiledHooks {
  const compiled = new Map<HookEventName, CompiledGroup[]>();
  for (const [event, groups] of Object.entries(config) as Array<
    [HookEventName, HooksConfig[HookEventName]]
  >) {
    const list = (groups ?? [])
      .filter((group) => group.hooks.length > 0)
      .map((group) => ({
        matcherText: group.matcher ?? '',
        matcher: compileMatcher(group.matcher),
        handlers: group.hooks,
      }));
    if (list.length > 0) compiled.set(event, list);
  }
  return compiled;
}

export function planFiring(
  hooks: CompiledHooks,
  event: HookEventName,
  matchValue: string | undefined,
  defaultTimeoutSeconds: number,
  /** Whether a handler's own condition (its `if` rule) lets it run for this firing. */
  accepts: (handler: HookHandlerConfig) => boolean = (handler) => handler.if === undefined,
): FiringPlan {
  const handlers = new Map<string, PlannedHandler>();
  const unrunnable: FiringPlan['unrunnable'] = [];
  const filtered = MATCHED_EVENTS.has(event) && matchValue !== undefined;
  for (const group of hooks.get(event) ?? []) {
    const { matcher } = group;
    if (matcher.kind === 'invalid') {
      const error = `did not run: its matcher ${JSON.stringify(group.matcherText)} is not a valid regular expression (${matcher.error})`;
      for (const handler of group.handlers) {
        unrunnable.push({ handler: planned(handler, group, 0), group, error });
      }
      continue;
    }
    if (filtered && !matcherAccepts(matcher, matchValue)) continue;
    for (const handler of group.handlers) {
      if (!accepts(handler)) continue;
      const seen = handlers.get(handler.command);
      if (seen) seen.required ||= handler.required === true;
      else
        handlers.set(
          handler.command,
          planned(handler, group, validTimeout(handler.timeout) ?? defaultTimeoutSeconds),
        );
    }
  }
  return { handlers: [...handlers.values()], unrunnable };
}

function planned(
  handler: HookHandlerConfig,
  group: CompiledGroup,
  timeoutSeconds: number,
): PlannedHandler {
  return {
    command: handler.command,
    label: labelOf(handler.command),
    matcher: group.matcherText,
    timeoutSeconds,
    required: handler.required === true,
    source: handler.source,
  };
}

/** The command as messages show it: one line, at most LABEL_CHARS characters, quoted. */
export function labelOf(command: string): string {
  const oneLine = command.replace(/\s+/g, ' ').trim();
  const short = oneLine.length > LABEL_CHARS ? `${oneLine.slice(0, LABEL_CHARS - 1)}…` : oneLine;
  return JSON.stringify(short);
}

function validTimeout(seconds: number | undefined): number | undefined {
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
