import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/policy/policy-error.js';
import { parseSettingsFile } from '../../src/policy/settings-file.js';

const FILE = '.claude/settings.json';

function parse(settings: unknown) {
  const text = typeof settings === 'string' ? settings : JSON.stringify(settings, null, 2);
  return parseSettingsFile({ kind: 'project', path: FILE, text, anchorDir: '/repo' });
}

function problems(settings: unknown): string {
  try {
    parse(settings);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as PolicyError).message;
  }
  throw new Error('expected the settings file to be rejected');
}

const command = (text: string) => ({ type: 'command', command: text });

describe('parseSettingsFile', () => {
  describe('when the file is what Claude Code reads', () => {
    it('reads permissions and hooks, each rule and hook remembering the file', () => {
      const layer = parse({
        $schema: 'https://json.schemastore.org/claude-code-settings.json',
        permissions: {
          allow: ['Bash(npm run lint:*)'],
          deny: ['Read(./.env)'],
          ask: ['Bash(git push:*)'],
          defaultMode: 'acceptEdits',
          additionalDirectories: ['../docs'],
        },
        hooks: {
          PostToolUse: [
            {
              matcher: 'Edit|MultiEdit|Write',
              hooks: [{ ...command('npx prettier'), timeout: 30 }],
            },
          ],
        },
      });

      expect(layer.source).toEqual({ path: FILE, kind: 'project' });
      expect(layer.allow).toEqual([
        {
          text: 'Bash(npm run lint:*)',
          toolName: 'Bash',
          content: 'npm run lint:*',
          source: FILE,
          anchorDir: '/repo',
        },
      ]);
      expect(layer.deny.map((rule) => rule.text)).toEqual(['Read(./.env)']);
      expect(layer.ask.map((rule) => rule.text)).toEqual(['Bash(git push:*)']);
      expect(layer.defaultMode).toBe('acceptEdits');
      expect(layer.additionalDirectories).toEqual(['/docs']);
      expect(layer.hooks).toEqual({
        PostToolUse: [
          {
            matcher: 'Edit|MultiEdit|Write',
            hooks: [{ type: 'command', command: 'npx prettier', timeout: 30, source: FILE }],
          },
        ],
      });
      expect(layer.warnings).toEqual([]);
    });

    it('reads the mode "manual" as "default"', () => {
      expect(parse({ permissions: { defaultMode: 'manual' } }).defaultMode).toBe('default');
    });

    it('accepts a byte-order mark', () => {
      expect(parse('\uFEFF{"permissions": {"allow": ["Read"]}}').allow).toHaveLength(1);
    });
  });

  describe('when it holds keys ci-agent does not use', () => {
    it('ignores them with a warning naming the file, the position and the key', () => {
      const layer = parse('{\n  "model": "opus",\n  "permissions": {"allow": ["Read"]}\n}');

      expect(layer.allow).toHaveLength(1);
      expect(layer.warnings).toEqual([
        '.claude/settings.json:2:3: model: ignored; ci-agent reads only "permissions", "hooks", "env" and "sandbox"',
      ]);
    });

    it('suggests the key that was probably meant', () => {
      expect(parse({ permision: { deny: ['Bash'] } }).warnings).toEqual([
        expect.stringContaining(
          'permision: ignored; ci-agent reads only "permissions", "hooks", "env" and "sandbox"; did you mean "permissions"?',
        ),
      ]);
    });

    it('ignores unknown permission keys with a warning', () => {
      const layer = parse({
        permissions: { disableBypassPermissionsMode: 'disable', alow: ['Read'] },
      });
      expect(layer.warnings).toEqual([
        expect.stringContaining(
          'permissions.disableBypassPermissionsMode: not used by ci-agent; ignored',
        ),
        expect.stringContaining(
          'permissions.alow: not used by ci-agent; ignored; did you mean "allow"?',
        ),
      ]);
    });

    it('ignores the auto mode, which ci-agent cannot reproduce, with a warning', () => {
      const layer = parse({ permissions: { defaultMode: 'auto' } });
      expect(layer.defaultMode).toBeUndefined();
      expect(layer.warnings).toEqual([
        expect.stringContaining(
          'permissions.defaultMode: the auto mode is not available in ci-agent; ignored',
        ),
      ]);
    });
  });

  it('takes PreCompact hooks with their trigger matcher', () => {
    const layer = parse({
      hooks: { PreCompact: [{ matcher: 'auto', hooks: [command('./save-transcript.sh')] }] },
    });
    expect(layer.hooks.PreCompact).toEqual([
      { matcher: 'auto', hooks: [expect.objectContaining({ command: './save-transcript.sh' })] },
    ]);
    expect(layer.warnings).toEqual([]);
  });

  describe('when a hooks entry is malformed', () => {
    it('ignores the bogus "hooks.Bash" shape seen in the wild without rejecting the file', () => {
      const layer = parse({
        permissions: { deny: ['Bash(rm:*)'] },
        hooks: { Bash: [command('echo $CLAUDE_TOOL_INPUT >> log')] },
      });

      expect(layer.hooks).toEqual({});
      expect(layer.deny).toHaveLength(1);
      expect(layer.warnings).toEqual([
        expect.stringMatching(
          /^\.claude\/settings\.json:\d+:\d+: hooks\.Bash: unknown hook event "Bash"; ignored$/,
        ),
      ]);
    });

    it('skips a handler written without its group and keeps the rest of the event', () => {
      const layer = parse({
        hooks: { PreToolUse: [command('lost'), { matcher: 'Bash', hooks: [command('kept')] }] },
      });

      expect(layer.hooks.PreToolUse?.map((group) => group.hooks[0]?.command)).toEqual(['kept']);
      expect(layer.warnings).toEqual([
        expect.stringContaining('hooks.PreToolUse[0]: expected {"matcher": "...", "hooks": ['),
      ]);
    });

    it.each([
      [
        { pretooluse: [] },
        'hooks.pretooluse: unknown hook event "pretooluse"; ignored; did you mean "PreToolUse"?',
      ],
      [
        { Notification: [{ hooks: [command('x')] }] },
        'hooks.Notification: ci-agent does not run Notification hooks; ignored',
      ],
      [
        { Stop: { hooks: [] } },
        'hooks.Stop: expected a list of {"matcher", "hooks"} groups; ignored',
      ],
      [
        { PreToolUse: [{ matcher: 3, hooks: [command('x')] }] },
        'hooks.PreToolUse[0].matcher: expected a string; entry skipped',
      ],
      [
        { PreToolUse: [{ matcher: 'Edit(', hooks: [command('x')] }] },
        'hooks.PreToolUse[0].matcher: expected tool names',
      ],
      [
        { PreToolUse: [{ hooks: [{ type: 'prompt', prompt: 'x' }] }] },
        'hooks.PreToolUse[0].hooks[0].type: ci-agent runs only "command" hooks, not "prompt"; hook skipped',
      ],
      [
        { PreToolUse: [{ hooks: [{ type: 'shell', command: 'x' }] }] },
        'hooks.PreToolUse[0].hooks[0].type: expected "command"; hook skipped',
      ],
      [
        { PreToolUse: [{ hooks: [{ type: 'command' }] }] },
        'hooks.PreToolUse[0].hooks[0].command: expected a shell command string; hook skipped',
      ],
      [
        { PreToolUse: [{ hooks: ['npm test'] }] },
        'hooks.PreToolUse[0].hooks[0]: expected {"type": "command", "command": "..."}; hook skipped',
      ],
      [
        { PreToolUse: [{ hooks: [{ ...command('node'), args: ['x.js'] }] }] },
        'hooks.PreToolUse[0].hooks[0].args: exec-form hooks ("args") are not supported; hook skipped',
      ],
    ])('skips %j with a warning', (hooks, warning) => {
      const layer = parse({ hooks });
      expect(layer.hooks).toEqual({});
      expect(layer.warnings).toEqual([expect.stringContaining(warning)]);
    });

    it('ignores "hooks" that is not an object', () => {
      const layer = parse({ hooks: [] });
      expect(layer.hooks).toEqual({});
      expect(layer.warnings).toEqual([
        expect.stringContaining('hooks: expected an object of hook events; ignored'),
      ]);
    });

    it.each([
      [{ timeout: '10s' }, 'timeout: expected a positive number of seconds; the default applies'],
      [{ timeout: -1 }, 'timeout: expected a positive number of seconds; the default applies'],
      [
        { required: true },
        'required: only the ci-agent policy file can mark a hook required; ignored',
      ],
      [
        { statusMessage: 'Linting' },
        'statusMessage: the hook field "statusMessage" is not supported by ci-agent; ignored',
      ],
      [{ colour: 'red' }, 'colour: unknown key; ignored'],
    ])('keeps the hook but ignores %j with a warning', (extra, warning) => {
      const layer = parse({ hooks: { PreToolUse: [{ hooks: [{ ...command('x'), ...extra }] }] } });
      expect(layer.hooks).toEqual({
        PreToolUse: [{ hooks: [{ type: 'command', command: 'x', source: FILE }] }],
      });
      expect(layer.warnings).toEqual([
        expect.stringContaining(`hooks.PreToolUse[0].hooks[0].${warning}`),
      ]);
    });

    it('keeps an "if" rule: the hook runs only for the calls it matches', () => {
      const layer = parse({
        hooks: { PreToolUse: [{ hooks: [{ ...command('x'), if: 'Bash(git push:*)' }] }] },
      });
      expect(layer.hooks).toEqual({
        PreToolUse: [
          { hooks: [{ type: 'command', command: 'x', source: FILE, if: 'Bash(git push:*)' }] },
        ],
      });
      expect(layer.warnings).toEqual([]);
    });

    it('skips a hook whose "if" is not a rule, rather than run it for every call', () => {
      const layer = parse({
        hooks: { PreToolUse: [{ hooks: [{ ...command('x'), if: 'Bash(' }] }] },
      });
      expect(layer.hooks).toEqual({});
      expect(layer.warnings).toEqual([expect.stringMatching(/if: .*; hook skipped/)]);
    });

    it('keeps a Stop group but ignores its matcher, which has nothing to match', () => {
      const layer = parse({ hooks: { Stop: [{ matcher: '*', hooks: [command('npm test')] }] } });
      expect(layer.hooks).toEqual({
        Stop: [{ hooks: [{ type: 'command', command: 'npm test', source: FILE }] }],
      });
      expect(layer.warnings).toEqual([
        expect.stringContaining(
          'hooks.Stop[0].matcher: Stop hooks have nothing to match; matcher ignored',
        ),
      ]);
    });

    it('keeps a group with an unknown key, warning about the key', () => {
      const layer = parse({
        hooks: { PreToolUse: [{ matcher: 'Bash', description: 'x', hooks: [command('x')] }] },
      });
      expect(layer.hooks.PreToolUse).toHaveLength(1);
      expect(layer.warnings).toEqual([
        expect.stringContaining('hooks.PreToolUse[0].description: unknown key; ignored'),
      ]);
    });
  });

  describe('when a rule names no tool', () => {
    it('keeps it, as Claude Code does, with a warning naming the file, line, field and rule', () => {
      const layer = parse({
        permissions: {
          allow: ['Read', 'WebFech'],
          deny: ['Read(./.env)', 'bash(curl:*)', 'MultiEdit'],
          ask: ['Agent(explore)'],
        },
      });

      expect(layer.deny.map((rule) => rule.text)).toEqual([
        'Read(./.env)',
        'bash(curl:*)',
        'MultiEdit',
      ]);
      expect(layer.warnings).toEqual([
        '.claude/settings.json:5:7: permissions.allow[1]: allow rule "WebFech" names no tool ci-agent has, so it allows nothing: did you mean "WebFetch"?',
        '.claude/settings.json:9:7: permissions.deny[1]: deny rule "bash(curl:*)" names no tool ci-agent has, so it denies nothing: tool names are case-sensitive; did you mean "Bash(curl:*)"?',
        '.claude/settings.json:10:7: permissions.deny[2]: deny rule "MultiEdit" names the Claude Code tool MultiEdit, which ci-agent does not have, so it denies nothing (Edit covers its edits); remove it',
        '.claude/settings.json:13:7: permissions.ask[0]: ask rule "Agent(explore)" names no agent type, so it asks about nothing: did you mean "Agent(Explore)"?',
      ]);
    });

    it('keeps a hook whose "if" names no tool, warning that it never runs', () => {
      const layer = parse({
        hooks: { PreToolUse: [{ hooks: [{ ...command('x'), if: 'bash(git push:*)' }] }] },
      });
      expect(layer.hooks.PreToolUse?.[0]?.hooks[0]?.if).toBe('bash(git push:*)');
      expect(layer.warnings).toEqual([
        expect.stringContaining(
          'hooks.PreToolUse[0].hooks[0].if: the "if" rule "bash(git push:*)" names no tool ci-agent has, so the hook never runs',
        ),
      ]);
    });

    it('keeps a tool hook whose matcher names no tool, warning that it never runs', () => {
      const layer = parse({
        hooks: {
          PreToolUse: [{ matcher: 'Edit|Writ', hooks: [command('x')] }],
          SubagentStop: [{ matcher: 'Explore', hooks: [command('y')] }],
        },
      });
      expect(layer.hooks.PreToolUse?.[0]?.matcher).toBe('Edit|Writ');
      expect(layer.warnings).toEqual([
        '.claude/settings.json:5:20: hooks.PreToolUse[0].matcher: "Writ" names no tool ci-agent has, so the hook never runs for it: did you mean "Write"?',
      ]);
    });

    it('warns about a rule naming an MCP server nothing configures, when the servers are known', () => {
      const text = JSON.stringify({ permissions: { deny: ['mcp__docs', 'mcp__jira__create'] } });
      const layer = parseSettingsFile({
        kind: 'project',
        path: FILE,
        text,
        anchorDir: '/repo',
        mcpServers: new Set(['docs']),
      });
      expect(layer.warnings).toEqual([
        '.claude/settings.json:1:37: permissions.deny[1]: deny rule "mcp__jira__create" names the MCP server "jira", which neither .mcp.json nor the policy file configures, so it matches nothing unless --mcp-config adds it',
      ]);
    });
  });

  describe('when a rule string is invalid', () => {
    it('drops an invalid allow rule with a warning naming the file and the rule', () => {
      const layer = parse({ permissions: { allow: ['Read', 'Bash(npm test', 7] } });

      expect(layer.allow.map((rule) => rule.text)).toEqual(['Read']);
      expect(layer.warnings).toEqual([
        expect.stringMatching(
          /^\.claude\/settings\.json:\d+:\d+: permissions\.allow\[1\]: invalid permission rule: .*; rule "Bash\(npm test" dropped$/,
        ),
        expect.stringContaining(
          'permissions.allow[2]: expected a permission rule string; rule 7 dropped',
        ),
      ]);
    });

    it('keeps a rule that cannot work as written, warning about it, as Claude Code does', () => {
      const layer = parse({ permissions: { allow: ['*'], deny: ['Write(.env)'] } });

      expect(layer.allow.map((rule) => rule.text)).toEqual(['*']);
      expect(layer.deny.map((rule) => rule.text)).toEqual(['Write(.env)']);
      expect(layer.warnings).toEqual([
        expect.stringContaining('permissions.allow[0]: allow rule "*" is ignored'),
        expect.stringContaining(
          'permissions.deny[0]: deny rule "Write(.env)" is never consulted: path rules are checked for Read(…) and Edit(…) only; write "Edit(.env)" instead',
        ),
      ]);
    });

    it('ignores allow rules that are not a list, with a warning', () => {
      const layer = parse({ permissions: { allow: 'Read' } });
      expect(layer.allow).toEqual([]);
      expect(layer.warnings).toEqual([
        expect.stringContaining('permissions.allow: expected a list of permission rules; ignored'),
      ]);
    });

    it.each(['deny', 'ask'])(
      'rejects the file for an invalid %s rule, since dropping it would loosen the policy',
      (kind) => {
        expect(problems(`{\n  "permissions": {\n    "${kind}": ["Read", "Bash(rm"]\n  }\n}`)).toBe(
          `.claude/settings.json:3:${kind.length + 18}: permissions.${kind}[1]: invalid permission rule: expected a tool name such as "Read", or "Tool(specifier)" such as "Bash(npm test:*)", got "Bash(rm"`,
        );
      },
    );

    it.each([
      [
        { deny: 'Bash' },
        'permissions.deny: expected a list of permission rule strings, got "Bash"',
      ],
      [{ ask: [null] }, 'permissions.ask[0]: expected a permission rule string, got null'],
    ])('rejects %j', (permissions, expected) => {
      expect(problems({ permissions })).toContain(expected);
    });
  });

  describe('when a value cannot be read safely', () => {
    it.each([
      [
        { permissions: { defaultMode: 'plan-only' } },
        'permissions.defaultMode: expected one of default, acceptEdits, plan, dontAsk, bypassPermissions, got "plan-only"',
      ],
      [
        { permissions: { defaultMode: 1 } },
        'permissions.defaultMode: expected one of default, acceptEdits, plan, dontAsk, bypassPermissions, got 1',
      ],
      [
        { permissions: ['Read'] },
        'permissions: expected an object with allow, deny, ask and defaultMode, got ["Read"]',
      ],
      [
        [],
        '.claude/settings.json:1:1: expected a JSON object such as {"permissions": {...}, "hooks": {...}}, got []',
      ],
    ])('rejects %j rather than guess', (settings, expected) => {
      expect(problems(settings)).toContain(expected);
    });

    it('drops additional directories that are not paths, with a warning', () => {
      const layer = parse({ permissions: { additionalDirectories: ['/data', 3, ''] } });
      expect(layer.additionalDirectories).toEqual(['/data']);
      expect(layer.warnings).toEqual([
        expect.stringContaining(
          'permissions.additionalDirectories[1]: expected a directory path; dropped',
        ),
        expect.stringContaining(
          'permissions.additionalDirectories[2]: expected a directory path; dropped',
        ),
      ]);
    });

    it('ignores additional directories that are not a list, with a warning', () => {
      const layer = parse({ permissions: { additionalDirectories: '/data' } });
      expect(layer.additionalDirectories).toEqual([]);
      expect(layer.warnings).toHaveLength(1);
    });
  });

  describe('when the file is not valid JSON', () => {
    it.each([
      [
        '{\n  "permissions": {\n    "allow": ["Read",]\n  }\n}',
        '.claude/settings.json:3:22: invalid JSON: expected a value, found "]"',
      ],
      [
        '{"permissions": {}} trailing',
        '.claude/settings.json:1:21: invalid JSON: expected the end of the file, found "t"',
      ],
      [
        "{'permissions': {}}",
        '.claude/settings.json:1:2: invalid JSON: expected a property name in double quotes, found "\'"',
      ],
      ['', '.claude/settings.json:1:1: invalid JSON: expected a value, found the end of the file'],
      [
        '{"a": "line\nbreak"}',
        '.claude/settings.json:1:7: invalid JSON: expected a value, found "\\""',
      ],
    ])('names the file and the position of %j', (text, expected) => {
      expect(problems(text)).toBe(expected);
    });
  });
});
