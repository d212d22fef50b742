/**
 * What a run reports as it happens. The CLI renders these as text or stream-json, the tool log
 * writes them as NDJSON; both are fed from the same events (DECISIONS #14).
 */
import type { HookRunRecord } from '../hooks/types.js';
import type { ModelUsageEntry } from '../model/pricing.js';
import type { AssistantMessage, StopReason, ToolResultBlock, Usage } from '../model/types.js';
import type { PermissionDecision, PermissionMode } from '../permissions/types.js';

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
  /** Why, and the rule or hook behind it (our addition to the reference shape). */
  reason: string;
  rules: string[];
}

export type ResultSubtype =
  'success' | 'error_max_turns' | 'error_max_budget_usd' | 'error_during_execution';

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
}

export type AgentEvent =
  | {
      type: 'session-start';
      sessionId: string;
      cwd: string;
      model: string;
      tools: string[];
      permissionMode: PermissionMode;
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
  | { type: 'result'; result: RunResult };

export type EventSink = (event: AgentEvent) => void;
