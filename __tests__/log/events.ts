/** AgentEvents of a small run (Read allowed, Bash denied), for the log and renderer tests. */
import type { AgentEvent, RunResult } from '../../src/agent/events.js';
import type { PermissionDecision } from '../../src/permissions/types.js';

export const SESSION_ID = 'session-1';
const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

export const sessionStart = {
  type: 'session-start',
  sessionId: SESSION_ID,
  cwd: '/repo',
  model: 'claude-sonnet-5-5',
  tools: ['Bash', 'Read'],
  permissionMode: 'default',
} satisfies AgentEvent;

export function assistantMessage(text: string, toolUses: Array<[string, string, unknown]> = []) {
  return {
    type: 'assistant-message',
    messageId: 'msg_1',
    model: 'claude-sonnet-5-5',
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text },
        ...toolUses.map(([id, name, input]) => ({ type: 'tool_use' as const, id, name, input })),
      ],
    },
    stopReason: toolUses.length > 0 ? 'tool_use' : 'end_turn',
    usage,
  } satisfies AgentEvent;
}

export function decision(behavior: 'allow' | 'deny', reason: string): PermissionDecision {
  return {
    behavior,
    askResolved: behavior === 'deny',
    source: behavior === 'deny' ? 'default' : 'mode',
    matchedRules:
      behavior === 'deny' ? [{ text: 'Bash(rm:*)', toolName: 'Bash', source: 'policy.yml' }] : [],
    reason,
  };
}

export function permissionDecision(
  toolUseId: string,
  toolName: string,
  behavior: 'allow' | 'deny',
  reason = `${behavior} by test`,
) {
  return {
    type: 'permission-decision',
    toolUseId,
    toolName,
    input: {},
    decision: decision(behavior, reason),
  } satisfies AgentEvent;
}

export function toolResult(
  toolUseId: string,
  content: string,
  options: { isError?: boolean; stage?: string; durationMs?: number } = {},
) {
  return {
    type: 'tool-result',
    toolUseId,
    toolName: 'Read',
    result: { type: 'tool_result', tool_use_id: toolUseId, content, is_error: options.isError },
    structured: { content },
    durationMs: options.durationMs ?? 12.4,
    stage: options.stage ?? 'completed',
  } satisfies AgentEvent;
}

export function toolResultsMessage(...contents: Array<[string, string]>) {
  return {
    type: 'tool-results-message',
    results: contents.map(([id, content]) => ({
      type: 'tool_result' as const,
      tool_use_id: id,
      content,
    })),
    structured: contents.map(([, content]) => ({ stdout: content })),
  } satisfies AgentEvent;
}

export function hookRun(stderr: string, toolUseId?: string) {
  return {
    type: 'hook-run',
    toolUseId,
    run: {
      event: 'PreToolUse',
      matcher: 'Bash',
      command: 'sh check.sh',
      exitCode: 2,
      durationMs: 31,
      decision: 'deny',
      stderrExcerpt: stderr,
      status: 'completed',
      source: '.claude/settings.json',
    },
  } satisfies AgentEvent;
}

export function runResult(overrides: Partial<RunResult> = {}): RunResult {
  return {
    subtype: 'success',
    isError: false,
    result: 'All done.',
    numTurns: 2,
    durationMs: 1500,
    durationApiMs: 900,
    stopReason: 'end_turn',
    totalCostUsd: 0.0123,
    usage,
    modelUsage: {},
    permissionDenials: [],
    errors: [],
    ...overrides,
  };
}

export function resultEvent(overrides: Partial<RunResult> = {}): AgentEvent {
  return { type: 'result', result: runResult(overrides) };
}
