import { describe, expect, it } from 'vitest';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionMode, PermissionPolicy } from '../../src/permissions/types.js';

const ROOT = '/work/repo';

function policy(overrides: Partial<PermissionPolicy> = {}): PermissionPolicy {
  return {
    mode: 'default',
    allow: [],
    deny: [],
    ask: [],
    askDefault: 'deny',
    workspaceRoots: [ROOT],
    ...overrides,
  };
}

const read: DecisionRequest = {
  toolName: 'Read',
  aliases: [],
  request: { access: 'read', ruleContent: `${ROOT}/a.txt`, paths: [`${ROOT}/a.txt`] },
  readOnly: true,
  requiresUserInteraction: false,
};
const readOutside: DecisionRequest = {
  ...read,
  request: { access: 'read', ruleContent: '/etc/passwd', paths: ['/etc/passwd'] },
};
const edit: DecisionRequest = {
  toolName: 'Edit',
  aliases: [],
  request: { access: 'edit', ruleContent: `${ROOT}/a.txt`, paths: [`${ROOT}/a.txt`] },
  readOnly: false,
  requiresUserInteraction: false,
};
const editOutside: DecisionRequest = {
  ...edit,
  request: { access: 'edit', ruleContent: '/tmp/x', paths: ['/tmp/x'] },
};
const bashWrite: DecisionRequest = {
  toolName: 'Bash',
  aliases: [],
  request: { access: 'execute', ruleContent: 'npm install' },
  commandParts: ['npm install'],
  readOnly: false,
  requiresUserInteraction: false,
};
const bashRead: DecisionRequest = {
  ...bashWrite,
  request: { access: 'read', ruleContent: 'git status' },
  commandParts: ['git status'],
  readOnly: true,
};

const rule = (text: string) => parseRule(text, 'test');

