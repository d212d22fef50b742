/**
 * The hook port the pipeline calls. The full runner (matchers, scripts, JSON protocol) plugs in
 * behind this interface; `noHooks` is the runner of a session without hooks.
 */
import type { Behavior } from '../permissions/types.js';

/** One hook command that ran, for the tool log. */
export interface HookRunRecord {
  event: string;
  matcher: string;
  command: string;
  exitCode: number | null;
  durationMs: number;
  decision?: string;
  error?: string;
  stderrExcerpt?: string;
}

export interface PreToolUseRequest {
  toolName: string;
  toolInput: unknown;
  toolUseId: string;
  signal: AbortSignal;
}

export interface PreToolUseOutcome {
  decision?: { behavior: Behavior; reason?: string; source: string };
  /** Replaces the whole input; validated again by the tool's schema. */
  updatedInput?: unknown;
  additionalContext: string[];
  /** `continue: false`: the run stops after this call. */
  stop?: { reason: string };
  runs: HookRunRecord[];
}

export interface PostToolUseRequest {
  toolName: string;
  toolInput: unknown;
  toolUseId: string;
  /** The tool's structured output. */
  toolResponse: unknown;
  signal: AbortSignal;
}

export interface PostToolUseOutcome {
  additionalContext: string[];
  /** `decision: "block"` or exit 2: the reason goes to the model beside the result. */
  block?: { reason: string };
  stop?: { reason: string };
  runs: HookRunRecord[];
}

export interface HookRunner {
  preToolUse(request: PreToolUseRequest): Promise<PreToolUseOutcome>;
  postToolUse(request: PostToolUseRequest): Promise<PostToolUseOutcome>;
}

export const noHooks: HookRunner = {
  preToolUse: async () => ({ additionalContext: [], runs: [] }),
  postToolUse: async () => ({ additionalContext: [], runs: [] }),
};
