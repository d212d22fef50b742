/**
 * Bash rules against a parsed command (docs/DECISIONS.md #11; the parts come from bash-views.ts):
 *
 *   allow — every part must match. An opaque part, a redirection only known at run time and a
 *           file write never match, unless the rule spells the same write redirections out
 *           (`Bash(npm test > log.txt)`); `find -exec/-delete` never matches a wildcard rule.
 *           An unparseable command matches only an exact rule equal to the whole command.
 *   deny, ask — one part matching is enough. An opaque part and an unparseable command are
 *           matched by every Bash deny or ask rule with a specifier: when the command cannot be
 *           read, a policy that forbids something in Bash forbids it (fail closed).
 */
import { parseCommand } from '../shell/parse-command.js';
import type { BashPattern } from './bash-pattern.js';
import { compileBashPattern, patternMatches } from './bash-pattern.js';
import type { BashAnalysis, CommandPart } from './bash-views.js';
import { classifyRedirection } from './bash-views.js';

export interface BashRule {
  pattern: BashPattern;
  /** For a rule that writes a file: its pattern without the redirections, and the writes. */
  redirected?: { pattern: BashPattern; writes: readonly string[] };
}

export function compileBashRule(specifier: string): BashRule {
  return { pattern: compileBashPattern(specifier), redirected: redirectedForm(specifier) };
}

function redirectedForm(specifier: string): BashRule['redirected'] {
  if (!specifier.includes('>')) return undefined;
  const parsed = parseCommand(specifier);
  if (!parsed.ok || parsed.commands.length !== 1) return undefined;
  const [command] = parsed.commands;
  if (!command || command.nested.length > 0 || command.redirections.length === 0) return undefined;
  const writes: string[] = [];
  for (const redirection of command.redirections) {
    const write = classifyRedirection(redirection);
    if (typeof write === 'string') writes.push(write);
    else if (write !== null) return undefined;
  }
  const words = [
    ...command.assignments.map((item) => `${item.name}=${item.value.raw}`),
    ...command.words.map((word) => word.raw),
  ];
  return { pattern: compileBashPattern(words.join(' ')), writes: writes.sort() };
}

export function bashRuleMatches(
  rule: BashRule,
  analysis: BashAnalysis,
  kind: 'allow' | 'deny' | 'ask',
): boolean {
  if (!analysis.ok) {
    if (kind !== 'allow') return true;
    return (
      !rule.pattern.wildcard &&
      rule.pattern.text === analysis.command.trim().replace(/[ \t]+/g, ' ')
    );
  }
  if (kind === 'allow') {
    return analysis.parts.length > 0 && analysis.parts.every((part) => bashPartAllowed(rule, part));
  }
  return analysis.parts.some((part) => bashPartDenied(rule, part));
}

export function bashPartAllowed(rule: BashRule, part: CommandPart): boolean {
  if (part.opaque || part.unknownRedirection) return false;
  let pattern = rule.pattern;
  if (part.fileWrites.length > 0) {
    const redirected = rule.redirected;
    if (!redirected || !sameList(redirected.writes, part.fileWrites)) return false;
    pattern = redirected.pattern;
  }
  if (pattern.wildcard && part.findRunsOrWrites) return false;
  return part.allowForms.some((form) => patternMatches(pattern, form));
}

export function bashPartDenied(rule: BashRule, part: CommandPart): boolean {
  return part.opaque || part.denyForms.some((form) => patternMatches(rule.pattern, form));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
