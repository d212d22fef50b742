import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PERMISSION_MODES } from '../../src/permissions/types.js';
import { PolicyError } from '../../src/policy/policy-error.js';
import { parsePolicyFile } from '../../src/policy/policy-file.js';

const POLICY = '.github/ci-agent.yml';

function parse(text: string, path = POLICY) {
  return parsePolicyFile({ kind: 'policy', path, text, anchorDir: '/repo', home: '/home/ci' });
}

/** The message of the PolicyError the text raises. */
function problems(text: string, path = POLICY): string {
  try {
    parse(text, path);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as PolicyError).message;
  }
  throw new Error('expected the policy to be rejected');
}

const COMPLETE_YAML = `
permissions:
  allow: [Read, "Bash(npm test:*)"]
  deny: ["Read(/.env)"]
  ask: [WebFetch]
  defaultMode: acceptEdits
  additionalDirectories: [../shared, /opt/cache, ~/tools]
  onAsk:
    default: deny
    tools: { Edit: allow, Task: allow, mcp__github: deny }
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - { type: command, command: ./scripts/guard.sh, timeout: 10, required: true }
  Stop:
    - hooks: [{ type: command, command: npm test }]
settings: [.claude/settings.json]
limits: { maxTurns: 30, maxBudgetUsd: 2.5, timeoutMinutes: 20 }
env: { passEnv: [NPM_TOKEN] }
`;

