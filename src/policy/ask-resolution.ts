/**
 * What an ask becomes for one tool in CI (docs/DECISIONS.md #9): the policy's per-tool entry, else its
 * default. `Task` is looked up as `Agent`; an `mcp__server` entry covers that server's tools.
 */
import { TOOL_ALIASES } from './claude-code-names.js';
import type { AskBehavior, AskResolution, LoadedPolicy } from './types.js';
import { INLINE_SETTINGS } from './types.js';

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

/**
 * What a session takes from the loaded policy for its decisions beyond the rules: how asks
 * resolve, the policy file that says so (named when an ask is answered allow), and the files the
 * policy came from, which judge the run: as the sources show them (relative to the project, or
 * `~/…`); a `--settings` JSON string has no file.
 */
export function decisionOptions(policy: LoadedPolicy): {
  askDefault: AskBehavior;
  askDefaultByTool: Readonly<Record<string, AskBehavior>>;
  askDefaultSource?: string;
  judgePaths: string[];
} {
  const file = policy.sources.find((source) => source.kind === 'policy');
  return {
    askDefault: policy.askResolution.default,
    askDefaultByTool: policy.askResolution.byTool,
    ...(file === undefined ? {} : { askDefaultSource: file.path }),
    judgePaths: policy.sources
      .filter((source) => !(source.kind === 'flag' && source.path === INLINE_SETTINGS))
      .map((source) => source.path),
  };
}
