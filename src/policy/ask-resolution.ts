/**
 * What an ask becomes for one tool in CI (docs/DECISIONS.md #9): the policy's per-tool entry, else its
 * default. `Task` is looked up as `Agent`; an `mcp__server` entry covers that server's tools.
 */
import { DEFAULT_ALLOW_RULES_FILE } from '../permissions/denial-advice.js';
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
 * resolve, the policy file that says so (named when an ask is answered allow), the file a
 * denial's suggested allow rules go in, and the files the policy came from, which judge the
 * run: as the sources show them (relative to the project, or `~/…`); a `--settings` JSON
 * string has no file.
 *
 * The allow rules go where the run read rules from (docs/DECISIONS.md #22): the ci-agent policy
 * file, else the project's `.claude/settings.json`, else a `--settings` file, else
 * `.claude/settings.local.json`; with none of them, `withoutFile` (the action: its `policy`
 * input's path; the CLI: `.claude/settings.json`, Claude Code's own).
 */
export function decisionOptions(
  policy: LoadedPolicy,
  withoutFile: string = DEFAULT_ALLOW_RULES_FILE,
): {
  askDefault: AskBehavior;
  askDefaultByTool: Readonly<Record<string, AskBehavior>>;
  askDefaultSource?: string;
  allowRulesFile: string;
  judgePaths: string[];
} {
  const file = policy.sources.find((source) => source.kind === 'policy');
  const files = policy.sources.filter(
    (source) => !(source.kind === 'flag' && source.path === INLINE_SETTINGS),
  );
  const ruleFile = (['policy', 'project', 'flag', 'local'] as const)
    .map((kind) => files.find((source) => source.kind === kind))
    .find((source) => source !== undefined);
  return {
    askDefault: policy.askResolution.default,
    askDefaultByTool: policy.askResolution.byTool,
    ...(file === undefined ? {} : { askDefaultSource: file.path }),
    allowRulesFile: ruleFile?.path ?? withoutFile,
    judgePaths: files.map((source) => source.path),
  };
}