describe('parsePolicyFile', () => {
  describe('when the file is valid', () => {
    it('reads every section of a YAML policy', () => {
      const layer = parse(COMPLETE_YAML);

      expect(layer.source).toEqual({ path: POLICY, kind: 'policy' });
      expect(layer.allow).toEqual([
        { text: 'Read', toolName: 'Read', source: POLICY, anchorDir: '/repo' },
        {
          text: 'Bash(npm test:*)',
          toolName: 'Bash',
          content: 'npm test:*',
          source: POLICY,
          anchorDir: '/repo',
        },
      ]);
      expect(layer.deny.map((rule) => rule.text)).toEqual(['Read(/.env)']);
      expect(layer.ask.map((rule) => rule.text)).toEqual(['WebFetch']);
      expect(layer.defaultMode).toBe('acceptEdits');
      expect(layer.additionalDirectories).toEqual(['/shared', '/opt/cache', '/home/ci/tools']);
      expect(layer.askResolution).toEqual({
        default: 'deny',
        byTool: { Edit: 'allow', Agent: 'allow', mcp__github: 'deny' },
      });
      expect(layer.hooks).toEqual({
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: './scripts/guard.sh',
                timeout: 10,
                required: true,
                source: POLICY,
              },
            ],
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'npm test', source: POLICY }] }],
      });
      expect(layer.settingsFiles).toEqual(['.claude/settings.json']);
      expect(layer.limits).toEqual({ maxTurns: 30, maxBudgetUsd: 2.5, timeoutMinutes: 20 });
      expect(layer.passEnv).toEqual(['NPM_TOKEN']);
      expect(layer.warnings).toEqual([]);
    });

    it('reads the same policy written as JSON in a .json file', () => {
      const json = JSON.stringify({
        permissions: { allow: ['Read'], onAsk: { tools: { Edit: 'allow' } } },
        hooks: {
          PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'fmt' }] }],
        },
        limits: { maxTurns: 3 },
      });
      const layer = parse(json, '.github/ci-agent.json');

      expect(layer.allow.map((rule) => rule.source)).toEqual(['.github/ci-agent.json']);
      expect(layer.askResolution).toEqual({ byTool: { Edit: 'allow' } });
      expect(layer.hooks.PostToolUse?.[0]?.matcher).toBe('Edit|Write');
      expect(layer.limits).toEqual({ maxTurns: 3 });
    });

    it('reads the complete example of docs/POLICY.md', () => {
      const doc = readFileSync(new URL('../../docs/POLICY.md', import.meta.url), 'utf8');
      const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';

      const layer = parse(example);

      expect(layer.allow.length).toBeGreaterThan(0);
      expect(layer.hooks.PreToolUse?.[0]?.hooks[0]?.required).toBe(true);
      expect(layer.askResolution).toEqual({
        default: 'deny',
        byTool: { Edit: 'allow', Bash: 'deny', mcp__docs: 'allow' },
      });
      expect(layer.passEnv).toEqual(['NPM_TOKEN']);
      expect(layer.push).toEqual({ allowCiChanges: false });
    });

    it('reads whether CI changes may be pushed, no by default', () => {
      expect(parse('push: { allowCiChanges: true }\n').push).toEqual({ allowCiChanges: true });
      expect(parse('# nothing yet\n').push).toEqual({ allowCiChanges: false });
    });

    it('reads JSON content in a .yml file', () => {
      expect(parse('{"limits": {"maxTurns": 4}}').limits).toEqual({ maxTurns: 4 });
    });

    it('treats an empty file as a policy that sets nothing', () => {
      const layer = parse('# nothing yet\n');
      expect(layer).toMatchObject({ allow: [], deny: [], ask: [], hooks: {}, limits: {} });
      expect(layer.defaultMode).toBeUndefined();
      expect(layer.settingsFiles).toBeUndefined();
      expect(layer.askResolution).toEqual({ byTool: {} });
    });

    it('reads "settings: false" and "settings: []" as "read no settings files"', () => {
      expect(parse('settings: false').settingsFiles).toEqual([]);
      expect(parse('settings: []').settingsFiles).toEqual([]);
    });

    it.each(PERMISSION_MODES)('accepts defaultMode %s', (mode) => {
      expect(parse(`permissions: { defaultMode: ${mode} }`).defaultMode).toBe(mode);
    });

    it.each(['Bash', 'Edit|Write', 'Edit, Write', '*', '', 'mcp__github__.*', 'Notebook.*'])(
      'accepts the matcher %j',
      (matcher) => {
        const layer = parse(
          `hooks: { PreToolUse: [{ matcher: ${JSON.stringify(matcher)}, hooks: [] }] }`,
        );
        expect(layer.hooks.PreToolUse?.[0]?.matcher).toBe(matcher);
      },
    );

    it('accepts per-tool ask answers for tools it does not know, such as MCP tools', () => {
      const layer = parse(
        'permissions: { onAsk: { tools: { mcp__db__query: allow, Deploy: deny } } }',
      );
      expect(layer.askResolution?.byTool).toEqual({ mcp__db__query: 'allow', Deploy: 'deny' });
    });

    it('accepts tool-name globs where Claude Code does: in deny and ask rules, and after an MCP server in allow rules', () => {
      const layer = parse(
        'permissions: { deny: ["*"], ask: ["mcp__*"], allow: ["mcp__github__*"] }',
      );
      expect([layer.deny, layer.ask, layer.allow].map((rules) => rules[0]?.toolName)).toEqual([
        '*',
        'mcp__*',
        'mcp__github__*',
      ]);
    });

    it('accepts Task and Agent together when they agree', () => {
      const layer = parse('permissions: { onAsk: { tools: { Task: allow, Agent: allow } } }');
      expect(layer.askResolution?.byTool).toEqual({ Agent: 'allow' });
    });

    it('keeps YAML 1.2 words such as "no" as strings, so they are not mistaken for false', () => {
      expect(problems('settings: no')).toContain('settings: expected a list of settings file');
    });
  });

  describe('when a field has the wrong type or value', () => {
    it.each([
      [
        'a timeout with a unit',
        'hooks:\n  PreToolUse:\n    - hooks:\n        - { type: command, command: a }\n        - { type: command, command: b, timeout: 10s }',
        '.github/ci-agent.yml:5:49: hooks.PreToolUse[0].hooks[1].timeout: expected a positive number of seconds, got "10s"',
      ],
      [
        'a negative timeout',
        'hooks: { PostToolUse: [{ hooks: [{ type: command, command: a, timeout: -5 }] }] }',
        'hooks.PostToolUse[0].hooks[0].timeout: expected a positive number of seconds, got -5',
      ],
      [
        'a zero timeout',
        'hooks: { PostToolUse: [{ hooks: [{ type: command, command: a, timeout: 0 }] }] }',
        'timeout: expected a positive number of seconds, got 0',
      ],
      [
        'a hook without a command',
        'hooks: { PreToolUse: [{ hooks: [{ type: command }] }] }',
        'hooks.PreToolUse[0].hooks[0].command: missing; expected a shell command string',
      ],
      [
        'a blank command',
        'hooks: { PreToolUse: [{ hooks: [{ type: command, command: "  " }] }] }',
        'command: expected a shell command string, got "  "',
      ],
      [
        'a hook type ci-agent does not run',
        'hooks: { PreToolUse: [{ hooks: [{ type: prompt, command: x }] }] }',
        'type: expected "command" (the only hook type ci-agent runs), got "prompt"',
      ],
      [
        'a handler written without its group',
        'hooks: { PreToolUse: [{ type: command, command: x }] }',
        'hooks.PreToolUse[0].hooks: missing; expected a list of hooks',
      ],
      [
        'an event that is not a list',
        'hooks: { Stop: { hooks: [] } }',
        'hooks.Stop: expected a list of {matcher, hooks} groups, got {"hooks":[]}',
      ],
      [
        'a matcher that is not a valid regular expression',
        'hooks: { PreToolUse: [{ matcher: "Edit(", hooks: [] }] }',
        'hooks.PreToolUse[0].matcher: expected tool names ("Edit|Write"), "*" or a regular expression',
      ],
      [
        '"required" on an event that cannot block a call',
        'hooks: { PostToolUse: [{ hooks: [{ type: command, command: x, required: true }] }] }',
        'hooks.PostToolUse[0].hooks[0].required: "required" applies only to PreToolUse hooks',
      ],
      [
        '"required" that is not a boolean',
        'hooks: { PreToolUse: [{ hooks: [{ type: command, command: x, required: "yes" }] }] }',
        'required: expected true or false, got "yes"',
      ],
      [
        'a matcher on an event that has nothing to match',
        'hooks: { Stop: [{ matcher: Bash, hooks: [] }] }',
        'hooks.Stop[0].matcher: Stop hooks have nothing to match; remove the matcher',
      ],
      [
        'rules that are not a list',
        'permissions: { allow: Read }',
        'permissions.allow: expected a list of permission rule strings, got "Read"',
      ],
      [
        'a rule that is not a string',
        'permissions: { deny: [Read, 42] }',
        'permissions.deny[1]: expected a permission rule string such as "Read" or "Bash(npm test:*)", got 42',
      ],
      [
        'a rule string that does not parse',
        'permissions:\n  ask: ["Bash(npm test"]',
        '.github/ci-agent.yml:2:9: permissions.ask[0]: invalid permission rule: expected a tool name such as "Read", or "Tool(specifier)"',
      ],
      [
        'a path rule on a tool whose paths are never consulted',
        'permissions: { allow: ["Write(src/**)"] }',
        'permissions.allow[0]: allow rule "Write(src/**)" is never consulted: path rules are checked for Read(…) and Edit(…) only; write "Edit(src/**)" instead',
      ],
      [
        'a tool-name glob in an allow rule',
        'permissions: { allow: ["*"] }',
        'permissions.allow[0]: allow rule "*" is ignored: an allow rule may use "*" in a tool name only after "mcp__<server>__"',
      ],
      [
        'a WebFetch rule without "domain:"',
        'permissions: { deny: ["WebFetch(example.com)"] }',
        'permissions.deny[0]: deny rule "WebFetch(example.com)" has an unknown form: expected "WebFetch(domain:<host>)"',
      ],
      [
        'an unknown permission mode',
        'permissions: { defaultMode: yolo }',
        'permissions.defaultMode: expected one of default, acceptEdits, plan, dontAsk, bypassPermissions, got "yolo"',
      ],
      [
        'an additional directory that is not a string',
        'permissions: { additionalDirectories: [7] }',
        'permissions.additionalDirectories[0]: expected a directory path, got 7',
      ],
      [
        'an ask answer other than allow or deny',
        'permissions: { onAsk: { default: ask } }',
        'permissions.onAsk.default: expected "allow" or "deny", got "ask"',
      ],
      [
        'a misspelt tool name in the per-tool ask answers',
        'permissions: { onAsk: { tools: { edit: allow } } }',
        'permissions.onAsk.tools.edit: unknown tool "edit"; did you mean "Edit"?',
      ],
      [
        'something that cannot be a tool name in the per-tool ask answers',
        'permissions: { onAsk: { tools: { "Bash(git *)": allow } } }',
        'permissions.onAsk.tools["Bash(git *)"]: "Bash(git *)" is not a tool name',
      ],
      [
        'Task and Agent answered differently',
        'permissions: { onAsk: { tools: { Agent: deny, Task: allow } } }',
        'permissions.onAsk.tools.Task: Task is another name for Agent, which says otherwise; keep one',
      ],
      [
        'settings that are neither a list nor false',
        'settings: true',
        'settings: expected a list of settings file paths, or false for none, got true',
      ],
      [
        'a settings entry that is not a string',
        'settings: [.claude/settings.json, 3]',
        'settings[1]: expected a settings file path relative to the project root, got 3',
      ],
      [
        'a settings file outside the project',
        'settings: [../other/settings.json]',
        'settings[0]: expected a settings file path inside the project (relative, no ".."), got "../other/settings.json"',
      ],
      [
        'an absolute settings file path',
        'settings: [/etc/claude/settings.json]',
        'settings[0]: expected a settings file path inside the project',
      ],
      [
        'a CI push setting written as a string',
        'push: { allowCiChanges: "yes" }',
        'push.allowCiChanges: expected true or false, got "yes"',
      ],
      [
        'an unknown push setting',
        'push: { allowWorkflows: true }',
        'push.allowWorkflows: unknown key "allowWorkflows"; expected one of: allowCiChanges',
      ],
      [
        'a fractional turn limit',
        'limits: { maxTurns: 2.5 }',
        'limits.maxTurns: expected a positive whole number, got 2.5',
      ],
      [
        'a zero turn limit',
        'limits: { maxTurns: 0 }',
        'limits.maxTurns: expected a positive whole number, got 0',
      ],
      [
        'a turn limit written as a string',
        'limits: { maxTurns: "10" }',
        'limits.maxTurns: expected a positive whole number, got "10"',
      ],
      [
        'a negative budget',
        'limits: { maxBudgetUsd: -1 }',
        'limits.maxBudgetUsd: expected a positive amount in US dollars, got -1',
      ],
      [
        'an infinite timeout',
        'limits: { timeoutMinutes: .inf }',
        'limits.timeoutMinutes: expected a positive number of minutes, got Infinity',
      ],
      [
        'an environment variable name with a space',
        'env: { passEnv: ["NPM TOKEN"] }',
        'env.passEnv[0]: expected an environment variable name, got "NPM TOKEN"',
      ],
      [
        'passEnv that is not a list',
        'env: { passEnv: NPM_TOKEN }',
        'env.passEnv: expected a list of environment variable names, got "NPM_TOKEN"',
      ],
      [
        'a section that is not a mapping',
        'permissions: [Read]',
        'permissions: expected a mapping with allow, deny, ask, defaultMode, additionalDirectories, onAsk, got ["Read"]',
      ],
      [
        'a file that is a list',
        '- Read',
        '.github/ci-agent.yml:1:1: expected a mapping with permissions, hooks, settings, limits, env, mcp, push, sandbox, got ["Read"]',
      ],
    ])('rejects %s, naming the path, the value and the expected form', (_, text, expected) => {
      expect(problems(text)).toContain(expected);
    });

    it('accepts "required" on a PreToolUse hook', () => {
      const layer = parse(
        'hooks: { PreToolUse: [{ hooks: [{ type: command, command: x, required: false }] }] }',
      );
      expect(layer.hooks.PreToolUse?.[0]?.hooks[0]?.required).toBe(false);
    });
  });

  describe('when a key is unknown', () => {
    it.each([
      [
        'permission: {}',
        '.github/ci-agent.yml:1:1: permission: unknown key "permission"; did you mean "permissions"?',
      ],
      [
        'hooks: { PreToolUse: [{ hooks: [{ type: command, command: x, timout: 5 }] }] }',
        'hooks.PreToolUse[0].hooks[0].timout: unknown key "timout"; did you mean "timeout"?',
      ],
      [
        'hooks: { pretooluse: [] }',
        'hooks.pretooluse: unknown key "pretooluse"; did you mean "PreToolUse"?',
      ],
      [
        'limits: { turns: 3 }',
        'limits.turns: unknown key "turns"; expected one of: maxTurns, maxBudgetUsd, timeoutMinutes',
      ],
      [
        'model: opus',
        'model: unknown key "model"; expected one of: permissions, hooks, settings, limits, env, mcp',
      ],
      [
        'permissions: { askDefault: allow }',
        'permissions.askDefault: unknown key "askDefault"; expected one of: allow, deny, ask',
      ],
    ])('rejects %j, suggesting what was meant', (text, expected) => {
      expect(problems(text)).toContain(expected);
    });

    it('says which Claude Code hook events ci-agent does not run', () => {
      expect(problems('hooks: { Notification: [] }')).toContain(
        'hooks.Notification: ci-agent does not run Notification hooks; supported events: PreToolUse, PostToolUse',
      );
    });

    it('takes a hook\'s "if" rule, and names a broken one', () => {
      const layer = parse(
        "hooks: { PreToolUse: [{ hooks: [{ type: command, command: x, if: 'Bash(git push:*)' }] }] }",
      );
      expect(layer.hooks.PreToolUse?.[0]?.hooks[0]?.if).toBe('Bash(git push:*)');
      expect(
        problems(
          "hooks: { PreToolUse: [{ hooks: [{ type: command, command: x, if: 'Bash(' }] }] }",
        ),
      ).toContain('hooks.PreToolUse[0].hooks[0].if: ');
    });

    it('says which Claude Code hook fields ci-agent does not support', () => {
      expect(
        problems(
          'hooks: { PreToolUse: [{ hooks: [{ type: command, command: x, async: true }] }] }',
        ),
      ).toContain(
        'hooks.PreToolUse[0].hooks[0].async: the Claude Code hook field "async" is not supported',
      );
    });
  });

  describe('when every kind of rule is valid', () => {
    const EVERY_RULE = `
permissions:
  allow:
    - Read
    - Edit(/src/**)
    - Bash(npm test:*)
    - WebFetch(domain:docs.example.com)
    - WebSearch
    - Agent(Explore)
    - Task(general-purpose)
    - mcp__docs
    - mcp__github__create_issue
    - mcp__github__*
  deny:
    - Read(/.env*)
    - Bash(curl:*)
    - Write
    - NotebookEdit
    - TodoWrite
    - ExitPlanMode
    - Task
    - "*"
    - "mcp__*"
    - Web*
  ask: [Bash(git push:*), Agent, Glob, Grep, "WebFetch(domain:*.example.com)"]
hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{ type: command, command: ./guard.sh, if: "Bash(git push:*)" }]
mcp:
  servers:
    docs: { type: http, url: "https://mcp.example.com/mcp" }
`;

    it('loads without a problem or a warning, aliases, MCP rules and agent types included', () => {
      const layer = parsePolicyFile({
        kind: 'policy',
        path: POLICY,
        text: EVERY_RULE,
        anchorDir: '/repo',
        mcpServers: new Set(['github']),
      });
      expect(layer.warnings).toEqual([]);
      expect([...layer.allow, ...layer.deny, ...layer.ask]).toHaveLength(25);
    });
  });

  describe('when a rule names no tool', () => {
    it.each([
      [
        'a tool name in the wrong case',
        'permissions:\n  allow: [Read]\n  deny:\n    - Read(/.env)\n    - WebFetch\n    - bash(curl:*)\n',
        '.github/ci-agent.yml:6:7: permissions.deny[2]: deny rule "bash(curl:*)" names no tool ci-agent has, so it denies nothing: tool names are case-sensitive; did you mean "Bash(curl:*)"?',
      ],
      [
        'a misspelt tool',
        'permissions:\n  deny: [WebFech]\n',
        '.github/ci-agent.yml:2:10: permissions.deny[0]: deny rule "WebFech" names no tool ci-agent has, so it denies nothing: did you mean "WebFetch"?',
      ],
      [
        "another agent's name for a tool",
        'permissions:\n  allow: ["Shell(ls)"]\n',
        '.github/ci-agent.yml:2:11: permissions.allow[0]: allow rule "Shell(ls)" names no tool ci-agent has, so it allows nothing: did you mean "Bash(ls)"?',
      ],
      [
        'a Claude Code tool ci-agent does not have',
        'permissions:\n  deny: [Edit, MultiEdit]\n',
        '.github/ci-agent.yml:2:16: permissions.deny[1]: deny rule "MultiEdit" names the Claude Code tool MultiEdit, which ci-agent does not have, so it denies nothing (Edit covers its edits); remove it',
      ],
      [
        'an agent type that does not exist',
        'permissions:\n  ask: ["Agent(explore)"]\n',
        '.github/ci-agent.yml:2:9: permissions.ask[0]: ask rule "Agent(explore)" names no agent type, so it asks about nothing: did you mean "Agent(Explore)"?',
      ],
      [
        'a hook "if" rule in the wrong case',
        'hooks:\n  PreToolUse:\n    - hooks: [{ type: command, command: x, if: "bash(git push:*)" }]\n',
        '.github/ci-agent.yml:3:48: hooks.PreToolUse[0].hooks[0].if: the "if" rule "bash(git push:*)" names no tool ci-agent has, so the hook never runs: tool names are case-sensitive; did you mean "Bash(git push:*)"?',
      ],
      [
        'a hook matcher naming no tool',
        'hooks:\n  PreToolUse:\n    - matcher: bash\n      hooks: [{ type: command, command: x, required: true }]\n',
        '.github/ci-agent.yml:3:16: hooks.PreToolUse[0].matcher: "bash" names no tool ci-agent has, so the hook never runs: tool names are case-sensitive; did you mean "Bash"?',
      ],
    ])('refuses %s, naming the file, line, field, rule and suggestion', (_, text, message) => {
      expect(problems(text)).toBe(message);
    });

    it('names the position in a .json policy too', () => {
      const json = '{\n  "permissions": {\n    "deny": ["Read", "Webfetch"]\n  }\n}\n';
      expect(problems(json, '.github/ci-agent.json')).toBe(
        '.github/ci-agent.json:3:22: permissions.deny[1]: deny rule "Webfetch" names no tool ci-agent has, so it denies nothing: tool names are case-sensitive; did you mean "WebFetch"?',
      );
    });
  });

  describe('when a rule names an MCP server nothing configures', () => {
    const parseWith = (text: string, mcpServers: ReadonlySet<string> | undefined) =>
      parsePolicyFile({
        kind: 'policy',
        path: POLICY,
        text,
        anchorDir: '/repo',
        ...(mcpServers && { mcpServers }),
      });

    it('warns with the file, line, field and rule, since --mcp-config may still add it', () => {
      const text =
        'permissions:\n  allow: [mcp__docs__search]\n  deny: [mcp__githb]\nmcp:\n  servers:\n    docs: { command: docs-server }\n';
      expect(parseWith(text, new Set(['github'])).warnings).toEqual([
        '.github/ci-agent.yml:3:10: permissions.deny[0]: deny rule "mcp__githb" names the MCP server "githb", which neither .mcp.json nor the policy file configures, so it matches nothing unless --mcp-config adds it; did you mean "mcp__github"?',
      ]);
    });

    it('checks nothing when the other servers are not known', () => {
      expect(parseWith('permissions: { deny: [mcp__githb] }', undefined).warnings).toEqual([]);
    });
  });

  describe('when the text does not parse', () => {
    it('names the line and column of a YAML syntax error', () => {
      expect(problems('permissions:\n  allow: [Read\nhooks: {}\n')).toMatch(
        /^\.github\/ci-agent\.yml:3:1: invalid YAML: /,
      );
    });

    it('rejects a key written twice', () => {
      expect(problems('limits: {}\nlimits: {}\n')).toMatch(
        /^\.github\/ci-agent\.yml:2:1: invalid YAML: Map keys must be unique/,
      );
    });

    it('parses a .json file strictly as JSON, naming the line and column', () => {
      expect(problems('{\n  "limits": {},\n}\n', '.github/ci-agent.json')).toBe(
        '.github/ci-agent.json:3:1: invalid JSON: expected a property name in double quotes, found "}"',
      );
    });
  });

  it('reports every problem at once, in the order they appear in the file', () => {
    const error = (() => {
      try {
        parse('limits: { maxTurns: 0 }\npermissions: { defaultMode: x }\n');
      } catch (caught) {
        return caught as PolicyError;
      }
      throw new Error('expected an error');
    })();

    expect(error.issues.map((issue) => [issue.path, issue.line])).toEqual([
      [['limits', 'maxTurns'], 1],
      [['permissions', 'defaultMode'], 2],
    ]);
    expect(error.message.split('\n')).toHaveLength(2);
  });
});
