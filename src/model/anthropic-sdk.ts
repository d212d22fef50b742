/**
 * The SDK client with only the Messages resource. The default `Anthropic` class registers every
 * resource (beta, batches, files, models, organisations…) and pulls all of them into the bundle;
 * the engine calls `messages.create` and nothing else, and the smaller bundle starts faster
 * (docs/BENCHMARKS.md, "The action's start-up").
 */
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';

export class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);
}

export { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk/core/error';
