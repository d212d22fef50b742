/**
 * A run's tool log (src/log/stream-json.ts) read back into its calls, for `ci-agent audit`.
 *
 *   1. each line is checked against the shape of its kind (zod, unknown fields kept: a chain
 *      hash or a field a later version adds is not a problem); a line that is not an object,
 *      or whose kind has the wrong shape, becomes a `problems` entry, never an exception
 *   2. an `assistant` line's tool_use blocks open calls, in the order the model made them
 *   3. `permission_decision`, `hook_response`, `tool_call_end` and `user` (tool_result) lines
 *      fill in the call their `tool_use_id` names; a line naming no known call is a problem
 *   4. `subagent_start`/`subagent_end` frame a subagent; its calls carry the Agent call's id
 *   5. `init` and `result` give the run's setting and outcome; `compact_boundary`,
 *      `api_retry` and `api_partial_response` are kept as run events
 *
 * Everything here is the log's text, untrusted: the views (explain.ts, html.ts) neutralise it.
 */
import type * as z from 'zod';
import {
  assistantLine,
  callEndLine,
  decisionLine,
  hookLine,
  initLine,
  resultLine,
  subagentLine,
  textBlock,
  toolResultBlock,
  toolUseBlock,
  userLine,
} from './log-lines.js';
import type { AuditCall, AuditHook, AuditRun, AuditRunEvent } from './audit-run.js';

/** Characters of a call's result kept for the views; the rest is counted. */
export const RESULT_TEXT_CHARS = 2_000;

export type * from './audit-run.js';

/** A log file's text as readAuditRun takes it: a line that is not JSON stays undefined. */
export function parseLogLines(text: string): unknown[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return undefined;
    }
  });
}

/**
 * The run a tool log records. `lines`: one entry per line of the file, in order (a line that
 * did not parse as JSON as anything but an object, e.g. undefined, so that numbers stay right).
 */
export function readAuditRun(lines: readonly unknown[]): AuditRun {
  const reader = new RunReader();
  lines.forEach((line, index) => reader.read(line, index + 1));
  return reader.finish();
}

class RunReader {
  private readonly run: AuditRun = {
    calls: [],
    subagents: [],
    sessionHooks: [],
    texts: [],
    events: [],
    problems: [],
  };
  private readonly calls = new Map<string, AuditCall>();

