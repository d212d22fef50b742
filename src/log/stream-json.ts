/**
 * AgentEvents → the lines of `claude -p --output-format stream-json --verbose` (docs/CC-COMPAT.md §4,
 * docs/DECISIONS.md #14). The one mapping behind the CLI's stdout formats, the tool log and the
 * transcript, so they never drift apart; every line leaves here already masked.
 *
 * Claude Code's shapes: `system/init`, `assistant`, `user` (one per tool_result, with
 * `tool_use_result`), `system/compact_boundary`, `result`. Our audit lines, all `type: "system"`:
 * - `permission_decision`: each decision, its source, the rules behind it and why; a denial's
 *   `suggestion`: the rules to add (and the file), the rules to remove, or why nothing allows it;
 * - `hook_response`: each hook run (classic Claude Code's `hook_event`/`exit_code`/`stderr`
 *   plus our record: command, status, decision, error, source file);
 * - `tool_call_end`: each call as it finishes — `stage` (where the pipeline stopped: `completed`,
 *   `permission`, `schema`, `call`, …), `duration_ms`, `is_error`, the permission `decision`
 *   (null when the call ended before one) and `result_chars`. It is written the moment the call
 *   ends, before its turn's `user` line, so a killed run still shows which calls finished;
 * - `api_retry`: Claude Code's line for a model request about to be retried (`attempt`,
 *   `max_retries`, `retry_delay_ms`, `error_status`, `error` as a category) plus our
 *   `error_message`, `error_cause` (`connect ECONNREFUSED 127.0.0.1:8080`) and `request_url`;
 * - `api_partial_response`: a response cut off after tool_use blocks were complete, kept instead
 *   of retried (those tools may have started): the message id, `kept_blocks`, `tool_use_ids`.
 *
 * A call's lines (`permission_decision`, its `hook_response`s, `tool_call_end`) follow the
 * `assistant` line of the message that made the call. Tools start while their message still
 * streams, so these events often come first: the mapper holds them until that message's line is
 * out (the `result` line lets out anything still held, e.g. of a response that was cut off). A
 * subagent's lines wait likewise for the line of the Agent call that started it.
 *
 * A subagent's lines (the Agent tool) are the same lines with `parent_tool_use_id` set to the
 * Agent call's id, as Claude Code writes them; instead of its own `system/init` and `result`
 * they are framed by our `subagent_start` (`agent_id`, `agent_type`, `model`, `tools`) and
 * `subagent_end` (`status` = the result subtype, `num_turns`, `duration_ms`, `total_cost_usd`,
 * `usage`, `errors`), so that the run has one `init` and one `result` line.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEvent, EventSink, RunResult } from '../agent/events.js';
import type { ToolResultBlock } from '../model/types.js';
import { denialAdviceRecord } from '../permissions/denial-advice.js';
import type { SecretMasker } from './secret-masker.js';
import { processScopeMechanism } from '../process/process-scope.js';

export interface StreamJsonLine {
  type: string;
  [field: string]: unknown;
}

/** Receives each line once, in order. */
export type LineSink = (line: StreamJsonLine) => void;

export interface StreamJsonMapperOptions {
  /** Reported on `system/init` as `ci_agent_version`. */
  version: string;
  masker?: SecretMasker;
  /** Reported on `system/init` as `ci_agent_sandbox`: the sandbox's one line; absent: `none`. */
  sandbox?: string;
  /**
   * The model connection (model/provider-models.ts): `apiKeySource` as Claude Code names it,
   * and `ci_agent_provider` with where its credentials came from. Absent: an Anthropic API key.
   */
  provider?: { provider: string; label: string; apiKeySource: string; credentials: string };
  /**
   * The policy in force, on `system/init` as `ci_agent_policy`: each source file with the
   * SHA-256 of its text (LoadedPolicy.sourceDigests), for `ci-agent replay`. Absent: not written.
   */
  policy?: readonly { path: string; kind: string; sha256: string }[];
}

export class StreamJsonMapper {
  private sessionId = '';
  /** Permission behaviour per tool_use id, until the call's tool_call_end line. */
  private readonly decisions = new Map<string, 'allow' | 'deny'>();
  /** The init line's `mcp_servers`: known once the servers started, before the run begins. */
  private mcpServers: readonly { name: string; status: string }[] = [];
  /** tool_use ids whose assistant line is out: their calls' lines pass straight through. */
  private readonly shownCalls = new Set<string>();
  /** Lines waiting for the assistant line of a call, by its tool_use id, in arrival order. */
  private readonly held = new Map<string, HeldLines[]>();

  constructor(private readonly options: StreamJsonMapperOptions) {}

  /** What the MCP servers did at start (`connected` or `failed`), for the init line. */
  setMcpServers(servers: readonly { name: string; status: string }[]): void {
    this.mcpServers = servers.map(({ name, status }) => ({ name, status }));
  }

