import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionMode, PermissionPolicy } from '../../src/permissions/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

type Expected = ['allow' | 'deny', string];

describe('decide on Bash commands that name files', () => {
  let workspace: Workspace;

  beforeAll(() => {
    workspace = makeWorkspace('ci-agent-decide-bash-');
    for (const name of ['.env', '.env.example', 'a.txt', 'prod.env']) {
      writeFileSync(workspace.path(name), 'x\n');
    }
    mkdirSync(workspace.path('sub'));
    mkdirSync(workspace.path('docs'));
    mkdirSync(workspace.path('secrets'));
    writeFileSync(workspace.path('sub/.env'), 'x\n');
    symlinkSync(workspace.path('.env'), workspace.path('link'));
  });
  afterAll(() => workspace.cleanup());

  const request = (command: string): DecisionRequest => {
    const input = { command };
    const context = makeContext(workspace, { env: { HOME: '/home/tester' } });
    return {
      toolName: 'Bash',
      aliases: [],
      request: bashTool.checkPermissions(input, context),
      projectDir: workspace.root,
      homeDir: '/home/tester',
      readOnly: bashTool.isReadOnly(input),
      requiresUserInteraction: false,
    };
  };
  const policy = (overrides: Partial<PermissionPolicy>): PermissionPolicy => ({
    mode: 'default',
    allow: [],
    deny: [],
    ask: [],
    askDefault: 'deny',
    workspaceRoots: [workspace.root],
    ...overrides,
  });
  const rules = (...texts: string[]) => texts.map((text) => parseRule(text, 'test'));
  const outcome = (command: string, shape: Partial<PermissionPolicy>): Expected => {
    const decision = decide(request(command), policy(shape));
    return [decision.behavior, decision.source];
  };

  describe('when Read(.env) is denied, in default mode', () => {
    const table: Array<[string, Expected]> = [
      ['cat .env', ['deny', 'deny-rule']],
      ['cat ./sub/../.env', ['deny', 'deny-rule']],
      ['cat sub/.env', ['deny', 'deny-rule']],
      ['head -n 5 .env', ['deny', 'deny-rule']],
      ['tail -f .env', ['deny', 'deny-rule']],
      ['grep KEY .env', ['deny', 'deny-rule']],
      ['sed -n 1p .env', ['deny', 'deny-rule']],
      ['cat < .env', ['deny', 'deny-rule']],
      ['echo x > .env', ['deny', 'deny-rule']],
      ['cp .env /tmp/x', ['deny', 'deny-rule']],
      ['cp /tmp/.env .', ['deny', 'deny-rule']],
      ['tee .env', ['deny', 'deny-rule']],
      ['cat link', ['deny', 'deny-rule']],
      ['cat .e*', ['deny', 'deny-rule']],
      ['cat .{env,x}', ['deny', 'deny-rule']],
      ['shopt -s dotglob; cat *.env', ['deny', 'deny-rule']],
      ['cat "$DIR/.env"', ['deny', 'deny-rule']],
      ['echo $(cat .env)', ['deny', 'deny-rule']],
      ["bash -c 'cat .env'", ['deny', 'deny-rule']],
      ['timeout 5 cat .env', ['deny', 'deny-rule']],
      ['if true; then cat .env; fi', ['deny', 'deny-rule']],
      // Not readable through these words: allowed as before.
      ['cat a.txt', ['allow', 'default']],
      ['cat .env.example', ['allow', 'default']],
      ['cat *.env', ['allow', 'default']],
      ['echo .env', ['allow', 'default']],
      ['grep .env a.txt', ['allow', 'default']],
      // Read-only but not inside: the mode default asks, and the policy's ask default decides.
      ['cat "$F"', ['deny', 'default']],
      ['cat /etc/hostname', ['deny', 'default']],
      // Documented limits: git's object store and recursive searches are not followed.
      ['git show HEAD:.env', ['allow', 'default']],
      ['grep -r KEY .', ['allow', 'default']],
    ];
    it.each(table)('%s → %j', (command, expected) => {
      expect(outcome(command, { deny: rules('Read(.env)') })).toEqual(expected);
    });
  });

  it('names the rule in the reason', () => {
    const decision = decide(request('cat .env'), policy({ deny: rules('Read(.env)') }));
    expect(decision.matchedRules.map((rule) => rule.text)).toEqual(['Read(.env)']);
    expect(decision.reason).toContain("'Read(.env)'");
  });

  describe('when other rules and modes apply', () => {
    // [command, mode, deny, ask, allow, expected]
    const table: Array<[string, PermissionMode, string[], string[], string[], Expected]> = [
      ['cat .env', 'bypassPermissions', ['Read(.env)'], [], [], ['deny', 'deny-rule']],
      ['cat .env', 'default', ['Read(.env)'], [], ['Bash(cat:*)'], ['deny', 'deny-rule']],
      ['cat .env', 'default', [], [], ['Bash(cat:*)'], ['allow', 'allow-rule']],
      ['echo x > docs/a.md', 'acceptEdits', ['Edit(docs/**)'], [], ['Bash'], ['deny', 'deny-rule']],
      ['cat docs/a.md', 'default', ['Edit(docs/**)'], [], [], ['allow', 'default']],
      ['rm -rf docs', 'bypassPermissions', ['Edit(docs)'], [], [], ['deny', 'deny-rule']],
      ['cat secrets/key', 'default', [], ['Read(secrets/**)'], [], ['deny', 'ask-rule']],
      ['cat ~/.ssh/id_rsa', 'default', ['Read(~/.ssh/**)'], [], [], ['deny', 'deny-rule']],
      // Path allow rules grant nothing to a command.
      ['echo x > a.txt', 'default', [], [], ['Edit(*.txt)'], ['deny', 'default']],
    ];
    it.each(table)(
      '%s in %s (deny %j, ask %j, allow %j) → %j',
      (command, mode, deny, ask, allow, expected) => {
        const shape = { mode, deny: rules(...deny), ask: rules(...ask), allow: rules(...allow) };
        expect(outcome(command, shape)).toEqual(expected);
      },
    );
  });
});
