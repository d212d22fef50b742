/**
 * The permission decision: a pure function, no I/O.
 *
 * Order (strictest first, independent of rule order):
 *   1. workspace — a change outside the workspace roots is refused (DECISIONS #12)
 *   2. deny rules
 *   3. hook decision — deny ends here; ask asks; allow skips only the mode default (never a rule)
 *   4. plan mode refuses every call that is not read-only, whatever would allow it below
 *   5. ask rules, and tools that need a human (requiresUserInteraction)
 *   6. critical removals (critical-paths.ts: `rm -rf /`, `~`, the project…) are refused in every
 *      mode; protected paths (protected-paths.ts) — a change to one is refused outside
 *      bypassPermissions: neither a hook's allow, nor acceptEdits, nor an allow rule, nor an ask
 *      answer approves it
 *   7. mode — bypassPermissions allows; acceptEdits allows edits inside
 *   8. allow rules
 *   9. the mode's default — read-only calls inside the workspace are allowed, the rest asks
 * An "ask" has nobody to answer in CI and resolves to the policy's askDefault (DECISIONS #9).
 */
import { isInside } from '../tools/paths.js';
import { criticalRemovals } from './critical-paths.js';
import { protectedPaths } from './protected-paths.js';
import type { RuleTarget } from './rules.js';
import { allowRulesCovering, ruleMatches } from './rules.js';
import type {
  Behavior,
  DecisionSource,
  HookDecision,
  PermissionDecision,
  PermissionPolicy,
  PermissionRule,
} from './types.js';

export interface DecisionRequest extends RuleTarget {
  /** The tool's own declaration for this input. */
  readOnly: boolean;
  requiresUserInteraction: boolean;
  hook?: HookDecision;
}

interface Verdict {
  behavior: Behavior;
  source: DecisionSource;
  matchedRules: readonly PermissionRule[];
  reason: string;
}

export function decide(request: DecisionRequest, policy: PermissionPolicy): PermissionDecision {
  return resolveAsk(evaluate(request, policy), request, policy);
}

/**
 * Only step 2: the deny rules. The pipeline asks this before validateInput, which looks at the
 * disk, so that a denied path never reveals whether it exists.
 */
export function decideByDenyRules(
  request: DecisionRequest,
  policy: PermissionPolicy,
): PermissionDecision | undefined {
  const verdict = denyRuleVerdict(request, policy);
  return verdict ? { ...verdict, behavior: 'deny', askResolved: false } : undefined;
}

function denyRuleVerdict(request: DecisionRequest, policy: PermissionPolicy): Verdict | undefined {
  const denied = policy.deny.filter((rule) => ruleMatches(rule, request, 'deny'));
  if (denied.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'deny-rule',
    matchedRules: denied,
    reason: `denied by rule ${describeRules(denied)}`,
  };
}

