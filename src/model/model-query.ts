/**
 * One question to a model outside the conversation, answered as plain text: the port behind
 * `ToolContext.queryModel` (WebFetch runs the call's prompt over a fetched page with it). No
 * tools, no history; the answer is the text blocks of the response, joined.
 */
import type { ModelClient } from './model-client.js';
import type { Usage } from './types.js';

export interface ModelQueryRequest {
  system: string;
  prompt: string;
  maxTokens: number;
  signal?: AbortSignal;
}

export interface ModelQueryOptions {
  client: ModelClient;
  model: string;
  /** Told the usage of every answered query, so the run's cost can include it. */
  onUsage?: (model: string, usage: Usage) => void;
}

export function createModelQuery(
  options: ModelQueryOptions,
): (query: ModelQueryRequest) => Promise<string> {
  return async (query) => {
    const stream = options.client.stream({
      model: options.model,
      system: query.system,
      messages: [{ role: 'user', content: query.prompt }],
      tools: [],
      maxTokens: query.maxTokens,
      ...(query.signal && { signal: query.signal }),
    });
    for await (const event of stream) {
      if (event.type !== 'message-complete') continue;
      options.onUsage?.(event.message.model, event.message.usage);
      return event.message.content
        .filter((block) => block.type === 'text')
        .map((block) => block.text)
        .join('');
    }
    // The client turns a stream that stops early into an error; this is only a safety net.
    throw new Error('the model answered without a complete message');
  };
}
