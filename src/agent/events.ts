/**
 * What a run reports as it happens. The CLI renders these as text or stream-json, the tool log
 * writes them as NDJSON; both are fed from the same events (docs/DECISIONS.md #14).
 */
import type { HookRunRecord } from '../hooks/types.js';
import type { ModelUsageEntry } from '../model/pricing.js';
import type { SpendRow } from '../model/spend-meter.js';
import type { AssistantMessage, StopReason, ToolResultBlock, Usage } from '../model/types.js';
import type { DenialAdviceRecord } from '../permissions/denial-advice.js';
import type { PermissionDecision, PermissionMode } from '../permissions/types.js';

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
  /** Why, and the rule or hook behind it (our addition to the reference shape). */
  reason: string;
  rules: string[];
  /** How the policy's owner could allow it, or why nothing can (ours too; DECISIONS.md #22). */
  suggestion?: DenialAdviceRecord;
}

/**
 * How a run ended. Each limit has its own subtype: `error_max_turns`, `error_max_budget_usd`
 * (Claude Code's names) and `error_max_duration` (ours: the wall-clock limit).
 */
export type ResultSubtype =
  | 'success'
  | 'error_max_turns'
  | 'error_max_budget_usd'
  | 'error_max_duration'
  | 'error_during_execution';

export interface RunResult {
  subtype: ResultSubtype;
  isError: boolean;
  result: string;
  numTurns: number;
  durationMs: number;
  durationApiMs: number;
  stopReason: StopReason | null;
  totalCostUsd: number;
  usage: Usage;
  modelUsage: Record<string, ModelUsageEntry>;
  permissionDenials: PermissionDenial[];
  errors: string[];
  /**
   * The run's cost by part (the main agent, each subagent, compaction, side queries, failed
   * attempts), adding up to `totalCostUsd`; the main agent's result only.
   */
  costParts?: SpendRow[];
}

export type AgentEvent =
  | {
      type: 'session-start';
      sessionId: string;
      cwd: string;
      model: string;
      tools: string[];
      permissionMode: PermissionMode;
      /** The repository's HEAD when the session started (the system prompt's), if a git checkout. */
      commit?: string;
    }
  | {
      type: 'assistant-message';
      messageId: string;
      model: string;
      message: AssistantMessage;
      stopReason: StopReason | null;
      usage: Usage;
    }
  | { type: 'tool-call-start'; toolUseId: string; toolName: string; input: unknown }
  | { type: 'tool-progress'; toolUseId: string; toolName: string; message: string }
  | {
      type: 'permission-decision';
      toolUseId: string;
      toolName: string;
      input: unknown;
      decision: PermissionDecision;
    }
  | { type: 'hook-run'; toolUseId?: string; run: HookRunRecord }
  | {
      type: 'tool-result';
      toolUseId: string;
      toolName: string;
      result: ToolResultBlock;
      structured: unknown;
      durationMs: number;
      stage: string;
    }
  | { type: 'tool-results-message'; results: ToolResultBlock[]; structured: unknown[] }
  /** A failed model request about to be retried (docs/CC-COMPAT.md §4 `system/api_retry`). */
  | {
      type: 'api-retry';
      attempt: number;
      maxRetries: number;
      delayMs: number;
      status: number | undefined;
      /** The category: `rate_limit`, `server_error`, `connection_error`, … */
      error: string;
      message: string;
      /** Where the request went (absent for a client that does not say). */
      url?: string;
      /** What failed, in the lower layer's words: `connect ECONNREFUSED 127.0.0.1:8080`. */
      cause?: string;
    }
  /**
   * A response cut off after some of its tool_use blocks were complete: not retried (those tools
   * may have started), its complete blocks kept as the turn's message.
   */
  | {
      type: 'partial-response';
      messageId: string;
      keptBlocks: number;
      toolUseIds: string[];
      status: number | undefined;
      error: string;
      message: string;
    }
  /** The older part of the conversation was summarised (docs/CC-COMPAT.md §4 `system/compact_boundary`). */
  | {
      type: 'compact-boundary';
      trigger: 'manual' | 'auto';
      preTokens: number;
      /** What the model wrote for the older part (the log keeps it, so a replay can serve it). */
      summary: string;
    }
  | { type: 'result'; result: RunResult }
  /**
   * An event of a subagent's run (the Agent tool, agent/subagent.ts), as it happens, filed under
   * the Agent call that started it. Its `result` is the subagent's, not the run's.
   */
  | {
      type: 'subagent-event';
      parentToolUseId: string;
      agentId: string;
      agentType: string;
      event: AgentEvent;
    };

export type EventSink = (event: AgentEvent) => void;
