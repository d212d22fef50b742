/**
 * Rule parsing and matching (docs/CC-COMPAT.md §2.2–2.5, docs/DECISIONS.md #11, #12).
 *
 * Naming a tool:
 *   `Tool`, `Tool(*)`    every call of the tool, by its name or an alias (`Task` ≡ `Agent`);
 *   `mcp__server`        every tool of that MCP server; `mcp__server__tool` one of them;
 *   tool-name globs      `*`, `mcp__*`, `mcp__server__*` in deny and ask rules; in allow rules
 *                        only after a literal `mcp__<server>__`, otherwise the rule matches nothing
 *                        (ruleWarning says so, for the loader to warn).
 * Specifiers, by the rule's tool:
 *   Bash(…)              bash-rules.ts, on the command parsed once per request (bash-views.ts);
 *   Read(…), Edit(…)     path-rules.ts, gitignore style with four anchors; as deny and ask rules
 *                        also on the files a Bash command names (request.fileOperands);
 *   WebFetch(domain:…)   domain-rules.ts;
 *   Write(…), NotebookEdit(…), MultiEdit(…), Glob(…), Grep(…), LS(…): accepted, never consulted;
 *   anything else        never allows; denies and asks for every call of the tool (fail closed).
 */
import type { PermissionRequest } from '../tools/tool.js';
import type { BashRule } from './bash-rules.js';
import { bashPartAllowed, bashPartDenied, bashRuleMatches, compileBashRule } from './bash-rules.js';
import type { BashAnalysis, CommandPart } from './bash-views.js';
import { analyzeBashCommand } from './bash-views.js';
import { domainRuleMatches, isDomainSpecifier } from './domain-rules.js';
import { pathRuleMatches, pathRuleMatchesOperand, pathRuleReaches } from './path-rules.js';
import type { PermissionRule } from './types.js';

export { bashSpecifierMatches } from './bash-pattern.js';

type RuleKind = 'allow' | 'deny' | 'ask';

const RULE_PATTERN = /^([A-Za-z_*][\w*-]*)(?:\((.*)\))?$/s;
/** An allow rule may use a tool-name glob only after a literal server prefix. */
const ALLOWED_NAME_GLOB = /^mcp__[^*]+?__/;
/** Path specifiers on these tools are accepted but never consulted, with the rule to use instead. */
const UNCONSULTED_SPECIFIERS: ReadonlyMap<string, string> = new Map([
  ['Write', 'Edit'],
  ['NotebookEdit', 'Edit'],
  ['MultiEdit', 'Edit'],
  ['Glob', 'Read'],
  ['Grep', 'Read'],
  ['LS', 'Read'],
]);

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
  /**
   * Ignored: Bash rules parse `request.ruleContent` themselves (once per target), because the
   * parts' texts lose what matters (redirections on a group, wrappers, quoting). Kept so that
   * older callers still compile.
   * @deprecated
   */
  commandParts?: readonly string[] | null;
  /** The directory `path` and `./path` rules (and `/path` rules without anchorDir) anchor at. */
  projectDir?: string;
  /** The directory `~/path` rules anchor at. */
  homeDir?: string;
}

/** Whether the rule's tool name (or glob) names this tool, ignoring any specifier. */
export function ruleNamesTool(
  rule: PermissionRule,
  toolName: string,
  aliases: readonly string[],
  kind: RuleKind,
): boolean {
  const names = [toolName, ...aliases];
  const ruleName = rule.toolName;
  if (ruleName.includes('*')) {
    if (kind === 'allow' && !ALLOWED_NAME_GLOB.test(ruleName)) return false;
    return names.some((name) => nameGlob(ruleName).test(name));
  }
  if (names.includes(ruleName)) return true;
  // mcp__server names every tool of the server (docs/CC-COMPAT.md §2.5).
  return (
    rule.content === undefined &&
    ruleName.startsWith('mcp__') &&
    !ruleName.slice(5).includes('__') &&
    toolName.startsWith(`${ruleName}__`)
  );
}

export function ruleMatches(rule: PermissionRule, target: RuleTarget, kind: RuleKind): boolean {
  const content = rule.content;
  if (content === undefined) return ruleNamesTool(rule, target.toolName, target.aliases, kind);
  if (UNCONSULTED_SPECIFIERS.has(rule.toolName)) return false;
  if (rule.toolName === 'Read' || rule.toolName === 'Edit') {
    // Files a command names can only add denials: allow rules never look at them.
    if (kind !== 'allow' && operandMatches(rule, content, target, kind)) return true;
    if (!pathRuleReaches(rule.toolName, target.toolName, kind)) return false;
    return pathRuleMatches(rule, content, { ...target, paths: requestPaths(target) }, kind);
  }
  if (!ruleNamesTool(rule, target.toolName, target.aliases, kind)) return false;
  if (target.toolName === 'Bash')
    return bashRuleMatches(bashRuleOf(rule), bashAnalysisOf(target), kind);
  if (target.toolName === 'WebFetch') {
    return domainRuleMatches(content, target.request.ruleContent, kind);
  }
  // `Agent(Explore)` / `Task(Explore)`: the subagent type, named exactly.
  if (target.toolName === 'Agent' && target.request.ruleContent !== undefined) {
    return content.trim() === target.request.ruleContent;
  }
  // A specifier this module cannot evaluate never allows; it denies and asks to be safe.
  return kind !== 'allow';
}

/**
 * The allow rules that together allow the call, or none. Each part of a compound Bash command,
 * and each of a symlink's paths, may be allowed by a different rule (`echo x && git status` with
 * `Bash(echo:*)` and `Bash(git status)`), which no single rule's ruleMatches can tell.
 */
