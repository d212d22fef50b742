/**
 * The report's denials say how to allow each call, or why nothing can, as a reader sees it on
 * GitHub (cmark-gfm and remark): the rules, the field and the file as code, the rest as text;
 * a suggestion made by the real advice from a real decision, and one whose command is hostile.
 */
import { describe, expect, it } from 'vitest';
import type { PermissionDenial } from '../../src/agent/events.js';
import { decide } from '../../src/permissions/decide.js';
import { adviseDenial, denialAdviceRecord } from '../../src/permissions/denial-advice.js';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import type { RunReport } from '../../src/github/report.js';
import { renderReport } from '../../src/github/report-markdown.js';
import { elementsNamed, linkTargets, renderGfm, renderers, visibleText } from '../helpers/gfm.js';

const WORKSPACE = '/home/runner/work/r/r';
const policy: PermissionPolicy = {
  mode: 'default',
  allow: [],
  deny: [parseRule('Bash(curl:*)', '.github/ci-agent.yml')],
  ask: [],
  askDefault: 'deny',
  workspaceRoots: [WORKSPACE],
  allowRulesFile: '.github/ci-agent.yml',
};

function denialOf(id: string, command: string): PermissionDenial {
  const request: DecisionRequest = {
    toolName: 'Bash',
    aliases: [],
    request: { access: 'execute', ruleContent: command },
    projectDir: WORKSPACE,
    readOnly: false,
    requiresUserInteraction: false,
  };
  const decision = decide(request, policy);
  const advice = adviseDenial(request, policy, decision)!;
  return {
    tool_name: 'Bash',
    tool_use_id: id,
    tool_input: { command },
    reason: decision.reason,
    rules: decision.matchedRules.map((rule) => rule.text),
    suggestion: denialAdviceRecord(advice),
  };
}

function reportOf(denials: PermissionDenial[]): RunReport {
  return {
    calls: [],
    denials,
    hookRuns: [],
    lastText: '',
    incidents: { apiRetries: 0, partialResponses: 0, compactions: 0 },
  };
}

const seen = (text: string) => text.replace(/\s+/g, ' ').trim();

describe.each(renderers)('a denial in the report (%s)', (renderer) => {
  const render = async (denials: PermissionDenial[]) => {
    const markdown = await renderReport(reportOf(denials), {
      conclusion: 'denied',
      headline: 'the agent was denied what it needed',
      files: [],
      diff: '',
      workspace: WORKSPACE,
    });
    return renderGfm(markdown, renderer);
  };

  it('says which rule to add and where, with the rule, field and file as code', async () => {
    const tree = await render([denialOf('t1', 'npm test -- --run')]);
    expect(seen(visibleText(tree))).toContain(
      'To allow it: add Bash(npm test:*) to permissions.allow in .github/ci-agent.yml.',
    );
    const code = elementsNamed(tree, 'code').map((node) =>
      visibleText({ type: 'root', children: [node] }),
    );
    expect(code).toEqual(
      expect.arrayContaining(['Bash(npm test:*)', 'permissions.allow', '.github/ci-agent.yml']),
    );
  });

  it('names the deny rule to remove, and what the call needs besides', async () => {
    const tree = await render([denialOf('t1', 'curl -s https://example.com/a')]);
    expect(seen(visibleText(tree))).toContain(
      'To allow it: remove the deny rule Bash(curl:*) from .github/ci-agent.yml and add Bash(curl -s https://example.com/a) to permissions.allow in .github/ci-agent.yml.',
    );
    // A URL in the command is code, not a link.
    expect(linkTargets(tree)).toEqual([]);
  });

  it('says why a call cannot be allowed', async () => {
    const tree = await render([denialOf('t1', 'echo x | sh')]);
    const text = seen(visibleText(tree));
    expect(text).toContain('It cannot be allowed:');
    expect(text).toContain('runs a command known only at run time');
    expect(text).not.toContain('To allow it');
  });

  it('shows a hostile command in a suggested rule as written, and nothing it could form', async () => {
    const hostile = 'x `y` <img src=z> @octocat **b** </details> [l](https://e.example) |';
    const tree = await render([denialOf('t1', `make '${hostile}'`)]);
    const text = seen(visibleText(tree));
    // Its stars are literal in the rule: `\*`.
    const rule = `Bash(make '${hostile.replaceAll('*', '\\*')}')`;
    expect(text).toContain(`To allow it: add ${rule} to permissions.allow`);
    expect(elementsNamed(tree, 'img')).toEqual([]);
    const bold = elementsNamed(tree, 'strong').map((node) =>
      visibleText({ type: 'root', children: [node] }),
    );
    expect(bold).toEqual(['Denied calls (1)']);
    expect(linkTargets(tree)).toEqual([]);
    expect(text).toContain('Denied calls (1)');
  });
});
