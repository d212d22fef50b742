/**
 * What a run did, collected from its events as they happen, for the PR comment and the job
 * summary. The collector is an event sink: a run killed half-way still has everything up to the
 * kill, so the partial report can be posted.
 */
import type { AgentEvent, PermissionDenial, RunResult } from '../agent/events.js';
import type { HookRunRecord } from '../hooks/types.js';
import type { TodoItem } from '../tools/tool.js';

export interface ToolCallEntry {
  turn: number;
  toolUseId: string;
  toolName: string;
  input: unknown;
  /** allow / deny, or undefined when the call failed before the permission stage. */
  decision?: 'allow' | 'deny';
  /** The rule, hook or default behind the decision, in words. */
  decisionReason?: string;
  /** Which step of the evaluation decided (permissions/types.ts DecisionSource). */
  decisionSource?: string;
  /** The evaluation asked and the policy's onAsk answered. */
  askResolved?: boolean;
  /** The rules that decided, each with the file (or flag) it came from. */
  rules?: Array<{ text: string; source: string }>;
  durationMs?: number;
  isError?: boolean;
  /**
   * The exit status a command tool reported in its structured output (`exitCode`, as Bash
   * does), null when the command never exited; absent for tools that report none.
   */
  exitCode?: number | null;
  /** Pipeline stage the call ended in (schema, validation, permission, call, completed, …). */
  stage?: string;
  /** For a call a subagent made: the Agent call it ran under, and the agent's type. */
  parent?: { toolUseId: string; agentType: string };
  /** An MCP call whose server asked for input: each answer (the question stays in the log). */
  elicitations?: string[];
}

export interface RunReport {
  model?: string;
  calls: ToolCallEntry[];
  denials: PermissionDenial[];
  hookRuns: HookRunRecord[];
  /** The last text the model wrote. */
  lastText: string;
  /** The model's task list as TodoWrite last set it; undefined when it never did. */
  todos?: TodoItem[];
  /** What the model API and the context cost the run along the way. */
  incidents: { apiRetries: number; partialResponses: number; compactions: number };
  result?: RunResult;
}

export class ReportCollector {
  readonly report: RunReport = {
    calls: [],
    denials: [],
    hookRuns: [],
    lastText: '',
    incidents: { apiRetries: 0, partialResponses: 0, compactions: 0 },
  };
  private turn = 0;
  private readonly byId = new Map<string, ToolCallEntry>();

  /** The event sink to give the session. */
  readonly handle = (event: AgentEvent): void => {
    switch (event.type) {
      case 'session-start':
        this.report.model = event.model;
        return;
      case 'assistant-message': {
        this.turn++;
        const text = event.message.content
          .filter((block) => block.type === 'text')
          .map((block) => block.text)
          .join('')
          .trim();
        if (text) this.report.lastText = text;
        for (const block of event.message.content) {
          if (block.type === 'tool_use')
            this.entry(block.id, block.name, this.turn).input ??= block.input;
        }
        return;
      }
      case 'tool-call-start':
      case 'permission-decision':
      case 'tool-result': {
        const entry = this.entry(event.toolUseId, event.toolName);
        record(entry, event);
        if (event.type === 'tool-result' && event.toolName === 'TodoWrite' && !entry.isError) {
          const todos = newTodosOf(event.structured);
          if (todos) this.report.todos = todos;
        }
        return;
      }
      case 'subagent-event': {
        // A subagent's calls are listed under the Agent call that ran them, in its turn.
        const inner = event.event;
        if (inner.type === 'hook-run') this.report.hookRuns.push(hookRunOf(inner));
        if (
          inner.type !== 'tool-call-start' &&
          inner.type !== 'permission-decision' &&
          inner.type !== 'tool-result'
        ) {
          return;
        }
        const parentTurn = this.byId.get(event.parentToolUseId)?.turn ?? this.turn;
        const entry = this.entry(inner.toolUseId, inner.toolName, parentTurn);
        entry.parent = { toolUseId: event.parentToolUseId, agentType: event.agentType };
        record(entry, inner);
        return;
      }
      case 'hook-run':
        this.report.hookRuns.push(hookRunOf(event));
        return;
      case 'result':
        this.report.result = event.result;
        this.report.denials = event.result.permissionDenials;
        return;
      case 'api-retry':
        this.report.incidents.apiRetries++;
        return;
      case 'partial-response':
        this.report.incidents.partialResponses++;
        return;
      case 'compact-boundary':
        this.report.incidents.compactions++;
        return;
      case 'tool-progress':
      case 'tool-results-message':
        return;
    }
  };

