/**
 * Renders run events in the `claude -p` output formats (CC-COMPAT §4): text prints the final
 * result; json prints the result message (with --verbose, the array of all messages);
 * stream-json prints one message per line as it happens. Our own audit events (permission
 * decisions, hook runs) appear as `system` messages with their own subtypes.
 */
import { randomUUID } from 'node:crypto';
import type { AgentEvent, RunResult } from '../agent/events.js';
import type { OutputFormat } from './args.js';

export const CI_AGENT_VERSION = '0.1.0';

type Line = Record<string, unknown>;

export class OutputRenderer {
  private sessionId = '';
  private readonly collected: Line[] = [];

  constructor(
    private readonly format: OutputFormat,
    private readonly verbose: boolean,
    private readonly write: (text: string) => void,
  ) {}

  /** Feeds one event; returns nothing, writes as the format requires. */
  handle(event: AgentEvent): void {
    for (const line of this.toLines(event)) {
      if (this.format === 'stream-json') this.write(`${JSON.stringify(line)}\n`);
      else if (this.format === 'json' && this.verbose) this.collected.push(line);
    }
    if (event.type === 'result') this.finish(event.result);
  }

  private finish(result: RunResult): void {
    if (this.format === 'json') {
      const message = resultLine(result, this.sessionId);
      this.write(`${JSON.stringify(this.verbose ? this.collected : message)}\n`);
    } else if (this.format === 'text') {
      this.write(`${textResult(result)}\n`);
    }
  }

  private toLines(event: AgentEvent): Line[] {
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
            mcp_servers: [],
            model: event.model,
            permissionMode: event.permissionMode,
            slash_commands: [],
            apiKeySource: 'ANTHROPIC_API_KEY',
            output_style: 'default',
            ci_agent_version: CI_AGENT_VERSION,
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
            ...base(),
          },
        ];
      case 'hook-run':
        return [
          {
            type: 'system',
            subtype: 'hook_response',
            tool_use_id: event.toolUseId,
            ...event.run,
            ...base(),
          },
        ];
      case 'result':
        return [resultLine(event.result, this.sessionId)];
      case 'tool-call-start':
      case 'tool-progress':
      case 'tool-result':
        return [];
    }
  }
}

export function resultLine(result: RunResult, sessionId: string): Line {
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

function textResult(result: RunResult): string {
  if (result.subtype === 'success') return result.result;
  if (result.subtype === 'error_max_turns')
    return `Error: ${result.errors[0] ?? 'Reached max turns'}`;
  return `Error: ${result.errors.join('; ') || 'execution failed'}`;
}
