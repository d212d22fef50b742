/**
 * Turns the raw Messages API stream events into `ModelStreamEvent`s and the finished message.
 * Blocks are built from their deltas here rather than by the SDK's MessageStream helper, because
 * the loop needs each block the moment its `content_block_stop` arrives.
 *
 * Server tool blocks (`server_tool_use`, `web_search_tool_result`) and the citations of text
 * blocks are kept verbatim: the API runs those tools itself and wants the blocks back unchanged.
 * Other block types and events (future additions) are skipped: a newer API must not break an
 * older runner.
 */

import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { CompletedMessage, ModelStreamEvent } from './model-client.js';
import { emptyUsage } from './types.js';
import type { AssistantContentBlock, ServerToolUsage, StopReason, Usage } from './types.js';

type PartialBlock =
  | { type: 'text'; text: string; citations?: unknown[] }
  | { type: 'tool_use'; id: string; name: string; json: string; startInput: unknown }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  /** Every field of the start block; input_json_delta text for server_tool_use. */
  | { type: 'server_tool_use'; fields: Record<string, unknown>; json: string }
  | { type: 'web_search_tool_result'; fields: Record<string, unknown> };

interface FinishedBlock {
  block: AssistantContentBlock;
  inputError?: string;
}

interface UsageNumbers {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  server_tool_use?: unknown;
}

export class MessageAccumulator {
  private id = '';
  private model = '';
  private started = false;
  private stopped = false;
  private stopReason: StopReason | null = null;
  private readonly usage: Usage = emptyUsage();
  private readonly open = new Map<number, PartialBlock>();
  private readonly finished = new Map<number, AssistantContentBlock>();

  /** True once `message_stop` has arrived; a stream that ends before it was cut off. */
  get complete(): boolean {
    return this.stopped;
  }

  push(event: RawMessageStreamEvent): ModelStreamEvent[] {
    switch (event.type) {
      case 'message_start': {
        this.started = true;
        this.id = event.message.id;
        this.model = event.message.model;
        mergeUsage(this.usage, event.message.usage);
        return [
          {
            type: 'message-start',
            messageId: this.id,
            model: this.model,
            usage: { ...this.usage },
          },
        ];
      }
      case 'content_block_start':
        return this.startBlock(event.index, event.content_block);
      case 'content_block_delta':
        return this.applyDelta(event.index, event.delta);
      case 'content_block_stop':
        return this.stopBlock(event.index);
      case 'message_delta': {
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        mergeUsage(this.usage, event.usage);
        return [];
      }
      case 'message_stop': {
        this.stopped = true;
        return [{ type: 'message-complete', message: this.message() }];
      }
      default:
        return [];
    }
  }

  private message(): CompletedMessage {
    const content = [...this.finished.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, block]) => block);
    return {
      id: this.id,
      model: this.model,
      content,
      stopReason: this.stopReason,
      usage: { ...this.usage },
    };
  }

  private startBlock(index: number, block: { type: string }): ModelStreamEvent[] {
    const partial = toPartial(block);
    if (partial === undefined) return [];
    this.open.set(index, partial);
    if (partial.type === 'tool_use')
      return [{ type: 'tool-use-start', index, id: partial.id, name: partial.name }];
    return [];
  }

  private applyDelta(index: number, delta: { type: string }): ModelStreamEvent[] {
    const partial = this.open.get(index);
    if (partial === undefined) return [];
    if (isDelta(delta, 'text_delta', 'text') && partial.type === 'text') {
      partial.text += delta.text;
      return [{ type: 'text-delta', index, text: delta.text }];
    }
    if (isDelta(delta, 'input_json_delta', 'partial_json') && partial.type === 'tool_use') {
      partial.json += delta.partial_json;
      return [{ type: 'tool-input-delta', index, partialJson: delta.partial_json }];
    }
    if (isDelta(delta, 'input_json_delta', 'partial_json') && partial.type === 'server_tool_use') {
      partial.json += delta.partial_json;
      return [];
    }
    if (delta.type === 'citations_delta' && partial.type === 'text') {
      const citation = (delta as { citation?: unknown }).citation;
      if (citation !== undefined) (partial.citations ??= []).push(citation);
      return [];
    }
    if (isDelta(delta, 'thinking_delta', 'thinking') && partial.type === 'thinking') {
      partial.thinking += delta.thinking;
    } else if (isDelta(delta, 'signature_delta', 'signature') && partial.type === 'thinking') {
      partial.signature += delta.signature;
    }
    return [];
  }

  private stopBlock(index: number): ModelStreamEvent[] {
    const partial = this.open.get(index);
    if (partial === undefined) return [];
    this.open.delete(index);
    const { block, inputError } = finishBlock(partial);
    this.finished.set(index, block);
    if (inputError === undefined) return [{ type: 'block-complete', index, block }];
    return [{ type: 'block-complete', index, block, inputError }];
  }

  /** Whether anything of the response arrived; the adapter words a dropped stream by it. */
  get hasStarted(): boolean {
    return this.started;
  }
}

