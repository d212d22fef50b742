/**
 * Tools the Anthropic API runs itself. Only web search is offered: the API searches, and the
 * response carries `server_tool_use` and `web_search_tool_result` blocks that the engine keeps in
 * the assistant message and sends back unchanged (message-accumulator.ts). The loop never runs
 * them, so they go beside the client tools rather than through the registry.
 */
import type { ModelClient } from './model-client.js';
import type { ServerToolSpec, WebSearchToolSpec } from './types.js';

/** Searches per API request; Claude Code's WebSearch allows 8 per call. */
export const DEFAULT_WEB_SEARCH_MAX_USES = 8;

export interface WebSearchOptions {
  maxUses?: number;
  /** Only results from these domains. Cannot be combined with blockedDomains. */
  allowedDomains?: readonly string[];
  /** Never results from these domains. */
  blockedDomains?: readonly string[];
}

/** The `web_search_20250305` spec; throws when the options are ones the API would refuse. */
export function webSearchToolSpec(options: WebSearchOptions = {}): WebSearchToolSpec {
  const maxUses = options.maxUses ?? DEFAULT_WEB_SEARCH_MAX_USES;
  if (!Number.isInteger(maxUses) || maxUses < 1) {
    throw new Error(`web search max_uses is ${maxUses}; expected a whole number of at least 1`);
  }
  const allowed = options.allowedDomains ?? [];
  const blocked = options.blockedDomains ?? [];
  if (allowed.length > 0 && blocked.length > 0) {
    throw new Error(
      'web search has both allowed_domains and blocked_domains; the API accepts only one of them',
    );
  }
  return {
    type: 'web_search_20250305',
    name: 'web_search',
    max_uses: maxUses,
    ...(allowed.length > 0 && { allowed_domains: [...allowed] }),
    ...(blocked.length > 0 && { blocked_domains: [...blocked] }),
  };
}

/** The same client, with these server tools added to every request it sends. */
export function withServerTools(
  client: ModelClient,
  serverTools: readonly ServerToolSpec[],
): ModelClient {
  if (serverTools.length === 0) return client;
  return {
    stream: (request) =>
      client.stream({
        ...request,
        serverTools: [...(request.serverTools ?? []), ...serverTools],
      }),
  };
}
