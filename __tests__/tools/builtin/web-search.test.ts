import { describe, expect, it } from 'vitest';
import { parseRule } from '../../../src/permissions/rules.js';
import type { PermissionMode, PermissionPolicy } from '../../../src/permissions/types.js';
import { webSearchOffer } from '../../../src/tools/builtin/web-search.js';

const WHERE = { projectDir: '/repo', homeDir: '/home/runner' };

function policy(
  overrides: { mode?: PermissionMode; allow?: string[]; deny?: string[]; ask?: string[] } & Partial<
    Pick<PermissionPolicy, 'askDefault' | 'askDefaultByTool'>
  > = {},
): PermissionPolicy {
  const parse = (texts: string[] = []) => texts.map((text) => parseRule(text, 'ci-agent.yml'));
  return {
    mode: overrides.mode ?? 'default',
    allow: parse(overrides.allow),
    deny: parse(overrides.deny),
    ask: parse(overrides.ask),
    askDefault: overrides.askDefault ?? 'deny',
    askDefaultByTool: overrides.askDefaultByTool ?? {},
    workspaceRoots: ['/repo'],
  };
}

describe('webSearchOffer', () => {
  it.each([
    ['an allow rule names WebSearch', { allow: ['WebSearch'] }, true],
    ['an allow rule names WebSearch in plan mode', { mode: 'plan', allow: ['WebSearch'] }, true],
    ['the mode is bypassPermissions', { mode: 'bypassPermissions' }, true],
    [
      'an ask rule resolves to allow for WebSearch',
      { ask: ['WebSearch'], askDefaultByTool: { WebSearch: 'allow' } },
      true,
    ],
    ['no rule names it (default mode)', {}, false],
    ['no rule names it, even when asks resolve to allow', { askDefault: 'allow' }, false],
    ['no rule names it in acceptEdits', { mode: 'acceptEdits' }, false],
    [
      'a deny rule names it, even in bypassPermissions',
      { mode: 'bypassPermissions', deny: ['WebSearch'] },
      false,
    ],
    ['a deny rule beats an allow rule', { allow: ['WebSearch'], deny: ['WebSearch'] }, false],
    ['an ask rule resolves to deny', { mode: 'bypassPermissions', ask: ['WebSearch'] }, false],
    [
      'dontAsk refuses the ask',
      { mode: 'dontAsk', ask: ['WebSearch'], askDefault: 'allow' },
      false,
    ],
    ['only WebFetch is allowed', { allow: ['WebFetch'] }, false],
  ] as const)('offers the server tool when %s: %s', (_name, overrides, offered) => {
    const offer = webSearchOffer(policy(overrides as Parameters<typeof policy>[0]), WHERE);

    expect(offer.spec !== undefined).toBe(offered);
    expect(offer.decision.behavior).toBe(offered ? 'allow' : 'deny');
  });

  it('sends the web_search_20250305 spec with the options given', () => {
    const offer = webSearchOffer(policy({ allow: ['WebSearch'] }), WHERE, { maxUses: 2 });

    expect(offer.spec).toEqual({ type: 'web_search_20250305', name: 'web_search', max_uses: 2 });
    expect(offer.decision.source).toBe('allow-rule');
    expect(offer.decision.reason).toBe("allowed by rule 'WebSearch' (ci-agent.yml)");
  });

  it('explains a refusal that no rule made', () => {
    expect(webSearchOffer(policy(), WHERE).decision).toMatchObject({
      behavior: 'deny',
      source: 'default',
      matchedRules: [],
      reason:
        'no rule allows WebSearch; it is offered only when a rule allows it or in bypassPermissions mode',
    });
  });

  it('names the deny rule that keeps it out', () => {
    expect(webSearchOffer(policy({ deny: ['WebSearch'] }), WHERE).decision).toMatchObject({
      source: 'deny-rule',
      reason: "denied by rule 'WebSearch' (ci-agent.yml)",
    });
  });
});
