/**
 * What a denial says to the person who owns the policy (docs/DECISIONS.md #22): the change that
 * would let this call through, or why none would. Pure, like decide(): it only re-runs the
 * decision on the same request under a changed policy.
 *
 * By the step that decided (decision.source):
 *   - the mode default's ask, answered deny in CI: the narrowest allow rules that cover the call
 *     (rule-suggestion.ts), to add to `permissions.allow` of the file the run read
 *     (PermissionPolicy.allowRulesFile);
 *   - a deny or ask rule: that rule, to remove from the file it came from, and whatever allow
 *     rules the call then still needs; for an ask rule also the `onAsk` entry that answers it;
 *   - a hook's ask, a tool that needs a person: the `onAsk` entry of the policy file;
 *   - a floor (critical removals, the sandbox, writes outside the workspace, the judges,
 *     protected paths, plan mode) and a hook's deny: nothing, and why not.
 * Every change offered is checked before it is offered: decide() with it must allow the call.
 * One that would not (a part of a command no rule can allow) is not offered; the advice then
 * says what stands in the way.
 */
import type { DecisionRequest } from './decide.js';
import { decide } from './decide.js';
import { bashAnalysisOf, bashPartsMatched, parseRule } from './rules.js';
import { suggestAllowRules } from './rule-suggestion.js';
import type {
  DenialAdvice,
  PermissionDecision,
  PermissionPolicy,
  PermissionRule,
} from './types.js';

export type { DenialAdvice } from './types.js';

/** Where allow rules go when the policy does not say which file the run reads. */
export const DEFAULT_ALLOW_RULES_FILE = '.claude/settings.json';
/** The one file `onAsk` can be set in. */
export const DEFAULT_POLICY_FILE = '.github/ci-agent.yml';

/** The snake_case record the tool log and `permission_denials` carry (docs/DECISIONS.md #14). */
export interface DenialAdviceRecord {
  allowable: boolean;
  text: string;
  add_rules: string[];
  file: string | null;
  remove_rules: { rule: string; list: 'deny' | 'ask'; source: string }[];
  on_ask: { tool: string; file: string } | null;
}

export function denialAdviceRecord(advice: DenialAdvice): DenialAdviceRecord {
  return {
    allowable: advice.allowable,
    text: advice.text,
    add_rules: [...advice.addRules],
    file: advice.file ?? null,
    remove_rules: advice.removeRules.map((item) => ({ ...item })),
    on_ask: advice.onAsk ? { ...advice.onAsk } : null,
  };
}

/** Deny and ask rules are taken away one step at a time: deny rule, ask rule, then the default. */
const MAX_STEPS = 4;

/** The advice for a call decide() denied with `decision`; undefined for a call it allowed. */
export function adviseDenial(
  request: DecisionRequest,
  policy: PermissionPolicy,
  decision: PermissionDecision,
): DenialAdvice | undefined {
  if (decision.behavior !== 'deny') return undefined;
  const plan = planChange(request, policy, decision, MAX_STEPS);
  if ('why' in plan) return notAllowable(plan.why);
  const changes = plan.addRules.length + plan.removeRules.length > 0;
  const main = changes && allowsWith(request, policy, plan);
  const onAsk =
    plan.onAsk && allowsWith(request, policy, { onAsk: plan.onAsk }) ? plan.onAsk : undefined;
  if (!main && !onAsk) {
    return notAllowable(`no rule found that allows this call (${decision.reason})`);
  }
  const file = policy.allowRulesFile ?? DEFAULT_ALLOW_RULES_FILE;
  const made = main ? plan : { addRules: [], removeRules: [] };
  return {
    allowable: true,
    text: adviceText(made, file, onAsk),
    addRules: made.addRules,
    ...(made.addRules.length > 0 && { file }),
    removeRules: made.removeRules,
    ...(onAsk && { onAsk }),
  };
}

function notAllowable(why: string): DenialAdvice {
  return { allowable: false, text: why, addRules: [], removeRules: [] };
}

interface Change {
  addRules: string[];
  removeRules: { rule: string; list: 'deny' | 'ask'; source: string }[];
  /** An alternative to the whole change: an onAsk answer (checked on its own). */
  onAsk?: { tool: string; file: string };
}

function planChange(
  request: DecisionRequest,
  policy: PermissionPolicy,
  decision: PermissionDecision,
  steps: number,
): Change | { why: string } {
  if (steps === 0) return { why: `no rule found that allows this call (${decision.reason})` };
  switch (decision.source) {
    case 'default':
      return addedRules(request, policy, decision);
    case 'deny-rule':
      return withoutRules(request, policy, decision, 'deny', steps);
    case 'ask-rule': {
      const removal = withoutRules(request, policy, decision, 'ask', steps);
      // An ask rule that matched what it cannot read is no ask to answer (unreadableMatch).
      if ('why' in removal || policy.mode === 'dontAsk') return removal;
      return { ...removal, onAsk: onAskEntry(request, policy) };
    }
    case 'hook':
      if (!decision.askResolved) {
        return { why: "a PreToolUse hook denied it, and no rule lifts a hook's deny" };
      }
      return answeredAsk(request, policy, 'a PreToolUse hook asked for approval');
    case 'user-interaction':
      return answeredAsk(request, policy, `${request.toolName} needs a person to answer`);
    default:
      return { why: floorText(decision) };
  }
}

function addedRules(
  request: DecisionRequest,
  policy: PermissionPolicy,
  decision: PermissionDecision,
): Change | { why: string } {
  const suggested = suggestAllowRules(request, policy);
  if ('why' in suggested) return suggested;
  if (suggested.rules.length === 0) {
    return { why: `no rule found that allows this call (${decision.reason})` };
  }
  return { addRules: suggested.rules, removeRules: [] };
}