  /**
   * The lines that are due after this event (often none), masked: its own, unless they wait for
   * the assistant line of their call, and those of earlier events that waited for this one.
   */
  map(event: AgentEvent): StreamJsonLine[] {
    const masker = this.options.masker;
    const lines = this.linesOf(event);
    const item: HeldLines = {
      lines: masker ? lines.map((line) => masker.maskJson(line)) : lines,
      waitsFor: callsBehind(event),
      shows: callsMadeBy(event),
    };
    const out: StreamJsonLine[] = [];
    if (event.type === 'result') this.releaseAll(out);
    this.route(item, out);
    return out;
  }

  /** Out now, or held under the first call it waits for whose assistant line is not out yet. */
  private route(item: HeldLines, out: StreamJsonLine[]): void {
    const waiting = item.waitsFor.find((id) => !this.shownCalls.has(id));
    if (waiting !== undefined) {
      const queue = this.held.get(waiting) ?? [];
      queue.push(item);
      this.held.set(waiting, queue);
      return;
    }
    out.push(...item.lines);
    for (const id of item.shows) {
      this.shownCalls.add(id);
      const queue = this.held.get(id);
      this.held.delete(id);
      for (const next of queue ?? []) this.route(next, out);
    }
  }

  /** The run ended: whatever still waits goes out, in the order it came. */
  private releaseAll(out: StreamJsonLine[]): void {
    while (this.held.size > 0) {
      const [id] = this.held.keys();
      this.route({ lines: [], waitsFor: [], shows: [id!] }, out);
    }
  }

  private linesOf(event: AgentEvent): StreamJsonLine[] {
    const base = () => ({ session_id: this.sessionId, uuid: randomUUID() });
    switch (event.type) {
      case 'session-start':
        this.sessionId = event.sessionId;
        return [
          {
            type: 'system',
            subtype: 'init',
            cwd: event.cwd,
            tools: event.tools,
            mcp_servers: this.mcpServers,
            model: event.model,
            permissionMode: event.permissionMode,
            slash_commands: [],
            apiKeySource: this.options.provider?.apiKeySource ?? 'ANTHROPIC_API_KEY',
            output_style: 'default',
            ci_agent_version: this.options.version,
            // What ends the processes of each Bash call and hook (docs/POLICY.md): in a sandboxed
            // run nothing runs outside the sandbox, whose PID namespace is every call's scope.
            ci_agent_process_scope: this.options.sandbox ? 'sandbox' : processScopeMechanism(),
            // Whether Bash, hooks and MCP servers run in the OS sandbox, and which (src/sandbox/).
            ci_agent_sandbox: this.options.sandbox ?? 'none',
            // Which provider the model is reached through, and with whose credentials (never them).
            ...(this.options.provider && {
              ci_agent_provider: this.options.provider.provider,
              ci_agent_provider_label: this.options.provider.label,
              ci_agent_credentials_from: this.options.provider.credentials,
            }),
            // What a replay checks out and compares against (src/replay/): HEAD at the start
            // (null outside a git checkout) and the policy's files by digest.
            ci_agent_commit: event.commit ?? null,
            ...(this.options.policy && {
              ci_agent_policy: this.options.policy.map(({ path, kind, sha256 }) => ({
                path,
                kind,
                sha256,
              })),
            }),
            ...base(),
          },
        ];
      case 'assistant-message':
        return [
          {
            type: 'assistant',
            message: {
              id: event.messageId,
              type: 'message',
              role: 'assistant',
              model: event.model,
              content: event.message.content,
              stop_reason: event.stopReason,
              stop_sequence: null,
              usage: event.usage,
            },
            parent_tool_use_id: null,
            ...base(),
          },
        ];
      case 'tool-results-message':
        return event.results.map((result, index) => ({
          type: 'user',
          message: { role: 'user', content: [result] },
          parent_tool_use_id: null,
          tool_use_result: event.structured[index],
          ...base(),
        }));
      case 'permission-decision':
        this.decisions.set(event.toolUseId, event.decision.behavior);
        return [
          {
            type: 'system',
            subtype: 'permission_decision',
            tool_use_id: event.toolUseId,
            tool_name: event.toolName,
            behavior: event.decision.behavior,
            ask_resolved: event.decision.askResolved,
            decision_source: event.decision.source,
            rules: event.decision.matchedRules.map((rule) => ({
              rule: rule.text,
              source: rule.source,
            })),
            reason: event.decision.reason,
            // A denial's way to allow it, or why there is none (docs/DECISIONS.md #22).
            ...(event.decision.behavior === 'deny' && {
              suggestion: event.decision.advice ? denialAdviceRecord(event.decision.advice) : null,
            }),
            ...base(),
          },
        ];
      case 'hook-run':
        return [
          {
            type: 'system',
            subtype: 'hook_response',
            tool_use_id: event.toolUseId,
            hook_event: event.run.event,
            exit_code: event.run.exitCode,
            stderr: event.run.stderrExcerpt ?? '',
            ...event.run,
            ...base(),
          },
        ];
      case 'tool-result': {
        const decision = this.decisions.get(event.toolUseId) ?? null;
        this.decisions.delete(event.toolUseId);
        return [
          {
            type: 'system',
            subtype: 'tool_call_end',
            tool_use_id: event.toolUseId,
            tool_name: event.toolName,
            stage: event.stage,
            duration_ms: Math.round(event.durationMs),
            is_error: event.result.is_error === true,
            decision,
            result_chars: textLength(event.result),
            ...base(),
          },
        ];
      }
      case 'compact-boundary':
        return [
          {
            type: 'system',
            subtype: 'compact_boundary',
            compact_metadata: { trigger: event.trigger, pre_tokens: event.preTokens },
            // Ours: the summary the model wrote, which `ci-agent replay` serves again.
            ci_agent_summary: event.summary,
            ...base(),
          },
        ];
      case 'api-retry':
        return [
          {
            type: 'system',
            subtype: 'api_retry',
            attempt: event.attempt,
            max_retries: event.maxRetries,
            retry_delay_ms: event.delayMs,
            error_status: event.status ?? null,
            error: event.error,
            error_message: event.message,
            error_cause: event.cause ?? event.message,
            request_url: event.url ?? null,
            ...base(),
          },
        ];
      case 'partial-response':
        return [
          {
            type: 'system',
            subtype: 'api_partial_response',
            message_id: event.messageId,
            kept_blocks: event.keptBlocks,
            tool_use_ids: event.toolUseIds,
            error_status: event.status ?? null,
            error: event.error,
            error_message: event.message,
            ...base(),
          },
        ];
      case 'result':
        return [resultLine(event.result, this.sessionId)];
      case 'subagent-event':
        return this.subagentLines(event);
      case 'tool-call-start':
      case 'tool-progress':
        return [];
    }
  }

