/**
 * What the CLI says on stderr while a run goes on, in every output format (stdout keeps only the
 * output the format promises): each denial (with how to allow it, or why nothing can), each model API retry, a response kept after it was
 * cut off, and an error result. With `--verbose` in text mode, also turn by turn: the
 * assistant's text, each tool call with its decision, and how the call ended. `claude -p
 * --verbose` prints nothing more in text mode; ci-agent uses stderr for it, so stdout is the
 * same as Claude Code's.
 *
 * It reads the stream-json lines (log/stream-json.ts), already masked, in which a call's lines
 * follow the assistant line that made the call: the call's input is known by the time its
 * decision is told.
 */
import { describeInput } from '../agent/context/result-notes.js';
import type { LineSink, StreamJsonLine } from '../log/stream-json.js';
import { retryLine } from '../model/retry-policy.js';
import { neutralise } from '../util/neutralise.js';
import { STDERR_PREFIX } from './stderr-text.js';

export interface StderrReporterOptions {
  /** Turn-by-turn lines too (`--verbose` in text mode). */
  turns: boolean;
  write: (text: string) => void;
}

export class StderrReporter {
  /** Each call's `Name(input)` label, from the assistant line that made it. */
  private readonly labels = new Map<string, string>();
  private turn = 0;

  constructor(private readonly options: StderrReporterOptions) {}

  readonly accept: LineSink = (line) => {
    for (const text of this.linesOf(line)) this.options.write(`${STDERR_PREFIX}${oneLine(text)}\n`);
  };

  private linesOf(line: StreamJsonLine): string[] {
    const verbose = this.options.turns;
    const within = typeof line.parent_tool_use_id === 'string' ? 'subagent: ' : '';
    if (line.type === 'assistant') return this.assistant(line, within);
    if (line.type === 'result') return this.result(line);
    if (line.type !== 'system') return [];
    const label = () => this.labels.get(String(line.tool_use_id)) ?? String(line.tool_name);
    switch (line.subtype) {
      case 'permission_decision':
        if (line.behavior === 'deny') {
          return [`${within}denied ${label()}: ${String(line.reason)}${adviceOf(line.suggestion)}`];
        }
        return verbose ? [`${within}allowed ${label()}: ${String(line.reason)}`] : [];
      case 'tool_call_end':
        return verbose ? [`${within}${label()} → ${callOutcome(line)}`] : [];
      case 'api_retry':
        return [
          retryLine({
            attempt: Number(line.attempt),
            maxRetries: Number(line.max_retries),
            delayMs: Number(line.retry_delay_ms),
            message: String(line.error_message),
            ...(typeof line.error_cause === 'string' && { cause: line.error_cause }),
            ...(typeof line.request_url === 'string' && { url: line.request_url }),
          }),
        ];
      case 'api_partial_response':
        return [
          `the model response was cut off (${String(line.error_message)}); its ${String(line.kept_blocks)} complete block(s) were kept, since their tool calls may have started`,
        ];
      case 'init':
        return verbose ? [sandboxLine(line.ci_agent_sandbox)] : [];
      case 'compact_boundary':
        return verbose ? ['the older part of the conversation was summarised'] : [];
      default:
        return [];
    }
  }

  private assistant(line: StreamJsonLine, within: string): string[] {
    const message = line.message as { content?: unknown } | undefined;
    const content = Array.isArray(message?.content) ? (message.content as ContentBlock[]) : [];
    for (const block of content) {
      if (block.type === 'tool_use' && typeof block.id === 'string') {
        this.labels.set(block.id, `${String(block.name)}(${describeInput(block.input)})`);
      }
    }
    if (!this.options.turns) return [];
    if (within === '') this.turn++;
    const texts = content
      .filter((block) => block.type === 'text' && typeof block.text === 'string')
      .map((block) => String(block.text).trim())
      .filter((text) => text !== '');
    const calls = content.filter((block) => block.type === 'tool_use').length;
    const head = within === '' ? `turn ${this.turn}` : within.replace(/: $/, '');
    const said = texts.length > 0 ? `: ${texts.join(' ')}` : '';
    const asks = calls > 0 ? ` [${calls} tool call${calls === 1 ? '' : 's'}]` : '';
    return [`${head}${said}${asks}`];
  }

  private result(line: StreamJsonLine): string[] {
    if (line.is_error === true) {
      const errors = Array.isArray(line.errors)
        ? line.errors.filter((error): error is string => typeof error === 'string')
        : [];
      return [`error (${String(line.subtype)}): ${errors.join('; ') || 'the run failed'}`];
    }
    if (!this.options.turns) return [];
    const cost = typeof line.total_cost_usd === 'number' ? line.total_cost_usd.toFixed(4) : '?';
    return [
      `done: ${String(line.num_turns)} turn(s), $${cost}, ${Number(line.duration_ms) / 1000} s`,
    ];
  }
}

interface ContentBlock {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  text?: unknown;
}

function callOutcome(line: StreamJsonLine): string {
  const size = `${String(line.result_chars)} chars, ${String(line.duration_ms)} ms`;
  if (line.is_error !== true) return `ok (${size})`;
  return `error at stage ${String(line.stage)} (${size})`;
}

/** What the denial's suggestion says: how to allow the call, or why it cannot be allowed. */
function adviceOf(suggestion: unknown): string {
  if (typeof suggestion !== 'object' || suggestion === null) return '';
  const { allowable, text } = suggestion as { allowable?: unknown; text?: unknown };
  if (typeof text !== 'string' || text === '') return '';
  return allowable === true ? `. To allow it: ${text}` : `. It cannot be allowed: ${text}`;
}

/**
 * One line per report: newlines in texts, commands and reasons would break the prefix, and any
 * other control character (a lone carriage return, an escape) is shown, not sent (stderr-text.ts).
 */
function oneLine(text: string): string {
  return neutralise(text.replace(/\s*\n\s*/g, ' ⏎ '));
}

function sandboxLine(sandbox: unknown): string {
  if (typeof sandbox === 'string' && sandbox !== 'none') return `sandboxed: ${sandbox}`;
  return 'unsandboxed: commands run with ci-agent\'s own rights (`"sandbox": {"enabled": true}` in a settings file turns the sandbox on)';
}
