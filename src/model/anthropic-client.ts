/**
 * The Anthropic Messages API behind the `ModelClient` port.
 *
 * 1. Convert the request to the API's body (the engine's message shapes are the API's already).
 * 2. Add prompt-cache breakpoints (prompt-cache.ts) unless turned off.
 * 3. `messages.create({ stream: true })` with the SDK's own retries off: the loop owns retries.
 * 4. Feed each raw stream event to the accumulator and pass its events on as they come.
 * 5. A stream that ends without `message_stop` was cut off: a retryable error, never a short answer.
 */

import { MessagesClient } from './anthropic-sdk.js';
import type {
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import type { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { abortedError, droppedStreamError, toModelError } from './anthropic-errors.js';
import type { ErrorContext } from './anthropic-errors.js';
import { MessageAccumulator } from './message-accumulator.js';
import { ModelError } from './model-client.js';
import { withCacheBreakpoints } from './prompt-cache.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './model-client.js';
import type { ToolSpec } from './types.js';

export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicClientOptions {
  apiKey: string;
  /** Defaults to the public API; the SDK does not read ANTHROPIC_BASE_URL behind our back. */
  baseURL?: string;
  defaultHeaders?: Record<string, string>;
  /** Retries inside the SDK. 0 by default because the agent loop retries with its own policy. */
  maxRetries?: number;
  /** Per-request timeout in milliseconds (SDK default: 10 minutes). */
  timeoutMs?: number;
  /** `cache_control` breakpoints on the repeated prefix (prompt-cache.ts); on by default. */
  promptCaching?: boolean;
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  if (options.apiKey.trim() === '') {
    throw new ModelError(
      'No Anthropic API key was given. Set ANTHROPIC_API_KEY to a key from the Anthropic Console.',
      {
        kind: 'authentication',
        retryable: false,
      },
    );
  }
  const sdk = new MessagesClient({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL,
    maxRetries: options.maxRetries ?? 0,
    ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  const url = messagesUrl(options.baseURL ?? DEFAULT_ANTHROPIC_BASE_URL);
  return createStreamingClient(sdk, {
    caching: options.promptCaching ?? true,
    urlOf: () => url,
  });
}

/** Where the SDK sends a Messages request for this base URL (it joins them the same way). */
export function messagesUrl(baseURL: string): string {
  return `${baseURL.replace(/\/+$/, '')}/v1/messages`;
}

/** An SDK client of the Anthropic family: Anthropic's own, Bedrock's, Vertex AI's, Foundry's. */
export interface MessagesSdk {
  messages: Pick<Messages, 'create'>;
}

export interface StreamingClientOptions {
  /** `cache_control` breakpoints on the repeated prefix (prompt-cache.ts). */
  caching: boolean;
  /** Where a request for this model goes, for the messages that say where a failure was. */
  urlOf: (model: string) => string;
  /** What the error messages say about the service; Anthropic's API key by default. */
  errors?: ErrorContext;
}

/** The port over any SDK of the family: they share the request, the stream and the errors. */
export function createStreamingClient(
  sdk: MessagesSdk,
  options: StreamingClientOptions,
): ModelClient {
  return {
    stream: (request) =>
      streamMessage(sdk, request, options.caching, options.urlOf(request.model), options.errors),
  };
}

/**
 * The options the CLI and the action build from their environment: `ANTHROPIC_API_KEY` and the
 * optional `ANTHROPIC_BASE_URL` (a proxy or gateway). Empty values count as unset; a base URL
 * that is not an http(s) URL throws (anthropicBaseUrlFromEnv).
 */
export function anthropicOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): AnthropicClientOptions {
  const apiKey = env['ANTHROPIC_API_KEY']?.trim() ?? '';
  const baseURL = anthropicBaseUrlFromEnv(env);
  return baseURL === undefined ? { apiKey } : { apiKey, baseURL };
}

/**
 * `ANTHROPIC_BASE_URL`, checked before the run starts: a typo there would otherwise surface as a
 * connection error after the first request, far from the variable that caused it.
 */
export function anthropicBaseUrlFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const value = env['ANTHROPIC_BASE_URL']?.trim() ?? '';
  if (value === '') return undefined;
  const url = URL.parse(value);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ModelError(
      `ANTHROPIC_BASE_URL: expected an http(s) URL such as ${DEFAULT_ANTHROPIC_BASE_URL}, got ${JSON.stringify(value)}`,
      { kind: 'invalid-request', retryable: false },
    );
  }
  return value;
}

async function* streamMessage(
  sdk: MessagesSdk,
  request: ModelRequest,
  caching: boolean,
  url: string,
  errors: ErrorContext | undefined,
): AsyncGenerator<ModelStreamEvent> {
  const { signal } = request;
  const accumulator = new MessageAccumulator();
  try {
    const body = toRequestBody(request);
    const stream = await sdk.messages.create(
      caching ? withCacheBreakpoints(body, request.changedFrom) : body,
      signal === undefined ? {} : { signal },
    );
    for await (const event of stream) yield* accumulator.push(event);
  } catch (error) {
    // A connection that breaks after message_stop has still delivered the whole message.
    if (accumulator.complete) return;
    throw toModelError(error, signal, url, errors);
  }
  // The SDK ends the iteration quietly when the signal aborts, so an early end needs a second look.
  if (signal?.aborted === true) throw abortedError(signal.reason);
  if (!accumulator.complete) throw droppedStreamError(undefined, url);
}

export function toRequestBody(request: ModelRequest): MessageCreateParamsStreaming {
  const tools: ToolUnion[] = [...request.tools.map(toApiTool), ...(request.serverTools ?? [])];
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    // Server tool blocks and citations are the API's own JSON from an earlier response, sent
    // back verbatim; types.ts types their fields loosely, so the check is a cast here.
    messages: request.messages as MessageParam[],
    ...(request.system === '' ? {} : { system: request.system }),
    ...(tools.length === 0 ? {} : { tools }),
    stream: true,
  };
}

function toApiTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.input_schema, type: 'object' },
  };
}
