/**
 * Rule strings from policy and settings files: the syntax check is `parseRule`'s; this wraps its
 * error into the loader's message form and attaches where the rule came from.
 */
import { parseRule, ruleWarning, RuleSyntaxError } from '../permissions/rules.js';
import type { PermissionRule } from '../permissions/types.js';
import { ruleToolProblem } from './tool-names.js';

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
 * What is wrong with a rule that parses but cannot work as written (a tool that does not exist,
 * a path rule on Write, an allow glob that names nothing, …), without the source prefix, or
 * undefined when nothing is.
 */
export function ruleNotice(
  rule: PermissionRule,
  kind: 'allow' | 'deny' | 'ask',
): string | undefined {
  const toolProblem = ruleToolProblem(rule, kind);
  if (toolProblem !== undefined) return toolProblem;
  const warning = ruleWarning(rule, kind);
  const prefix = `${rule.source}: `;
  return warning?.startsWith(prefix) ? warning.slice(prefix.length) : warning;
}

export function makeRule(text: string, source: string, anchorDir: string): PermissionRule {
  return { ...parseRule(text, source), anchorDir };
}

/**
 * A rule given on the command line (`--allowedTools`, `--disallowedTools`): one that does not
 * parse or cannot work as written is an error there, since a typo in a deny flag must not be
 * silent. The message starts with the flag.
 */
export function flagRuleProblem(
  text: string,
  flag: string,
  kind: 'allow' | 'deny',
): string | undefined {
  let rule: PermissionRule;
  try {
    rule = parseRule(text, flag);
  } catch (error) {
    if (error instanceof RuleSyntaxError) return error.message;
    throw error;
  }
  const notice = ruleNotice(rule, kind);
  return notice === undefined ? undefined : `${flag}: ${notice}`;
}
