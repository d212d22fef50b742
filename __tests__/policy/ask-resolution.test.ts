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

describe('decisionOptions: where a denial’s allow rules go', () => {
  const cases: Array<[string, Record<string, string>, string[], string | undefined, string]> = [
    [
      'the policy file, when the run read one',
      { '.github/ci-agent.yml': '{}', '.claude/settings.json': '{}' },
      [],
      undefined,
      '.github/ci-agent.yml',
    ],
    [
      'the project settings, without a policy file',
      { '.claude/settings.json': '{}', '.claude/settings.local.json': '{}', 'extra.json': '{}' },
      ['extra.json'],
      undefined,
      '.claude/settings.json',
    ],
    [
      'a --settings file, when only it was read',
      { 'extra.json': '{}' },
      ['extra.json'],
      undefined,
      'extra.json',
    ],
    [
      'the local settings, when only they were read',
      { '.claude/settings.local.json': '{}' },
      [],
      undefined,
      '.claude/settings.local.json',
    ],
    [
      'Claude Code’s own file, when none was read (the CLI)',
      {},
      ['{}'],
      undefined,
      '.claude/settings.json',
    ],
    [
      'the file the caller names, when none was read (the action)',
      {},
      [],
      'ci/agent.yml',
      'ci/agent.yml',
    ],
  ];
  it.each(cases)('is %s', async (_what, files, settingsArgs, withoutFile, expected) => {
    const project = makeWorkspace('ci-agent-allow-file-');
    try {
      for (const [path, text] of Object.entries(files)) await project.write(path, text);
      const policy = await loadPolicy({ projectDir: project.root, settingsArgs });
      expect(decisionOptions(policy, withoutFile).allowRulesFile).toBe(expected);
    } finally {
      project.cleanup();
    }
  });
});
