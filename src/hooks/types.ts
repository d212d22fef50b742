/**
 * The hook ports. `HookRunner` is what the pipeline calls around each tool call;
 * `SessionHookRunner` adds the events the loop and the session fire. `createHookRunner`
 * (runner.ts) implements both; `noHooks` is the runner of a session without hooks.
 */
import type { Behavior } from '../permissions/types.js';
import type { HookEventName } from './config.js';
import type { RuleTarget } from '../permissions/rules.js';

/** How one handler's run ended. `skipped`: it never started (bad matcher, cancelled call). */
export type HookRunStatus = 'completed' | 'timed-out' | 'failed-to-start' | 'aborted' | 'skipped';

/** What one handler's run decided, as the log shows it. */
export type HookRunDecision = Behavior | 'block' | 'stop';

/** One hook command that ran (or should have run), for the tool log. */
export interface HookRunRecord {
  event: string;
  matcher: string;
  command: string;
  /** Exit status, 128 + signal number for a shell killed by a signal, null when it never exited. */
  exitCode: number | null;
  durationMs: number;
  decision?: string;
  /** Set whenever the hook did not do its job: never started, timed out, crashed, bad output. */
  error?: string;
  stderrExcerpt?: string;
  status?: HookRunStatus;
  /** The file (or flag) the handler was declared in. */
  source?: string;
  /** A PreToolUse hook whose failure blocks the call (docs/DECISIONS.md #7). */
  required?: boolean;
  /** A hook-provided message for the user and the log, never for the model. */
  systemMessage?: string;
  toolName?: string;
  toolUseId?: string;
}

export interface PreToolUseRequest {
  toolName: string;
  /** What the call asks of the policy: what a handler's `if` rule is matched against. */
  target?: RuleTarget;
  toolInput: unknown;
  toolUseId: string;
  signal: AbortSignal;
}

export interface PreToolUseOutcome {
  /**
   * Merged over every hook: deny > ask > allow. `continue: false` and a failed required hook
   * also deny, so the call never runs. `source` names the hook command(s) that decided.
   */
  decision?: { behavior: Behavior; reason?: string; source: string };
  /** Replaces the whole input; validated again by the tool's schema. */
  updatedInput?: unknown;
  additionalContext: string[];
  /** `continue: false`: the run stops after this call. */
  stop?: { reason: string };
  /** Messages for the user and the log (`systemMessage`), not for the model. */
  systemMessages?: string[];
  runs: HookRunRecord[];
}

export interface PostToolUseRequest {
  toolName: string;
  /** What the call asks of the policy: what a handler's `if` rule is matched against. */
  target?: RuleTarget;
  toolInput: unknown;
  toolUseId: string;
  /** The tool's structured output. */
  toolResponse: unknown;
  /** How long the call took; sent as `duration_ms` when given. */
  durationMs?: number;
  signal: AbortSignal;
}

export interface PostToolUseOutcome {
  additionalContext: string[];
  /** `decision: "block"` or exit 2: the reason goes to the model beside the result. */
  block?: { reason: string };
  stop?: { reason: string };
  systemMessages?: string[];
  runs: HookRunRecord[];
}

export interface PostToolUseFailureRequest {
  toolName: string;
  /** What the call asks of the policy: what a handler's `if` rule is matched against. */
  target?: RuleTarget;
  toolInput: unknown;
  toolUseId: string;
  /** What the model was told went wrong. */
  error: string;
  isInterrupt?: boolean;
  durationMs?: number;
  signal: AbortSignal;
}

export type PostToolUseFailureOutcome = PostToolUseOutcome;

export interface StopRequest {
  /** True when this stop attempt follows one a Stop hook refused. */
  stopHookActive: boolean;
  lastAssistantMessage?: string;
  signal?: AbortSignal;
}

export interface StopOutcome {
  /**
   * A hook said the work is not done: send `reason` to the model as the next user message and
   * keep going (the loop caps how often, and sets `stopHookActive` on the next attempt).
   */
  continueWith?: { reason: string };
  /** `continue: false`: end the run now; wins over `continueWith`. */
  stop?: { reason: string };
  systemMessages: string[];
  runs: HookRunRecord[];
}

export type SessionStartSource = 'startup' | 'resume' | 'clear' | 'compact';

export interface SessionStartRequest {
  source: SessionStartSource;
  signal?: AbortSignal;
}

export interface ContextOutcome {
  /** Text for the model's context, in config order. */
  additionalContext: string[];
  stop?: { reason: string };
  systemMessages: string[];
  runs: HookRunRecord[];
}

export type SessionStartOutcome = ContextOutcome;

export interface UserPromptSubmitRequest {
  prompt: string;
  signal?: AbortSignal;
}

export interface UserPromptSubmitOutcome extends ContextOutcome {
  /** Exit 2 or `decision: "block"`: the prompt is not sent; the reason is for the user only. */
  block?: { reason: string };
}

export interface PreCompactRequest {
  /** `auto`: the conversation neared the context window; `manual` has no caller in CI yet. */
  trigger: 'manual' | 'auto';
  signal?: AbortSignal;
}

export interface PreCompactOutcome {
  /** Exit 2 or `decision: "block"`: the conversation is not summarised this time. */
  block?: { reason: string };
  systemMessages: string[];
  runs: HookRunRecord[];
}

export interface SessionEndRequest {
  reason: 'clear' | 'resume' | 'logout' | 'prompt_input_exit' | 'other';
  signal?: AbortSignal;
}

export interface SessionEndOutcome {
  systemMessages: string[];
  runs: HookRunRecord[];
}

export interface HookRunner {
  preToolUse(request: PreToolUseRequest): Promise<PreToolUseOutcome>;
  postToolUse(request: PostToolUseRequest): Promise<PostToolUseOutcome>;
}

export interface SessionHookRunner extends HookRunner {
  postToolUseFailure(request: PostToolUseFailureRequest): Promise<PostToolUseFailureOutcome>;
  stop(request: StopRequest): Promise<StopOutcome>;
  /** A subagent is about to finish (its runner's agent fields name it; matchers test its type). */
  subagentStop(request: StopRequest): Promise<StopOutcome>;
  sessionStart(request: SessionStartRequest): Promise<SessionStartOutcome>;
  userPromptSubmit(request: UserPromptSubmitRequest): Promise<UserPromptSubmitOutcome>;
  sessionEnd(request: SessionEndRequest): Promise<SessionEndOutcome>;
  /** The conversation is about to be summarised (matchers test the trigger). */
  preCompact(request: PreCompactRequest): Promise<PreCompactOutcome>;
  /** Whether any handler is configured for the event (lets callers skip work). */
  has(event: HookEventName): boolean;
}

const emptyContext = async () => ({ additionalContext: [], systemMessages: [], runs: [] });

export const noHooks: SessionHookRunner = {
  preToolUse: async () => ({ additionalContext: [], runs: [] }),
  postToolUse: async () => ({ additionalContext: [], runs: [] }),
  postToolUseFailure: async () => ({ additionalContext: [], runs: [] }),
  stop: async () => ({ systemMessages: [], runs: [] }),
  subagentStop: async () => ({ systemMessages: [], runs: [] }),
  sessionStart: emptyContext,
  userPromptSubmit: emptyContext,
  sessionEnd: async () => ({ systemMessages: [], runs: [] }),
  preCompact: async () => ({ systemMessages: [], runs: [] }),
  has: () => false,
};
