import { describe, expect, it } from 'vitest';
import { askBehaviorFor, decisionOptions } from '../../src/policy/ask-resolution.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import type { AskResolution } from '../../src/policy/types.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

function resolution(
  defaultBehavior: 'allow' | 'deny',
  byTool: Record<string, 'allow' | 'deny'>,
): AskResolution {
  return { default: defaultBehavior, byTool: Object.assign(Object.create(null) as object, byTool) };
}

describe('askBehaviorFor', () => {
  const policy = resolution('deny', {
    Edit: 'allow',
    Agent: 'allow',
    mcp__docs: 'allow',
    mcp__db__drop: 'deny',
  });

  it.each([
    ['Edit', 'allow', 'the tool has its own answer'],
    ['Bash', 'deny', 'the tool has none: the default answers'],
    ['Task', 'allow', 'Task is looked up as Agent'],
    ['mcp__docs__search', 'allow', 'an MCP server entry covers its tools'],
    ['mcp__db__drop', 'deny', 'an MCP tool entry answers for that tool'],
    [
      'mcp__docsearch__query',
      'deny',
      'a server entry does not cover a server whose name starts the same',
    ],
    ['constructor', 'deny', 'names of object built-ins find nothing'],
    ['__proto__', 'deny', 'names of object built-ins find nothing'],
  ])('answers an ask for %s with %s: %s', (tool, expected) => {
    expect(askBehaviorFor(policy, tool)).toBe(expected);
  });

  it('answers with allow when the default is allow and the tool has no entry', () => {
    expect(askBehaviorFor(resolution('allow', { Bash: 'deny' }), 'Write')).toBe('allow');
    expect(askBehaviorFor(resolution('allow', { Bash: 'deny' }), 'Bash')).toBe('deny');
  });
});

describe('decisionOptions', () => {
  it('names the policy file and every file the policy came from, as the session resolves them', async () => {
    const project = makeWorkspace('ci-agent-decision-options-');
    try {
      await project.write('config/ci.yml', 'permissions:\n  onAsk:\n    default: allow\n');
      await project.write('conf/extra.json', '{"permissions": {"deny": ["Bash(curl:*)"]}}');
      const policy = await loadPolicy({
        projectDir: project.root,
        policyPath: 'config/ci.yml',
        settingsArgs: ['conf/extra.json', '{"permissions": {"deny": ["Read(/etc/**)"]}}'],
      });
      const options = decisionOptions(policy);
      expect(options).toMatchObject({ askDefault: 'allow', askDefaultSource: 'config/ci.yml' });
      // The inline JSON has no file to protect; the two files are judges.
      expect([...options.judgePaths].sort()).toEqual(['conf/extra.json', 'config/ci.yml']);
    } finally {
      project.cleanup();
    }
  });
});
