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

/**
 * Microsoft Foundry's Messages API with the same slim client: the resource's key as `x-api-key`
 * (passed in `defaultHeaders`), as @anthropic-ai/foundry-sdk sends it. That SDK extends the full
 * client, and the module it shares with this one would then bring every resource into the
 * action's start-up bundle (+0.3 MiB, docs/BENCHMARKS.md). No other credential is looked for:
 * a local Anthropic profile must never reach Azure.
 */
export class FoundryMessagesClient extends MessagesClient {
  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }
}

export { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk/core/error';
