/**
 * WebSearch is Anthropic's server-side web search, not a tool this engine runs: when the policy
 * allows it, the `web_search` server tool goes into every request (model/server-tools.ts) and
 * the API searches. So the policy is asked once, at session setup, with the same decide() the
 * pipeline uses, and the answer holds for the whole run.
 *
 * Safe in CI by default: it is offered only when something positively allows it — an allow rule
 * naming `WebSearch` (bare name; docs/CC-COMPAT.md §2.5), bypassPermissions, or an ask the policy
 * resolves to allow. The mode default ("read-only calls are allowed") is not enough, because a
 * query carries text off the machine. A deny rule, or an ask resolved to deny, keeps it out.
 */
import { decide } from '../../permissions/decide.js';
import type { PermissionDecision, PermissionPolicy } from '../../permissions/types.js';
import { webSearchToolSpec } from '../../model/server-tools.js';
import type { WebSearchOptions } from '../../model/server-tools.js';
import type { WebSearchToolSpec } from '../../model/types.js';

export const WEB_SEARCH_TOOL_NAME = 'WebSearch';

export interface WebSearchOffer {
  /** The server tool to send, or undefined when the policy does not allow searching. */
  spec: WebSearchToolSpec | undefined;
  /** Why: the decision as the pipeline would log it. */
  decision: PermissionDecision;
}

export function webSearchOffer(
  policy: PermissionPolicy,
  where: { projectDir: string; homeDir: string },
  options: WebSearchOptions = {},
): WebSearchOffer {
  const decided = decide(
    {
      toolName: WEB_SEARCH_TOOL_NAME,
      aliases: [],
      request: { access: 'other' },
      projectDir: where.projectDir,
      homeDir: where.homeDir,
      readOnly: true,
      requiresUserInteraction: false,
    },
    policy,
  );
  const decision: PermissionDecision =
    decided.behavior === 'allow' && decided.source === 'default'
      ? {
          ...decided,
          behavior: 'deny',
          reason:
            'no rule allows WebSearch; it is offered only when a rule allows it or in bypassPermissions mode',
        }
      : decided;
  return {
    spec: decision.behavior === 'allow' ? webSearchToolSpec(options) : undefined,
    decision,
  };
}
