/**
 * The permission decision: a pure function, no I/O.
 *
 * Order (strictest first, independent of rule order):
 *   1. the floors (floors.ts: writes outside the workspace, deny rules, critical removals, the
 *      judges, protected paths, plan mode) — checked before anything may ask or allow, so that
 *      no ask rule, hook answer, mode, allow rule or `onAsk` answer lifts them (docs/DECISIONS.md #19)
 *   2. a hook's deny
 *   3. ask rules, a hook's ask, and tools that need a human (requiresUserInteraction)
 *   4. a hook's allow — it skips what follows, never a floor or an ask (docs/DECISIONS.md #5)
 *   5. mode — bypassPermissions allows; acceptEdits allows edits inside
 *   6. allow rules
 *   7. the mode's default — read-only calls inside the workspace are allowed, the rest asks
 * An "ask" has nobody to answer in CI and resolves to the policy's askDefault (docs/DECISIONS.md #9); an
 * ask answered allow names the policy entry that answered.
 */
import type { FloorRequest, Verdict } from './floors.js';
import { denyRuleVerdict, describeRules, floorVerdict } from './floors.js';
import { isInside } from '../tools/paths.js';
import { allowRulesCovering, bashPartsUncovered, ruleMatches } from './rules.js';
import type { HookDecision, PermissionDecision, PermissionPolicy } from './types.js';

export interface DecisionRequest extends FloorRequest {
  requiresUserInteraction: boolean;
  hook?: HookDecision;
}

export function decide(request: DecisionRequest, policy: PermissionPolicy): PermissionDecision {
  return resolveAsk(evaluate(request, policy), request, policy);
}

/**
 * Only the deny rules. The pipeline asks this before validateInput, which looks at the disk, so
 * that a denied path never reveals whether it exists.
 */
export function decideByDenyRules(
  request: DecisionRequest,
  policy: PermissionPolicy,
): PermissionDecision | undefined {
  const verdict = denyRuleVerdict(request, policy);
  return verdict ? { ...verdict, behavior: 'deny', askResolved: false } : undefined;
}

function evaluate(request: DecisionRequest, policy: PermissionPolicy): Verdict {
  const floor = floorVerdict(request, policy);
  if (floor) return floor;
  const hook = request.hook;
  const hookSays = hook
    ? `PreToolUse hook ${hook.source}${hook.reason ? `: ${hook.reason}` : ''}`
    : '';
  if (hook?.behavior === 'deny') {
    return { behavior: 'deny', source: 'hook', matchedRules: [], reason: `denied by ${hookSays}` };
  }
  const asked = askVerdict(request, policy);
  if (asked) return asked;
  if (hook?.behavior === 'allow') {
    return {
      behavior: 'allow',
      source: 'hook',
      matchedRules: [],
      reason: `allowed by ${hookSays}`,
    };
  }
  const modeVerdict = evaluateMode(request, policy);
  if (modeVerdict) return modeVerdict;

  const allowed = allowRulesCovering(policy.allow, request);
  if (allowed.length > 0) {
    return {
      behavior: 'allow',
      source: 'allow-rule',
      matchedRules: allowed,
      reason: `allowed by rule ${describeRules(allowed)}`,
    };
  }
  return defaultVerdict(request, policy);
}

function askVerdict(request: DecisionRequest, policy: PermissionPolicy): Verdict | undefined {
  const asked = policy.ask.filter((rule) => ruleMatches(rule, request, 'ask'));
  if (asked.length > 0) {
    return {
      behavior: 'ask',
      source: 'ask-rule',
      matchedRules: asked,
      reason: `rule ${describeRules(asked)} requires approval`,
    };
  }
  const hook = request.hook;
  if (hook?.behavior === 'ask') {
    return {
      behavior: 'ask',
      source: 'hook',
      matchedRules: [],
      reason: `PreToolUse hook ${hook.source} asked for approval${hook.reason ? `: ${hook.reason}` : ''}`,
    };
  }
  if (request.requiresUserInteraction) {
    return {
      behavior: 'ask',
      source: 'user-interaction',
      matchedRules: [],
      reason: `${request.toolName} needs a person to answer`,
    };
  }
  return undefined;
}

