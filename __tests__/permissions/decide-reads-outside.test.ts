/**
 * decide() on read-only calls whose reads reach outside the workspace, as the Bash tool reports
 * them (`paths`: what it reads; `readsOutside`: what cannot be placed inside). Only the mode
 * default's auto-allow depends on them; every other step decides as for any read-only call.
 */
import { describe, expect, it } from 'vitest';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionMode, PermissionPolicy } from '../../src/permissions/types.js';

const ROOT = '/work/repo';

type Reads = 'inside' | 'outside path' | 'unplaced';

const request = (reads: Reads): DecisionRequest => ({
  toolName: 'Bash',
  aliases: [],
  request: {
    access: 'read',
    ruleContent: 'cat x',
    paths: reads === 'outside path' ? [ROOT, '/etc/passwd'] : [ROOT, `${ROOT}/a.txt`],
    ...(reads === 'unplaced' && { readsOutside: ['$F (known only when it runs)'] }),
  },
  readOnly: true,
  requiresUserInteraction: false,
  projectDir: ROOT,
});

const policy = (mode: PermissionMode, allow: string[] = []): PermissionPolicy => ({
  mode,
  allow: allow.map((text) => parseRule(text, 'test')),
  deny: [],
  ask: [],
  askDefault: 'deny',
  workspaceRoots: [ROOT],
});

describe('decide', () => {
  describe('when a read-only call reads inside, outside, or what cannot be placed', () => {
    // [reads, mode, allow rules, behavior, source, askResolved]
    const table: Array<[Reads, PermissionMode, string[], 'allow' | 'deny', string, boolean]> = [
      ['inside', 'default', [], 'allow', 'default', false],
      ['outside path', 'default', [], 'deny', 'default', true],
      ['unplaced', 'default', [], 'deny', 'default', true],
      ['inside', 'plan', [], 'allow', 'default', false],
      ['outside path', 'plan', [], 'deny', 'default', true],
      ['unplaced', 'plan', [], 'deny', 'default', true],
      ['unplaced', 'dontAsk', [], 'deny', 'default', true],
      ['unplaced', 'acceptEdits', [], 'deny', 'default', true],
      ['unplaced', 'bypassPermissions', [], 'allow', 'mode', false],
      ['unplaced', 'default', ['Bash(cat:*)'], 'allow', 'allow-rule', false],
      ['outside path', 'default', ['Bash(cat:*)'], 'allow', 'allow-rule', false],
    ];
    it.each(table)(
      'reading %s in %s mode (allow %j) → %s by %s',
      (reads, mode, allow, behavior, source, askResolved) => {
        const decision = decide(request(reads), policy(mode, allow));
        expect([decision.behavior, decision.source, decision.askResolved]).toEqual([
          behavior,
          source,
          askResolved,
        ]);
      },
    );
  });

  it('names what could not be placed in the reason', () => {
    expect(decide(request('unplaced'), policy('default')).reason).toBe(
      'Bash reaches outside the workspace ($F (known only when it runs)) and no rule allows it; nobody can approve in CI and the policy resolves asks to deny',
    );
  });

  it('lets the ask default answer allow', () => {
    const decision = decide(request('unplaced'), { ...policy('default'), askDefault: 'allow' });
    expect([decision.behavior, decision.askResolved]).toEqual(['allow', true]);
  });
});