function toPartial(block: { type: string }): PartialBlock | undefined {
  const fields = block as Record<string, unknown>;
  switch (block.type) {
    case 'text': {
      const citations = fields['citations'];
      return Array.isArray(citations) && citations.length > 0
        ? {
            type: 'text',
            text: stringField(fields, 'text'),
            citations: [...(citations as unknown[])],
          }
        : { type: 'text', text: stringField(fields, 'text') };
    }
    case 'server_tool_use':
      return { type: 'server_tool_use', fields: { ...fields }, json: '' };
    case 'web_search_tool_result':
      return { type: 'web_search_tool_result', fields: { ...fields } };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: stringField(fields, 'id'),
        name: stringField(fields, 'name'),
        json: '',
        startInput: fields['input'],
      };
    case 'thinking':
      return {
        type: 'thinking',
        thinking: stringField(fields, 'thinking'),
        signature: stringField(fields, 'signature'),
      };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: stringField(fields, 'data') };
    default:
      return undefined;
  }
}

function finishBlock(partial: PartialBlock): FinishedBlock {
  switch (partial.type) {
    case 'text':
      return {
        block:
          partial.citations === undefined
            ? { type: 'text', text: partial.text }
            : { type: 'text', text: partial.text, citations: partial.citations },
      };
    case 'server_tool_use': {
      const parsed = parseToolInput(partial.json, partial.fields['input']);
      const block = {
        ...partial.fields,
        type: 'server_tool_use' as const,
        id: stringField(partial.fields, 'id'),
        name: stringField(partial.fields, 'name'),
        input: parsed.input,
      };
      return { block };
    }
    case 'web_search_tool_result':
      return {
        block: {
          ...partial.fields,
          type: 'web_search_tool_result',
          tool_use_id: stringField(partial.fields, 'tool_use_id'),
          content: partial.fields['content'],
        },
      };
    case 'thinking':
      return {
        block: { type: 'thinking', thinking: partial.thinking, signature: partial.signature },
      };
    case 'redacted_thinking':
      return { block: { type: 'redacted_thinking', data: partial.data } };
    case 'tool_use': {
      const parsed = parseToolInput(partial.json, partial.startInput);
      const block: AssistantContentBlock = {
        type: 'tool_use',
        id: partial.id,
        name: partial.name,
        input: parsed.input,
      };
      return parsed.error === undefined ? { block } : { block, inputError: parsed.error };
    }
  }
}

/**
 * The input arrives as JSON text split across deltas. A tool without parameters may send no
 * delta at all, in which case the input given at block start stands.
 */
export function parseToolInput(
  json: string,
  startInput: unknown = {},
): { input: unknown; error?: string } {
  if (json.trim() === '') return { input: isPlainObject(startInput) ? startInput : {} };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      input: {},
      error: `The tool input is not valid JSON (${reason}): ${truncate(json, 200)}`,
    };
  }
  if (!isPlainObject(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return {
      input: {},
      error: `The tool input must be a JSON object, but it is ${kind}: ${truncate(json, 200)}`,
    };
  }
  return { input: value };
}

function mergeUsage(target: Usage, source: UsageNumbers | null | undefined): void {
  if (source === null || source === undefined) return;
  // message_delta carries cumulative counts, so a later value replaces an earlier one.
  if (typeof source.input_tokens === 'number') target.input_tokens = source.input_tokens;
  if (typeof source.output_tokens === 'number') target.output_tokens = source.output_tokens;
  if (typeof source.cache_creation_input_tokens === 'number') {
    target.cache_creation_input_tokens = source.cache_creation_input_tokens;
  }
  if (typeof source.cache_read_input_tokens === 'number') {
    target.cache_read_input_tokens = source.cache_read_input_tokens;
  }
  const serverTools = serverToolUsage(source.server_tool_use);
  if (serverTools !== undefined) target.server_tool_use = serverTools;
}

/** The numeric counters of `usage.server_tool_use`; absent or empty: undefined. */
function serverToolUsage(value: unknown): ServerToolUsage | undefined {
  if (!isPlainObject(value)) return undefined;
  const counters = Object.entries(value).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number',
  );
  if (counters.length === 0) return undefined;
  return { web_search_requests: 0, ...Object.fromEntries(counters) };
}

function isDelta<K extends string>(
  delta: { type: string },
  type: string,
  field: K,
): delta is { type: string } & Record<K, string> {
  return delta.type === type && typeof (delta as Record<string, unknown>)[field] === 'string';
}

function stringField(fields: Record<string, unknown>, name: string): string {
  const value = fields[name];
  return typeof value === 'string' ? value : '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`;
}