describe('decide', () => {
  describe('mode defaults, without rules', () => {
    // [mode, request, behavior, askResolved, source]
    const table: Array<
      [PermissionMode, string, DecisionRequest, 'allow' | 'deny', boolean, string]
    > = [
      ['default', 'read inside', read, 'allow', false, 'default'],
      ['default', 'read outside', readOutside, 'deny', true, 'default'],
      ['default', 'edit inside', edit, 'deny', true, 'default'],
      ['default', 'edit outside', editOutside, 'deny', false, 'workspace'],
      ['default', 'read-only bash', bashRead, 'allow', false, 'default'],
      ['default', 'other bash', bashWrite, 'deny', true, 'default'],
      ['acceptEdits', 'edit inside', edit, 'allow', false, 'mode'],
      ['acceptEdits', 'edit outside', editOutside, 'deny', false, 'workspace'],
      ['acceptEdits', 'other bash', bashWrite, 'deny', true, 'default'],
      ['acceptEdits', 'read inside', read, 'allow', false, 'default'],
      ['plan', 'read inside', read, 'allow', false, 'default'],
      ['plan', 'edit inside', edit, 'deny', false, 'mode'],
      ['plan', 'other bash', bashWrite, 'deny', false, 'mode'],
      ['bypassPermissions', 'other bash', bashWrite, 'allow', false, 'mode'],
      ['bypassPermissions', 'edit inside', edit, 'allow', false, 'mode'],
      ['bypassPermissions', 'read outside', readOutside, 'allow', false, 'mode'],
      ['bypassPermissions', 'edit outside', editOutside, 'deny', false, 'workspace'],
      ['dontAsk', 'other bash', bashWrite, 'deny', true, 'default'],
      ['dontAsk', 'read inside', read, 'allow', false, 'default'],
    ];
    it.each(table)('%s mode, %s → %s', (mode, _name, request, behavior, askResolved, source) => {
      const decision = decide(request, policy({ mode }));
      expect(decision).toMatchObject({ behavior, askResolved, source });
    });
  });

  describe('precedence', () => {
    it('deny rule beats allow rule, whatever the order', () => {
      for (const [allow, deny] of [
        [[rule('Bash')], [rule('Bash')]],
        [[rule('Bash(npm install)')], [rule('Bash')]],
      ]) {
        expect(decide(bashWrite, policy({ allow, deny })).behavior).toBe('deny');
      }
    });

    it('deny rule beats bypassPermissions and a hook allow', () => {
      const decision = decide(
        { ...bashWrite, hook: { behavior: 'allow', source: 'hook.sh' } },
        policy({ mode: 'bypassPermissions', deny: [rule('Bash(npm install)')] }),
      );
      expect(decision).toMatchObject({ behavior: 'deny', source: 'deny-rule' });
      expect(decision.matchedRules.map((r) => r.text)).toEqual(['Bash(npm install)']);
    });

    it('hook deny beats allow rules and the mode', () => {
      const decision = decide(
        { ...read, hook: { behavior: 'deny', reason: 'nope', source: 'guard' } },
        policy({ mode: 'bypassPermissions', allow: [rule('Read')] }),
      );
      expect(decision).toMatchObject({ behavior: 'deny', source: 'hook' });
      expect(decision.reason).toContain('nope');
    });

    it('hook allow never overrides an ask rule', () => {
      const decision = decide(
        { ...bashWrite, hook: { behavior: 'allow', source: 'dippy' } },
        policy({ ask: [rule('Bash')] }),
      );
      expect(decision).toMatchObject({ behavior: 'deny', askResolved: true, source: 'ask-rule' });
    });

    it('hook allow allows what the mode default would ask about', () => {
      const decision = decide(
        { ...bashWrite, hook: { behavior: 'allow', source: 'dippy' } },
        policy(),
      );
      expect(decision).toMatchObject({ behavior: 'allow', source: 'hook' });
    });

    it('hook ask resolves to the policy default', () => {
      const hooked = { ...read, hook: { behavior: 'ask' as const, source: 'h' } };
      expect(decide(hooked, policy()).behavior).toBe('deny');
      expect(decide(hooked, policy({ askDefault: 'allow' })).behavior).toBe('allow');
    });

    it('ask rule beats bypassPermissions and allow rules', () => {
      const decision = decide(
        bashWrite,
        policy({ mode: 'bypassPermissions', ask: [rule('Bash')], allow: [rule('Bash')] }),
      );
      expect(decision).toMatchObject({ behavior: 'deny', askResolved: true, source: 'ask-rule' });
    });

    it('an ask resolves to allow when the policy says so, but never in dontAsk mode', () => {
      expect(decide(bashWrite, policy({ askDefault: 'allow' })).behavior).toBe('allow');
      expect(decide(bashWrite, policy({ askDefault: 'allow', mode: 'dontAsk' })).behavior).toBe(
        'deny',
      );
    });

    it('resolves an ask per tool when the policy names the tool, by name or alias', () => {
      const perTool = policy({
        askDefault: 'deny',
        askDefaultByTool: { Edit: 'allow', Task: 'allow' },
      });
      const editDecision = decide(edit, perTool);
      expect(editDecision).toMatchObject({ behavior: 'allow', askResolved: true });
      expect(editDecision.reason).toContain(
        "the policy's `permissions.onAsk.tools.Edit: allow` allows it",
      );
      expect(decide(bashWrite, perTool).behavior).toBe('deny');
      const agent: DecisionRequest = {
        ...bashWrite,
        toolName: 'Agent',
        aliases: ['Task'],
        request: { access: 'other' },
      };
      expect(decide(agent, perTool).behavior).toBe('allow');
      expect(decide(edit, { ...perTool, mode: 'dontAsk' }).behavior).toBe('deny');
    });

    it('a tool that needs a person asks even in bypassPermissions mode', () => {
      const decision = decide(
        { ...read, requiresUserInteraction: true },
        policy({ mode: 'bypassPermissions' }),
      );
      expect(decision).toMatchObject({
        behavior: 'deny',
        askResolved: true,
        source: 'user-interaction',
      });
    });

    it('plan mode refuses a change even when an allow rule names it', () => {
      expect(decide(bashWrite, policy({ mode: 'plan', allow: [rule('Bash')] })).behavior).toBe(
        'deny',
      );
    });

    it('an allow rule allows a read outside the workspace', () => {
      const decision = decide(readOutside, policy({ allow: [rule('Read')] }));
      expect(decision).toMatchObject({ behavior: 'allow', source: 'allow-rule' });
    });

    it('no rule lets an edit leave the workspace', () => {
      const decision = decide(
        editOutside,
        policy({ allow: [rule('Edit')], mode: 'bypassPermissions' }),
      );
      expect(decision).toMatchObject({ behavior: 'deny', source: 'workspace' });
    });
  });

  describe('reasons', () => {
    it('says that an ask was resolved by the policy default', () => {
      expect(decide(bashWrite, policy()).reason).toBe(
        'no rule allows Bash in default mode; nobody can approve in CI and the policy resolves asks to deny',
      );
    });

    it('names the rule and its source', () => {
      const decision = decide(
        bashWrite,
        policy({ deny: [parseRule('Bash(npm install)', '--disallowedTools')] }),
      );
      expect(decision.reason).toBe("denied by rule 'Bash(npm install)' (--disallowedTools)");
    });
  });
});