  /**
   * Tool calls start while their message still streams, so a call is usually seen before the
   * message that carries it is complete: it belongs to the turn in flight.
   */
  private entry(toolUseId: string, toolName: string, turn = this.turn + 1): ToolCallEntry {
    let entry = this.byId.get(toolUseId);
    if (!entry) {
      entry = { turn, toolUseId, toolName, input: undefined };
      this.byId.set(toolUseId, entry);
      this.report.calls.push(entry);
    }
    return entry;
  }
}

/** A hook run with the call it ran for: the event names it when the record does not. */
function hookRunOf(event: { toolUseId?: string; run: HookRunRecord }): HookRunRecord {
  const toolUseId = event.run.toolUseId ?? event.toolUseId;
  return toolUseId === undefined ? event.run : { ...event.run, toolUseId };
}

/** `exitCode` of a tool's structured output: a number, or null for a command that never exited. */
function exitCodeOf(structured: unknown): number | null | undefined {
  if (typeof structured !== 'object' || structured === null) return undefined;
  const exitCode = (structured as { exitCode?: unknown }).exitCode;
  return typeof exitCode === 'number' || exitCode === null ? exitCode : undefined;
}

/** TodoWrite's structured output is `{oldTodos, newTodos}`; anything else is ignored. */
function newTodosOf(structured: unknown): TodoItem[] | undefined {
  if (typeof structured !== 'object' || structured === null) return undefined;
  const todos = (structured as { newTodos?: unknown }).newTodos;
  return Array.isArray(todos) ? (todos as TodoItem[]) : undefined;
}

type CallEvent = Extract<
  AgentEvent,
  { type: 'tool-call-start' | 'permission-decision' | 'tool-result' }
>;

/** What one event says about a call. */
function record(entry: ToolCallEntry, event: CallEvent): void {
  switch (event.type) {
    case 'tool-call-start':
      entry.input = event.input;
      return;
    case 'permission-decision':
      entry.input = event.input;
      entry.decision = event.decision.behavior;
      entry.decisionReason = event.decision.reason;
      entry.decisionSource = event.decision.source;
      if (event.decision.askResolved) entry.askResolved = true;
      if (event.decision.matchedRules.length > 0) {
        entry.rules = event.decision.matchedRules.map(({ text, source }) => ({ text, source }));
      }
      return;
    case 'tool-result': {
      entry.durationMs = event.durationMs;
      entry.isError = event.result.is_error === true;
      entry.stage = event.stage;
      const exitCode = exitCodeOf(event.structured);
      if (exitCode !== undefined) entry.exitCode = exitCode;
      const answers = elicitationAnswersOf(event.structured);
      if (answers) entry.elicitations = answers;
      return;
    }
  }
}

/** An MCP call's `elicitations` (mcp/elicitation.ts): only the answers, never the server's words. */
function elicitationAnswersOf(structured: unknown): string[] | undefined {
  if (typeof structured !== 'object' || structured === null) return undefined;
  const records = (structured as { elicitations?: unknown }).elicitations;
  if (!Array.isArray(records) || records.length === 0) return undefined;
  return records.map((record: unknown) =>
    (record as { action?: unknown } | null)?.action === 'accept'
      ? 'accepted with defaults'
      : 'declined',
  );
}
