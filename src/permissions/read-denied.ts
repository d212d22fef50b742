/**
 * What the search tools hide (ToolContext.isReadDenied; docs/CC-COMPAT.md §2.4: "Deny rules hide files
 * from results"). A file is hidden when a Read(…) deny rule with a path would deny a Read of it.
 * A bare `Read` deny removes the Read tool (docs/CC-COMPAT.md §2.2); it does not empty every search.
 * Edit(…) deny rules hide nothing: they forbid changes, not reads.
 *
 * The path is taken as given, without resolving symlinks: both search engines skip symlinked
 * files while walking, and the directory searched has been checked as a whole, link and target.
 */
import type { RuleTarget } from './rules.js';
import { ruleMatches } from './rules.js';
import type { PermissionRule } from './types.js';

export interface ReadDeniedAnchors {
  /** Where `path` and `./path` rules anchor. */
  projectDir: string;
  /** Where `~/path` rules anchor. */
  homeDir: string;
}

/** The predicate for ToolContext.isReadDenied; undefined when no rule could hide anything. */
export function readDeniedPredicate(
  deny: readonly PermissionRule[],
  anchors: ReadDeniedAnchors,
): ((absolutePath: string) => boolean) | undefined {
  const rules = deny.filter((rule) => rule.toolName === 'Read' && rule.content !== undefined);
  if (rules.length === 0) return undefined;
  return (absolutePath) => {
    const target: RuleTarget = {
      toolName: 'Read',
      aliases: [],
      request: { access: 'read', ruleContent: absolutePath, paths: [absolutePath] },
      ...anchors,
    };
    return rules.some((rule) => ruleMatches(rule, target, 'deny'));
  };
}