export function allowRulesCovering(
  rules: readonly PermissionRule[],
  target: RuleTarget,
): PermissionRule[] {
  const whole = rules.filter((rule) => ruleMatches(rule, target, 'allow'));
  if (whole.length > 0) return whole;
  if (target.toolName === 'Bash') return bashRulesCovering(rules, target);
  const paths = target.request.paths ?? [];
  if (paths.length < 2) return [];
  const used = new Set<PermissionRule>();
  for (const path of paths) {
    const single = { ...target, request: { ...target.request, paths: [path] } };
    const rule = rules.find((candidate) => ruleMatches(candidate, single, 'allow'));
    if (!rule) return [];
    used.add(rule);
  }
  return [...used];
}

/**
 * The parts of a Bash command a rule matches (deny and ask semantics): what a refusal names.
 * Empty for a rule without a specifier, a non-Bash target and a command that does not parse.
 */
export function bashPartsMatched(rule: PermissionRule, target: RuleTarget): CommandPart[] {
  const analysis = bashAnalysisOf(target);
  if (target.toolName !== 'Bash' || rule.content === undefined || !analysis.ok) return [];
  const compiled = bashRuleOf(rule);
  return analysis.parts.filter((part) => bashPartDenied(compiled, part));
}

/** The parts of a Bash command no allow rule covers, in order. */
export function bashPartsUncovered(
  rules: readonly PermissionRule[],
  target: RuleTarget,
): CommandPart[] {
  const analysis = bashAnalysisOf(target);
  if (!analysis.ok) return [];
  const bashRules = rules
    .filter(
      (rule) =>
        rule.content !== undefined && ruleNamesTool(rule, target.toolName, target.aliases, 'allow'),
    )
    .map(bashRuleOf);
  return analysis.parts.filter((part) => !bashRules.some((rule) => bashPartAllowed(rule, part)));
}

function bashRulesCovering(rules: readonly PermissionRule[], target: RuleTarget): PermissionRule[] {
  const analysis = bashAnalysisOf(target);
  if (!analysis.ok || analysis.parts.length === 0) return [];
  const bashRules = rules.filter(
    (rule) =>
      rule.content !== undefined && ruleNamesTool(rule, target.toolName, target.aliases, 'allow'),
  );
  const used = new Set<PermissionRule>();
  for (const part of analysis.parts) {
    const rule = bashRules.find((candidate) => bashPartAllowed(bashRuleOf(candidate), part));
    if (!rule) return [];
    used.add(rule);
  }
  return [...used];
}

/**
 * Why a rule will never do what it seems to say, for the loader to warn about; undefined for a
 * rule that works.
 */
export function ruleWarning(rule: PermissionRule, kind: RuleKind): string | undefined {
  const where = `${rule.source}: ${kind} rule "${rule.text}"`;
  if (kind === 'allow' && rule.toolName.includes('*') && !ALLOWED_NAME_GLOB.test(rule.toolName)) {
    return `${where} is ignored: an allow rule may use "*" in a tool name only after "mcp__<server>__" (e.g. "mcp__github__*")`;
  }
  const instead = UNCONSULTED_SPECIFIERS.get(rule.toolName);
  if (rule.content !== undefined && instead !== undefined) {
    return `${where} is never consulted: path rules are checked for Read(…) and Edit(…) only; write "${instead}(${rule.content})" instead`;
  }
  if (
    rule.content !== undefined &&
    rule.toolName === 'WebFetch' &&
    !isDomainSpecifier(rule.content)
  ) {
    return `${where} has an unknown form: expected "WebFetch(domain:<host>)"; as written it ${kind === 'allow' ? 'allows nothing' : `${kind === 'deny' ? 'denies' : 'asks about'} every WebFetch call`}`;
  }
  return undefined;
}

function operandMatches(
  rule: PermissionRule,
  content: string,
  target: RuleTarget,
  kind: 'deny' | 'ask',
): boolean {
  const anchors = { projectDir: target.projectDir, homeDir: target.homeDir };
  return (target.request.fileOperands ?? []).some((operand) =>
    pathRuleMatchesOperand(rule, content, operand, anchors, kind),
  );
}

function requestPaths(target: RuleTarget): readonly string[] {
  const { paths, ruleContent } = target.request;
  if (paths && paths.length > 0) return paths;
  return ruleContent === undefined ? [] : [ruleContent];
}

const compiledBashRules = new WeakMap<PermissionRule, BashRule>();

function bashRuleOf(rule: PermissionRule): BashRule {
  let compiled = compiledBashRules.get(rule);
  if (!compiled) compiledBashRules.set(rule, (compiled = compileBashRule(rule.content ?? '')));
  return compiled;
}

/**
 * The Bash command of a target, parsed into parts; one parse per request: decide() matches every
 * rule against the same target object.
 */
// Keyed by the request (what is parsed), so targets that only add a hook decision share it.
const analyses = new WeakMap<PermissionRequest, { command: string; analysis: BashAnalysis }>();

export function bashAnalysisOf(target: RuleTarget): BashAnalysis {
  const command = target.request.ruleContent ?? '';
  const cached = analyses.get(target.request);
  if (cached?.command === command) return cached.analysis;
  const analysis =
    command.trim() === ''
      ? { ok: false as const, command, reason: 'no command' }
      : analyzeBashCommand(command);
  analyses.set(target.request, { command, analysis });
  return analysis;
}

const nameGlobs = new Map<string, RegExp>();

function nameGlob(glob: string): RegExp {
  let regex = nameGlobs.get(glob);
  if (!regex) {
    const source = glob
      .split('*')
      .map((part) => part.replace(/[\\^$.+?()[\]{}|/-]/g, '\\$&'))
      .join('.*');
    nameGlobs.set(glob, (regex = new RegExp(`^${source}$`)));
  }
  return regex;
}