function withoutRules(
  request: DecisionRequest,
  policy: PermissionPolicy,
  decision: PermissionDecision,
  list: 'deny' | 'ask',
  steps: number,
): Change | { why: string } {
  const unreadable = unreadableMatch(request, decision.matchedRules);
  if (unreadable !== undefined) return { why: unreadable };
  const matched = new Set(decision.matchedRules.map(ruleKey));
  const removeRules = decision.matchedRules.map((rule) => ({
    rule: rule.text,
    list,
    source: rule.source,
  }));
  const lighter = { ...policy, [list]: policy[list].filter((rule) => !matched.has(ruleKey(rule))) };
  const next = decide(request, lighter);
  if (next.behavior === 'allow') return { addRules: [], removeRules };
  const rest = planChange(request, lighter, next, steps - 1);
  if ('why' in rest) {
    const named = removeRules.map((item) => JSON.stringify(item.rule)).join(', ');
    return { why: `${list} rule ${named} aside, ${rest.why}` };
  }
  return { addRules: rest.addRules, removeRules: [...removeRules, ...rest.removeRules] };
}

function ruleKey(rule: PermissionRule): string {
  return `${rule.text}\0${rule.source}`;
}

/**
 * Why a Bash rule's match is no reason to remove it: it matched a command it cannot read (one
 * that does not parse, a part whose program is known only at run time), as every Bash deny and
 * ask rule does (bash-rules.ts). Removing it would take away a guard and allow nothing.
 */
function unreadableMatch(
  request: DecisionRequest,
  rules: readonly PermissionRule[],
): string | undefined {
  const bashRules = rules.filter((rule) => rule.toolName === 'Bash' && rule.content !== undefined);
  if (request.toolName !== 'Bash' || bashRules.length === 0) return undefined;
  const analysis = bashAnalysisOf(request);
  if (!analysis.ok) {
    return `the command could not be parsed (${analysis.reason}), so every Bash deny or ask rule counts as matching it: write it as simpler commands (no loops or functions)`;
  }
  const blind = bashRules.find((rule) =>
    bashPartsMatched(rule, request).every((part) => part.opaque),
  );
  if (blind === undefined) return undefined;
  const opaque = analysis.parts.find((part) => part.opaque);
  return `\`${opaque?.text ?? request.request.ruleContent ?? ''}\` runs a command known only at run time (a variable, a substitution, eval, or a script read from standard input), so every Bash deny or ask rule counts as matching it, and no rule can allow it`;
}

function answeredAsk(
  request: DecisionRequest,
  policy: PermissionPolicy,
  asked: string,
): Change | { why: string } {
  if (policy.mode === 'dontAsk') return { why: `${asked}, and dontAsk mode refuses every ask` };
  return { addRules: [], removeRules: [], onAsk: onAskEntry(request, policy) };
}

function onAskEntry(request: DecisionRequest, policy: PermissionPolicy) {
  return { tool: request.toolName, file: policy.askDefaultSource ?? DEFAULT_POLICY_FILE };
}

/** Whether decide() allows the call once the change is made. */
function allowsWith(request: DecisionRequest, policy: PermissionPolicy, change: Partial<Change>) {
  const removed = new Set((change.removeRules ?? []).map((item) => `${item.list}\0${item.rule}`));
  const keep = (list: 'deny' | 'ask') => (rule: PermissionRule) =>
    !removed.has(`${list}\0${rule.text}`);
  const file = policy.allowRulesFile ?? DEFAULT_ALLOW_RULES_FILE;
  const changed: PermissionPolicy = {
    ...policy,
    allow: [...policy.allow, ...(change.addRules ?? []).map((text) => parseRule(text, file))],
    deny: policy.deny.filter(keep('deny')),
    ask: policy.ask.filter(keep('ask')),
    ...(change.onAsk && {
      askDefaultByTool: { ...policy.askDefaultByTool, [change.onAsk.tool]: 'allow' as const },
    }),
  };
  return decide(request, changed).behavior === 'allow';
}

function adviceText(
  change: Change,
  file: string,
  onAsk: { tool: string; file: string } | undefined,
): string {
  const steps = [
    ...change.removeRules.map(
      (item) =>
        `remove the ${item.list} rule ${JSON.stringify(item.rule)} ${sourcePhrase(item.source)}`,
    ),
    ...(change.addRules.length > 0
      ? [
          `add ${listed(change.addRules.map((rule) => JSON.stringify(rule)))} to permissions.allow in ${file}`,
        ]
      : []),
  ];
  const answer = onAsk && `set permissions.onAsk.tools.${onAsk.tool}: allow in ${onAsk.file}`;
  if (steps.length === 0) return answer ?? '';
  return answer ? `${listed(steps)}, or ${answer}` : listed(steps);
}

/** A rule's source is a file, or the flag that gave it. */
function sourcePhrase(source: string): string {
  return source.startsWith('--') ? `given with ${source}` : `from ${source}`;
}

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const FLOORS: Partial<Record<PermissionDecision['source'], string>> = {
  workspace:
    'a floor: no rule allows changing files outside the workspace (the project and permissions.additionalDirectories)',
  'critical-path': 'a floor: no rule or mode allows removing a critical path',
  sandbox: 'a floor: no rule allows reading what the sandbox hides',
  judge: 'a floor: no rule, mode or hook lets the agent change what judges the run',
  'protected-path':
    'a floor: no rule allows changing a protected path (only bypassPermissions mode does)',
  mode: 'a floor: plan mode refuses every change, whatever the rules say, until ExitPlanMode is approved',
};

function floorText(decision: PermissionDecision): string {
  return FLOORS[decision.source] ?? `no rule allows this call (${decision.reason})`;
}
