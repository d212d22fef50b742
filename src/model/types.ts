/**
 * The conversation as the Messages API carries it. The engine speaks these shapes; a provider
 * adapter converts at its edge. They are plain JSON so that logs and replays keep them verbatim.
 */

export interface TextBlock {
  type: 'text';
  text: string;
  /** Sources the model cited (web search results); kept so the block goes back unchanged. */
  citations?: unknown[];
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

/**
 * A call of a tool the API runs itself (web search). The engine never runs it; the block and its
 * result stay in the assistant message verbatim, every field included, because the API wants
 * them back as they came.
 */
export interface ServerToolUseBlock {
  type: 'server_tool_use';
  id: string;
  name: string;
  input: unknown;
  [field: string]: unknown;
}

/** What a server-side web search found: result blocks, or `{type: 'web_search_tool_result_error'}`. */
export interface WebSearchToolResultBlock {
  type: 'web_search_tool_result';
  tool_use_id: string;
  content: unknown;
  [field: string]: unknown;
}

export type ToolResultContent = string | Array<TextBlock | ImageBlock>;

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
}

export type AssistantContentBlock =
  | TextBlock
  | ToolUseBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ServerToolUseBlock
  | WebSearchToolResultBlock;
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
  /** Server-side tool calls the response made, as the API counts them (absent: none). */
  server_tool_use?: ServerToolUsage;
}

export interface ServerToolUsage {
  web_search_requests: number;
  [field: string]: number;
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

/**
 * A tool the API runs itself, sent beside the client tools. Only web search is offered
 * (`model/server-tools.ts`); its fields are the Messages API's `web_search_20250305`.
 */
export interface WebSearchToolSpec {
  type: 'web_search_20250305';
  name: 'web_search';
  max_uses?: number;
  allowed_domains?: string[];
  blocked_domains?: string[];
}

export type ServerToolSpec = WebSearchToolSpec;

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}