  read(value: unknown, line: number): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem(line, 'not a JSON object');
      return;
    }
    const record = value as Record<string, unknown>;
    const kind = record.type === 'system' ? `system/${String(record.subtype)}` : record.type;
    const handler =
      typeof kind === 'string' && Object.hasOwn(HANDLERS, kind) ? HANDLERS[kind] : undefined;
    // Lines of kinds the audit does not read (a later version's) pass without a word.
    handler?.(this, record, line);
  }

  finish(): AuditRun {
    return this.run;
  }

  problem(line: number, message: string): void {
    this.run.problems.push({ line, message });
  }

  /** The value in the shape, or a problem naming the line, the kind and the first bad field. */
  parse<T>(schema: z.ZodType<T>, value: unknown, line: number, kind: string): T | undefined {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(line)';
    this.problem(line, `a ${kind} line with a bad \`${field}\`: ${issue?.message ?? 'invalid'}`);
    return undefined;
  }

  assistant(record: unknown, line: number): void {
    const parsed = this.parse(assistantLine, record, line, 'assistant');
    if (!parsed) return;
    const parentToolUseId = parsed.parent_tool_use_id ?? undefined;
    for (const block of parsed.message.content) {
      if (block.type === 'text') {
        const ok = textBlock.safeParse(block);
        if (ok.success)
          this.run.texts.push({
            text: ok.data.text,
            line,
            ...(parentToolUseId && { parentToolUseId }),
          });
        continue;
      }
      if (block.type !== 'tool_use') continue;
      const use = this.parse(toolUseBlock, block, line, 'tool_use');
      if (!use) continue;
      if (this.calls.has(use.id)) {
        this.problem(line, `a second tool_use with the id ${JSON.stringify(use.id)}`);
        continue;
      }
      const call: AuditCall = {
        index: this.run.calls.length + 1,
        toolUseId: use.id,
        tool: use.name,
        input: use.input,
        hooks: [],
        line,
        lastLine: line,
        ...(parentToolUseId && { parentToolUseId }),
      };
      this.calls.set(use.id, call);
      this.run.calls.push(call);
    }
  }

  /** The call a line names, or a problem. */
  callFor(id: string, line: number, kind: string): AuditCall | undefined {
    const call = this.calls.get(id);
    if (!call)
      this.problem(line, `a ${kind} line for ${JSON.stringify(id)}, a call no assistant line made`);
    else call.lastLine = Math.max(call.lastLine, line);
    return call;
  }

  user(record: unknown, line: number): void {
    const parsed = this.parse(userLine, record, line, 'user');
    if (!parsed || typeof parsed.message.content === 'string') return;
    for (const block of parsed.message.content) {
      if (block.type !== 'tool_result') continue;
      const result = this.parse(toolResultBlock, block, line, 'tool_result');
      const call = result && this.callFor(result.tool_use_id, line, 'tool_result');
      if (!result || !call) continue;
      const full = resultText(result.content);
      call.result = {
        isError: result.is_error === true,
        text: full.slice(0, RESULT_TEXT_CHARS),
        chars: full.length,
        truncated: full.length > RESULT_TEXT_CHARS,
      };
    }
  }

  decision(record: unknown, line: number): void {
    const parsed = this.parse(decisionLine, record, line, 'permission_decision');
    const call = parsed && this.callFor(parsed.tool_use_id, line, 'permission_decision');
    if (!parsed || !call) return;
    call.decision = {
      behavior: parsed.behavior,
      askResolved: parsed.ask_resolved === true,
      source: parsed.decision_source,
      reason: parsed.reason,
      rules: parsed.rules.map(({ rule, source }) => ({ rule, source })),
      ...(parsed.suggestion && { suggestion: parsed.suggestion.text }),
    };
  }

  hook(record: unknown, line: number): void {
    const parsed = this.parse(hookLine, record, line, 'hook_response');
    if (!parsed) return;
    const hook: AuditHook = compact({
      event: parsed.event,
      command: parsed.command,
      matcher: parsed.matcher,
      status: parsed.status,
      exitCode: parsed.exitCode,
      durationMs: parsed.durationMs,
      decision: parsed.decision,
      error: parsed.error,
      stderr: parsed.stderrExcerpt,
      systemMessage: parsed.systemMessage,
      source: parsed.source,
      required: parsed.required,
      line,
    });
    if (parsed.tool_use_id == null) {
      this.run.sessionHooks.push(hook);
      return;
    }
    this.callFor(parsed.tool_use_id, line, 'hook_response')?.hooks.push(hook);
  }

  callEnd(record: unknown, line: number): void {
    const parsed = this.parse(callEndLine, record, line, 'tool_call_end');
    const call = parsed && this.callFor(parsed.tool_use_id, line, 'tool_call_end');
    if (!parsed || !call) return;
    call.stage = parsed.stage;
    call.durationMs = parsed.duration_ms;
  }

  subagentStart(record: unknown, line: number): void {
    const parsed = this.parse(subagentLine, record, line, 'subagent_start');
    if (!parsed) return;
    this.run.subagents.push({
      parentToolUseId: parsed.parent_tool_use_id,
      agentId: parsed.agent_id,
      agentType: parsed.agent_type,
    });
  }

  subagentEnd(record: unknown, line: number): void {
    const parsed = this.parse(subagentLine, record, line, 'subagent_end');
    if (!parsed) return;
    const agent = this.run.subagents.find((item) => item.agentId === parsed.agent_id);
    if (!agent) {
      this.problem(
        line,
        `a subagent_end for ${JSON.stringify(parsed.agent_id)}, which never started`,
      );
      return;
    }
    Object.assign(
      agent,
      compact({
        status: parsed.status,
        numTurns: parsed.num_turns,
        durationMs: parsed.duration_ms,
      }),
    );
  }

  init(record: unknown, line: number): void {
    const parsed = this.parse(initLine, record, line, 'init');
    if (!parsed) return;
    if (this.run.setting) this.problem(line, 'a second init line');
    this.run.setting = compact({
      cwd: parsed.cwd,
      model: parsed.model,
      permissionMode: parsed.permissionMode,
      version: parsed.ci_agent_version,
      sandbox: parsed.ci_agent_sandbox,
    });
  }

  result(record: unknown, line: number): void {
    const parsed = this.parse(resultLine, record, line, 'result');
    if (!parsed) return;
    if (this.run.outcome) this.problem(line, 'a second result line');
    this.run.outcome = compact({
      subtype: parsed.subtype,
      isError: parsed.is_error,
      numTurns: parsed.num_turns,
      durationMs: parsed.duration_ms,
      totalCostUsd: parsed.total_cost_usd,
      result: parsed.result,
      errors: parsed.errors ?? [],
      permissionDenials: parsed.permission_denials?.length ?? 0,
    });
  }

  event(kind: AuditRunEvent['kind'], record: Record<string, unknown>, line: number): void {
    this.run.events.push({ kind, summary: eventSummary(kind, record), line });
  }
}

