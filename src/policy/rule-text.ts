/**
 * Rule strings from policy and settings files: the syntax check is `parseRule`'s; this wraps its
 * error into the loader's message form and attaches where the rule came from.
 */
import { parseRule, ruleWarning, RuleSyntaxError } from '../permissions/rules.js';
import type { PermissionRule } from '../permissions/types.js';

/** What is wrong with a rule string, or undefined when `parseRule` accepts it. */
export function ruleProblem(text: string): string | undefined {
  try {
    parseRule(text, '');
    return undefined;
  } catch (error) {
    if (!(error instanceof RuleSyntaxError)) throw error;
    const prefix = `${error.source}: invalid permission rule ${JSON.stringify(error.rule)}: `;
    const detail = error.message.startsWith(prefix)
      ? error.message.slice(prefix.length)
      : error.message;
    return `invalid permission rule: ${detail}`;
  }
}

/**
 * What is wrong with a rule that parses but cannot work as written (a path rule on Write, an allow
 * glob that names nothing, …), without the source prefix, or undefined when nothing is.
 */
export function ruleNotice(
  rule: PermissionRule,
  kind: 'allow' | 'deny' | 'ask',
): string | undefined {
  const warning = ruleWarning(rule, kind);
  const prefix = `${rule.source}: `;
  return warning?.startsWith(prefix) ? warning.slice(prefix.length) : warning;
}

export function makeRule(text: string, source: string, anchorDir: string): PermissionRule {
  return { ...parseRule(text, source), anchorDir };
}
