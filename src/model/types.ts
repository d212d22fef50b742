/**
 * The conversation as the Messages API carries it. The engine speaks these shapes; a provider
 * adapter converts at its edge. They are plain JSON so that logs and replays keep them verbatim.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ImageBlock {
  type: 'image';
  source: {
    type: 'base64';
    media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
    data: string;
  };
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type ToolResultContent = string | Array<TextBlock | ImageBlock>;

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
}

export type AssistantContentBlock =
  TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;
export type UserContentBlock = TextBlock | ImageBlock | ToolResultBlock;

export interface UserMessage {
  role: 'user';
  content: string | UserContentBlock[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentBlock[];
}

export type Message = UserMessage | AssistantMessage;

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** A JSON Schema object as sent in the `tools` array of a request. */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}