type Handler = (reader: RunReader, record: Record<string, unknown>, line: number) => void;

const HANDLERS: Readonly<Record<string, Handler>> = {
  assistant: (reader, record, line) => reader.assistant(record, line),
  user: (reader, record, line) => reader.user(record, line),
  'system/init': (reader, record, line) => reader.init(record, line),
  'system/permission_decision': (reader, record, line) => reader.decision(record, line),
  'system/hook_response': (reader, record, line) => reader.hook(record, line),
  'system/tool_call_end': (reader, record, line) => reader.callEnd(record, line),
  'system/subagent_start': (reader, record, line) => reader.subagentStart(record, line),
  'system/subagent_end': (reader, record, line) => reader.subagentEnd(record, line),
  'system/compact_boundary': (reader, record, line) =>
    reader.event('compact_boundary', record, line),
  'system/api_retry': (reader, record, line) => reader.event('api_retry', record, line),
  'system/api_partial_response': (reader, record, line) =>
    reader.event('api_partial_response', record, line),
  result: (reader, record, line) => reader.result(record, line),
};

function eventSummary(kind: AuditRunEvent['kind'], record: Record<string, unknown>): string {
  const field = (name: string) => {
    const value = record[name];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
  };
  switch (kind) {
    case 'compact_boundary': {
      const meta = record.compact_metadata as Record<string, unknown> | undefined;
      const trigger = typeof meta?.trigger === 'string' ? meta.trigger : '?';
      const tokens = typeof meta?.pre_tokens === 'number' ? meta.pre_tokens : '?';
      return `the conversation was compacted (${trigger}, ${tokens} tokens before)`;
    }
    case 'api_retry':
      return `model request retried (attempt ${field('attempt')} of ${field('max_retries')}): ${field('error_message')}`;
    case 'api_partial_response':
      return `a response was cut off; its complete tool calls were kept: ${field('error_message')}`;
  }
}

/** The text a tool_result carries (images count zero). */
function resultText(content: string | readonly { type: string }[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .flatMap((block) => {
      const parsed = textBlock.safeParse(block);
      return parsed.success ? [parsed.data.text] : [];
    })
    .join('\n');
}

/** The object without its null and undefined fields: the views test presence with `in`. */
function compact<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined && field !== null),
  ) as { [K in keyof T]: Exclude<T[K], null> };
}
