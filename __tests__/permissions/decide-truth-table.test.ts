/**
 * decide() over every combination of the things that can speak: a deny rule, a PreToolUse hook,
 * an ask rule, the mode, an allow rule, and the call's own nature. The expected column is the
 * precedence written out as the specification states it (deny rules > plan mode's refusal of
 * changes > hook decision > ask rules > mode > allow rules > the mode's default; a hook's allow never
 * overrides a deny or ask rule, nor plan mode; an ask resolves to the policy default),
 * independently of how decide() is written.
 */
import { describe, expect, it } from 'vitest';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { Behavior, DecisionSource, PermissionMode } from '../../src/permissions/types.js';
import { PERMISSION_MODES } from '../../src/permissions/types.js';

const ROOT = '/work/repo';
type Kind = 'read' | 'edit' | 'execute';
type Hook = 'none' | Behavior;

const requests: Record<Kind, DecisionRequest> = {
  read: {
    toolName: 'Read',
    aliases: [],
    request: { access: 'read', ruleContent: `${ROOT}/a.txt`, paths: [`${ROOT}/a.txt`] },
    readOnly: true,
    requiresUserInteraction: false,
    projectDir: ROOT,
  },
  edit: {
    toolName: 'Edit',
    aliases: [],
    request: { access: 'edit', ruleContent: `${ROOT}/a.txt`, paths: [`${ROOT}/a.txt`] },
    readOnly: false,
    requiresUserInteraction: false,
    projectDir: ROOT,
  },
  execute: {
    toolName: 'Bash',
    aliases: [],
    request: { access: 'execute', ruleContent: 'npm install' },
    readOnly: false,
    requiresUserInteraction: false,
    projectDir: ROOT,
  },
};

interface Expected {
  behavior: 'allow' | 'deny';
  source: DecisionSource;
  askResolved: boolean;
}

/** The specification, step by step. */
function expected(
  kind: Kind,
  denyRule: boolean,
  hook: Hook,
  askRule: boolean,
  mode: PermissionMode,
  allowRule: boolean,
): Expected {
  const ask = (source: DecisionSource): Expected => ({
    behavior: 'deny',
    source,
    askResolved: true,
  });
  if (denyRule) return { behavior: 'deny', source: 'deny-rule', askResolved: false };
  if (mode === 'plan' && kind !== 'read')
    return { behavior: 'deny', source: 'mode', askResolved: false };
  if (hook === 'deny') return { behavior: 'deny', source: 'hook', askResolved: false };
  if (askRule) return ask('ask-rule');
  if (hook === 'ask') return ask('hook');
  if (hook === 'allow') return { behavior: 'allow', source: 'hook', askResolved: false };
  if (mode === 'bypassPermissions')
    return { behavior: 'allow', source: 'mode', askResolved: false };
  if (mode === 'acceptEdits' && kind === 'edit')
    return { behavior: 'allow', source: 'mode', askResolved: false };
  if (allowRule) return { behavior: 'allow', source: 'allow-rule', askResolved: false };
  if (kind === 'read') return { behavior: 'allow', source: 'default', askResolved: false };
  return ask('default');
}

const rows: Array<[Kind, boolean, Hook, boolean, PermissionMode, boolean]> = [];
for (const kind of ['read', 'edit', 'execute'] as const)
  for (const denyRule of [false, true])
    for (const hook of ['none', 'allow', 'deny', 'ask'] as const)
      for (const askRule of [false, true])
        for (const mode of PERMISSION_MODES)
          for (const allowRule of [false, true])
            rows.push([kind, denyRule, hook, askRule, mode, allowRule]);

describe('decide (truth table)', () => {
  it('covers every combination', () => {
    expect(rows).toHaveLength(3 * 2 * 4 * 2 * PERMISSION_MODES.length * 2);
  });

  it.each(rows)(
    '%s call, deny rule %s, hook %s, ask rule %s, %s mode, allow rule %s',
    (kind, denyRule, hook, askRule, mode, allowRule) => {
      const request = requests[kind];
      const rule = parseRule(request.toolName, 'policy');
      const decision = decide(
        {
          ...request,
          hook:
            hook === 'none' ? undefined : { behavior: hook, source: 'hook.sh', reason: 'because' },
        },
        {
          mode,
          deny: denyRule ? [rule] : [],
          ask: askRule ? [rule] : [],
          allow: allowRule ? [rule] : [],
          askDefault: 'deny',
          workspaceRoots: [ROOT],
        },
      );
      expect({
        behavior: decision.behavior,
        source: decision.source,
        askResolved: decision.askResolved,
      }).toEqual(expected(kind, denyRule, hook, askRule, mode, allowRule));
      if (decision.source.endsWith('-rule'))
        expect(decision.matchedRules.map((matched) => matched.text)).toEqual([rule.text]);
    },
  );
});