function evaluateMode(request: DecisionRequest, policy: PermissionPolicy): Verdict | undefined {
  switch (policy.mode) {
    case 'bypassPermissions':
      return {
        behavior: 'allow',
        source: 'mode',
        matchedRules: [],
        reason: 'bypassPermissions mode',
      };
    case 'acceptEdits':
      // Edits outside the workspace were refused among the floors.
      return request.request.access === 'edit'
        ? {
            behavior: 'allow',
            source: 'mode',
            matchedRules: [],
            reason: 'acceptEdits mode: edit inside the workspace',
          }
        : undefined;
    case 'plan': // changes were refused among the floors; read-only calls go on as in default
    case 'default':
    case 'dontAsk':
      return undefined;
  }
}

function defaultVerdict(request: DecisionRequest, policy: PermissionPolicy): Verdict {
  const outside = [
    ...(request.request.paths ?? []).filter(
      (path) => !policy.workspaceRoots.some((root) => isInside(path, root)),
    ),
    // What a command reads that cannot be placed (`$PPID`, a glob that could climb out).
    ...(request.request.readsOutside ?? []),
  ];
  if (request.readOnly && outside.length === 0) {
    return {
      behavior: 'allow',
      source: 'default',
      matchedRules: [],
      reason: 'read-only call inside the workspace',
    };
  }
  return {
    behavior: 'ask',
    source: 'default',
    matchedRules: [],
    reason: askReason(request, policy, outside),
  };
}

/** Why nothing allowed the call: what reaches outside, or the parts of a command no rule allows. */
function askReason(
  request: DecisionRequest,
  policy: PermissionPolicy,
  outside: readonly string[],
): string {
  const { toolName } = request;
  if (outside.length > 0) {
    return `${toolName} reaches outside the workspace (${outside.join(', ')}) and no rule allows it`;
  }
  if (toolName === 'Bash') {
    const uncovered = bashPartsUncovered(policy.allow, request);
    const total = request.request.ruleContent;
    if (uncovered.length > 0 && uncovered.some((part) => part.text !== total?.trim())) {
      return `no rule allows ${uncovered.map((part) => `\`${part.text}\``).join(', ')} (part of the command) in ${policy.mode} mode`;
    }
  }
  return `no rule allows ${toolName} in ${policy.mode} mode`;
}

function resolveAsk(
  verdict: Verdict,
  request: DecisionRequest,
  policy: PermissionPolicy,
): PermissionDecision {
  if (verdict.behavior !== 'ask') {
    return { ...verdict, behavior: verdict.behavior, askResolved: false };
  }
  const byTool = policy.askDefaultByTool ?? {};
  // The tool by name or alias, else its MCP server (`mcp__server` covers the server's tools).
  const server = /^(mcp__.+?)__/.exec(request.toolName)?.[1];
  const entry = [request.toolName, ...request.aliases, ...(server ? [server] : [])].find((name) =>
    Object.hasOwn(byTool, name),
  );
  const resolution = entry === undefined ? policy.askDefault : (byTool[entry] ?? policy.askDefault);
  // dontAsk refuses whatever would ask, whatever the policy default.
  const behavior = policy.mode === 'dontAsk' ? 'deny' : resolution;
  const field = `permissions.onAsk.${entry === undefined ? 'default' : `tools.${entry}`}: ${resolution}`;
  const where = policy.askDefaultSource ? ` in ${policy.askDefaultSource}` : '';
  const how =
    policy.mode === 'dontAsk'
      ? 'dontAsk mode refuses it'
      : resolution === 'allow'
        ? `the policy's \`${field}\`${where} allows it`
        : entry === undefined
          ? `the policy resolves asks to ${resolution}`
          : `the policy resolves asks for ${entry} to ${resolution}`;
  return {
    behavior,
    askResolved: true,
    source: verdict.source,
    matchedRules: verdict.matchedRules,
    reason: `${verdict.reason}; nobody can approve in CI and ${how}`,
  };
}