function evaluate(request: DecisionRequest, policy: PermissionPolicy): Verdict {
  const { toolName } = request;
  const paths = request.request.paths ?? [];
  const outside = paths.filter(
    (path) => !policy.workspaceRoots.some((root) => isInside(path, root)),
  );

  if (request.request.access === 'edit' && outside.length > 0) {
    return {
      behavior: 'deny',
      source: 'workspace',
      matchedRules: [],
      reason: `${toolName} may not change files outside the workspace (${outside.join(', ')})`,
    };
  }

  const denied = denyRuleVerdict(request, policy);
  if (denied) return denied;

  const hook = request.hook;
  if (hook?.behavior === 'deny') {
    return {
      behavior: 'deny',
      source: 'hook',
      matchedRules: [],
      reason: `denied by PreToolUse hook ${hook.source}${hook.reason ? `: ${hook.reason}` : ''}`,
    };
  }

  // Before asks and hook allows: an ask the policy resolves to allow, or a hook's allow, must not
  // carry a change through plan mode. ExitPlanMode is read-only and asks (it needs a person).
  if (policy.mode === 'plan' && (!request.readOnly || request.request.access === 'edit')) {
    return {
      behavior: 'deny',
      source: 'mode',
      matchedRules: [],
      reason: `plan mode is read-only and ${toolName} could change something; present your plan with ExitPlanMode, changes can be made once it is approved`,
    };
  }

  const asked = policy.ask.filter((rule) => ruleMatches(rule, request, 'ask'));
  if (asked.length > 0) {
    return {
      behavior: 'ask',
      source: 'ask-rule',
      matchedRules: asked,
      reason: `rule ${describeRules(asked)} requires approval`,
    };
  }
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
      reason: `${toolName} needs a person to answer`,
    };
  }
  const critical = criticalRemovals(request.request.fileOperands ?? [], {
    projectDir: request.projectDir ?? policy.workspaceRoots[0],
    homeDir: request.homeDir,
  });
  if (critical.length > 0) {
    return {
      behavior: 'deny',
      source: 'critical-path',
      matchedRules: [],
      reason: `${toolName} would remove ${critical.join(', ')}: a critical path (the root, a top-level directory, the home or project directory or a parent of it, or everything in a directory named only at run time); nothing allows that in CI`,
    };
  }
  const guarded = policy.mode === 'bypassPermissions' ? [] : protectedWrites(request, policy);
  if (guarded.length > 0) {
    return {
      behavior: 'deny',
      source: 'protected-path',
      matchedRules: [],
      reason: `${toolName} would change ${guarded.join(', ')}: a protected path (git, Claude Code, editor and shell configuration); only bypassPermissions mode allows that in CI`,
    };
  }
  if (hook?.behavior === 'allow') {
    return {
      behavior: 'allow',
      source: 'hook',
      matchedRules: [],
      reason: `allowed by PreToolUse hook ${hook.source}${hook.reason ? `: ${hook.reason}` : ''}`,
    };
  }

  const modeVerdict = evaluateMode(request, policy, outside);
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

  const unplaced = request.request.readsOutside ?? [];
  if (request.readOnly && outside.length === 0 && unplaced.length === 0) {
    return {
      behavior: 'allow',
      source: 'default',
      matchedRules: [],
      reason: 'read-only call inside the workspace',
    };
  }
  const reaches = [...outside, ...unplaced];
  return {
    behavior: 'ask',
    source: 'default',
    matchedRules: [],
    reason:
      reaches.length > 0
        ? `${toolName} reaches outside the workspace (${reaches.join(', ')}) and no rule allows it`
        : `no rule allows ${toolName} in ${policy.mode} mode`,
  };
}

/** The protected paths the call would change: an edit's paths, and the files a command writes. */
function protectedWrites(request: DecisionRequest, policy: PermissionPolicy): string[] {
  const written = [
    ...(request.request.access === 'edit' ? (request.request.paths ?? []) : []),
    ...(request.request.fileOperands ?? [])
      .filter((operand) => operand.access === 'write')
      .map((operand) => operand.path),
  ];
  return [...new Set(protectedPaths(written, policy.workspaceRoots))];
}

function evaluateMode(
  request: DecisionRequest,
  policy: PermissionPolicy,
  outside: readonly string[],
): Verdict | undefined {
  switch (policy.mode) {
    case 'bypassPermissions':
      return {
        behavior: 'allow',
        source: 'mode',
        matchedRules: [],
        reason: 'bypassPermissions mode',
      };
    case 'acceptEdits':
      return request.request.access === 'edit' && outside.length === 0
        ? {
            behavior: 'allow',
            source: 'mode',
            matchedRules: [],
            reason: 'acceptEdits mode: edit inside the workspace',
          }
        : undefined;
    case 'plan': // changes were refused above; read-only calls go on as in default mode
    case 'default':
    case 'dontAsk':
      return undefined;
  }
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
  const toolName = [request.toolName, ...request.aliases, ...(server ? [server] : [])].find(
    (name) => Object.hasOwn(byTool, name),
  );
  const resolution =
    toolName === undefined ? policy.askDefault : (byTool[toolName] ?? policy.askDefault);
  // dontAsk refuses whatever would ask, whatever the policy default.
  const behavior = policy.mode === 'dontAsk' ? 'deny' : resolution;
  const how =
    policy.mode === 'dontAsk'
      ? 'dontAsk mode refuses it'
      : toolName === undefined
        ? `the policy resolves asks to ${resolution}`
        : `the policy resolves asks for ${toolName} to ${resolution}`;
  return {
    behavior,
    askResolved: true,
    source: verdict.source,
    matchedRules: verdict.matchedRules,
    reason: `${verdict.reason}; nobody can approve in CI and ${how}`,
  };
}

function describeRules(rules: readonly PermissionRule[]): string {
  return rules.map((rule) => `'${rule.text}' (${rule.source})`).join(', ');
}