  private subagentLines(event: SubagentEvent): StreamJsonLine[] {
    return subagentFrame(event, this.sessionId, () => this.linesOf(event.event));
  }
}

type SubagentEvent = Extract<AgentEvent, { type: 'subagent-event' }>;

interface HeldLines {
  lines: StreamJsonLine[];
  /** The calls whose assistant lines must be out first, outermost first. */
  waitsFor: string[];
  /** The calls whose assistant line this is. */
  shows: string[];
}

/** The calls an event's lines belong to: its own, under the Agent call of its subagent. */
function callsBehind(event: AgentEvent): string[] {
  switch (event.type) {
    case 'permission-decision':
    case 'tool-result':
      return [event.toolUseId];
    case 'hook-run':
      return event.toolUseId === undefined ? [] : [event.toolUseId];
    case 'subagent-event':
      return [event.parentToolUseId, ...callsBehind(event.event)];
    default:
      return [];
  }
}

/** The tool_use ids of an assistant message (a subagent's too). */
function callsMadeBy(event: AgentEvent): string[] {
  if (event.type === 'subagent-event') return callsMadeBy(event.event);
  if (event.type !== 'assistant-message') return [];
  return event.message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
}

/** A subagent's event as lines: framed by start and end, the rest under the parent call. */
function subagentFrame(
  event: SubagentEvent,
  sessionId: string,
  innerLines: () => StreamJsonLine[],
): StreamJsonLine[] {
  const agent = {
    parent_tool_use_id: event.parentToolUseId,
    agent_id: event.agentId,
    agent_type: event.agentType,
  };
  const base = () => ({ session_id: sessionId, uuid: randomUUID() });
  const inner = event.event;
  if (inner.type === 'session-start') {
    return [
      {
        type: 'system',
        subtype: 'subagent_start',
        ...agent,
        model: inner.model,
        tools: inner.tools,
        ...base(),
      },
    ];
  }
  if (inner.type === 'result') {
    const result = inner.result;
    return [
      {
        type: 'system',
        subtype: 'subagent_end',
        ...agent,
        status: result.subtype,
        is_error: result.isError,
        num_turns: result.numTurns,
        duration_ms: result.durationMs,
        total_cost_usd: result.totalCostUsd,
        usage: result.usage,
        errors: result.errors,
        ...base(),
      },
    ];
  }
  return innerLines().map((line) => ({ ...line, parent_tool_use_id: event.parentToolUseId }));
}

/** One EventSink feeding every line of every event to each sink, in order. */
export function streamJsonSink(mapper: StreamJsonMapper, sinks: readonly LineSink[]): EventSink {
  return (event) => {
    for (const line of mapper.map(event)) for (const sink of sinks) sink(line);
  };
}

export function resultLine(result: RunResult, sessionId: string): StreamJsonLine {
  return {
    type: 'result',
    subtype: result.subtype,
    is_error: result.isError,
    duration_ms: result.durationMs,
    duration_api_ms: result.durationApiMs,
    num_turns: result.numTurns,
    ...(result.subtype === 'success' ? { result: result.result } : { errors: result.errors }),
    stop_reason: result.stopReason,
    session_id: sessionId,
    total_cost_usd: result.totalCostUsd,
    usage: result.usage,
    modelUsage: result.modelUsage,
    permission_denials: result.permissionDenials,
    uuid: randomUUID(),
  };
}

/** Characters of text the model got back (images count zero). */
function textLength(result: ToolResultBlock): number {
  if (typeof result.content === 'string') return result.content.length;
  return result.content.reduce(
    (total, block) => total + (block.type === 'text' ? block.text.length : 0),
    0,
  );
}
