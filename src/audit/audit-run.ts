/**
 * A run as the audit reads it back from its tool log (records.ts builds it): the run's setting
 * and outcome, and its calls with their decisions, hooks and results. Every string in it is
 * the log's text, untrusted.
 */

export interface AuditRule {
  rule: string;
  /** The file (or flag) the rule came from. */
  source: string;
}

export interface AuditDecision {
  behavior: 'allow' | 'deny';
  /** The evaluation asked; the policy's onAsk answered (nobody can approve in CI). */
  askResolved: boolean;
  /** Which step decided: `deny-rule`, `hook`, `allow-rule`, `default`, … */
  source: string;
  reason: string;
  rules: AuditRule[];
  /** A denial's way to allow it, or why there is none: `suggestion.text`. */
  suggestion?: string;
}

export interface AuditHook {
  /** `PreToolUse`, `PostToolUse`, `Stop`, … */
  event: string;
  command: string;
  matcher?: string;
  /** `completed`, `timed-out`, `aborted`, `failed-to-start`, `skipped`. */
  status?: string;
  exitCode: number | null;
  durationMs?: number;
  /** What the hook said: `deny`, `ask`, `allow`, `block`. */
  decision?: string;
  /** Set when the hook did not do its job: it never started, timed out, crashed, printed bad output. */
  error?: string;
  stderr?: string;
  systemMessage?: string;
  /** The file the hook was declared in. */
  source?: string;
  required?: boolean;
  /** The log line it was read from (1-based). */
  line: number;
}

export interface AuditResult {
  isError: boolean;
  /** The text the model got back, cut at RESULT_TEXT_CHARS. */
  text: string;
  /** Characters of text the result had in all. */
  chars: number;
  truncated: boolean;
}

export interface AuditCall {
  /** 1-based, in the order the model made the calls (a subagent's among them). */
  index: number;
  toolUseId: string;
  tool: string;
  input: unknown;
  /** The Agent call this call's subagent ran under; absent: the main agent's call. */
  parentToolUseId?: string;
  decision?: AuditDecision;
  hooks: AuditHook[];
  /** From `tool_call_end`: where the pipeline stopped (`completed`, `permission`, `call`, …). */
  stage?: string;
  durationMs?: number;
  result?: AuditResult;
  /** The assistant line that made the call (1-based). */
  line: number;
  /** The last line that says something of it (its decision, a hook, its result, its end). */
  lastLine: number;
}

export interface AuditSubagent {
  parentToolUseId: string;
  agentId: string;
  agentType: string;
  /** The result subtype (`success`, `error_max_turns`, …); absent: no end line. */
  status?: string;
  numTurns?: number;
  durationMs?: number;
}

export interface AuditRunEvent {
  kind: 'compact_boundary' | 'api_retry' | 'api_partial_response';
  /** One line of what happened, from the log's fields. */
  summary: string;
  line: number;
}

export interface AuditOutcome {
  /** `success`, `error_max_turns`, `error_during_execution`, … */
  subtype: string;
  isError: boolean;
  numTurns?: number;
  durationMs?: number;
  totalCostUsd?: number;
  /** The final text (success) or the errors. */
  result?: string;
  errors: string[];
  permissionDenials: number;
}

export interface AuditSetting {
  cwd?: string;
  model?: string;
  permissionMode?: string;
  version?: string;
  sandbox?: string;
}

export interface AuditText {
  text: string;
  parentToolUseId?: string;
  line: number;
}

export interface LogProblem {
  line: number;
  message: string;
}

export interface AuditRun {
  setting?: AuditSetting;
  /** Absent: the log has no `result` line (the run was killed, or the log is cut). */
  outcome?: AuditOutcome;
  calls: AuditCall[];
  subagents: AuditSubagent[];
  /** Hooks that ran for no call: SessionStart, UserPromptSubmit, Stop, … */
  sessionHooks: AuditHook[];
  /** The model's text blocks, in order. */
  texts: AuditText[];
  events: AuditRunEvent[];
  problems: LogProblem[];
}
