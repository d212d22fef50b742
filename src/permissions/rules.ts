/**
 * Rule parsing and matching.
 *
 * `Tool` and `Tool(*)` match every call of a tool (and its aliases, e.g. Task for Agent);
 * `mcp__server` matches every tool of that server. Bash rules take an exact command or a prefix
 * (`Bash(npm test:*)`, `Bash(npm test *)`) and, until the full policy module lands, only ever
 * allow a command that is a single simple command; a deny rule matches if any part does.
 */
import type { PermissionRequest } from '../tools/tool.js';
import type { PermissionRule } from './types.js';

const RULE_PATTERN = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s;

export class RuleSyntaxError extends Error {
  constructor(
    readonly rule: string,
    readonly source: string,
    detail: string,
  ) {
    super(`${source}: invalid permission rule ${JSON.stringify(rule)}: ${detail}`);
    this.name = 'RuleSyntaxError';
  }
}

export function parseRule(text: string, source: string): PermissionRule {
  const trimmed = text.trim();
  const match = RULE_PATTERN.exec(trimmed);
  if (!match) {
    throw new RuleSyntaxError(
      text,
      source,
      'expected a tool name such as "Read", or "Tool(specifier)" such as "Bash(npm test:*)"',
    );
  }
  const toolName = match[1] as string;
  const content = match[2];
  if (content === undefined || content.trim() === '*' || content.trim() === '') {
    return { text: trimmed, toolName, source };
  }
  return { text: trimmed, toolName, content: content.trim(), source };
}

/**
 * Splits a `--allowedTools` style list: comma- or space-separated, but never inside parentheses
 * (`Bash(git log *)` stays one rule).
 */
export function splitRuleList(values: readonly string[]): string[] {
  const rules: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = '';
    for (const char of value) {
      if (char === '(') depth++;
      if (char === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (char === ',' || /\s/.test(char))) {
        if (current) rules.push(current);
        current = '';
        continue;
      }
      current += char;
    }
    if (current) rules.push(current);
  }
  return rules;
}

export interface RuleTarget {
  toolName: string;
  aliases: readonly string[];
  request: PermissionRequest;
  /** For Bash: the simple commands of the command line, or null when it cannot be parsed. */
  commandParts?: readonly string[] | null;
}

function namesTool(rule: PermissionRule, target: RuleTarget): boolean {
  if (rule.toolName === target.toolName || target.aliases.includes(rule.toolName)) return true;
  // mcp__server names all tools of a server (CC-COMPAT §2.5).
  return (
    rule.content === undefined &&
    rule.toolName.startsWith('mcp__') &&
    !rule.toolName.slice(5).includes('__') &&
    target.toolName.startsWith(`${rule.toolName}__`)
  );
}

/** Whether a command matches a Bash rule specifier: exact, or a prefix with `:*` / ` *`. */
export function bashSpecifierMatches(specifier: string, command: string): boolean {
  const normalized = command.trim().replace(/\s+/g, ' ');
  const prefix = specifier.endsWith(':*')
    ? specifier.slice(0, -2)
    : specifier.endsWith(' *')
      ? specifier.slice(0, -2)
      : undefined;
  if (prefix === undefined) return normalized === specifier.trim();
  return normalized === prefix || normalized.startsWith(`${prefix} `);
}

export function ruleMatches(
  rule: PermissionRule,
  target: RuleTarget,
  kind: 'allow' | 'deny' | 'ask',
): boolean {
  if (!namesTool(rule, target)) return false;
  if (rule.content === undefined) return true;
  if (target.toolName !== 'Bash') {
    // Specifier rules for other tools arrive with the policy module; a specifier rule that cannot
    // be evaluated never allows, and denies/asks conservatively.
    return kind !== 'allow';
  }
  const parts = target.commandParts;
  const specifier = rule.content;
  if (!parts) return kind !== 'allow';
  if (kind === 'allow')
    return parts.length > 0 && parts.every((part) => bashSpecifierMatches(specifier, part));
  return parts.some((part) => bashSpecifierMatches(specifier, part));
}
