/**
 * What an ask becomes for one tool in CI (DECISIONS #9): the policy's per-tool entry, else its
 * default. `Task` is looked up as `Agent`; an `mcp__server` entry covers that server's tools.
 */
import { TOOL_ALIASES } from './claude-code-names.js';
import type { AskBehavior, AskResolution, LoadedPolicy } from './types.js';

export function askBehaviorFor(resolution: AskResolution, toolName: string): AskBehavior {
  const name = Object.hasOwn(TOOL_ALIASES, toolName)
    ? (TOOL_ALIASES[toolName] as string)
    : toolName;
  const { byTool } = resolution;
  if (Object.hasOwn(byTool, name)) return byTool[name] as AskBehavior;
  const server = /^(mcp__.+?)__/.exec(name)?.[1];
  if (server !== undefined && Object.hasOwn(byTool, server)) return byTool[server] as AskBehavior;
  return resolution.default;
}

/** The policy file whose `onAsk` answers asks, for a decision to name; none without a policy file. */
export function askResolutionSource(policy: LoadedPolicy): { askDefaultSource?: string } {
  const file = policy.sources.find((source) => source.kind === 'policy');
  return file === undefined ? {} : { askDefaultSource: file.path };
}
