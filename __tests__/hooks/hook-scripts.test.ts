/**
 * The judges are not the agent's to change (issue 11, item 6): the scripts hooks run are found at
 * start, refused to every tool that would change them, and checked before each run, so that code
 * the agent runs cannot rewrite a guard and then do what it blocked.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../src/agent/session.js';
import { findHookScripts, scriptsOutsideClaudeDir } from '../../src/hooks/hook-scripts.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { HooksConfig } from '../../src/hooks/config.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  workspace?.cleanup();
  workspace = undefined;
});

const hooksRunning = (...commands: string[]): HooksConfig => ({
  PreToolUse: [
    {
      matcher: 'Bash',
      hooks: commands.map((command) => ({ type: 'command', command, source: 'policy.yml' })),
    },
  ],
});

describe('findHookScripts', () => {
  it('finds the scripts a hook command names, however it names them', async () => {
    workspace = makeWorkspace('ci-agent-hook-scripts-');
    await workspace.write('.claude/hooks/guard.sh', 'exit 0\n');
    await workspace.write('scripts/check.mjs', '');
    await workspace.write('home/bin/h.sh', 'exit 0\n');
    const scripts = findHookScripts(
      hooksRunning(
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh',
        'node scripts/check.mjs --strict',
        'bash ~/bin/h.sh',
        'jq -r .tool_input.command | grep -q curl && exit 2 || exit 0',
      ),
      { projectDir: workspace.root, homeDir: workspace.path('home') },
    );
    expect([...scripts.paths].sort()).toEqual(
      [
        workspace.path('.claude/hooks/guard.sh'),
        workspace.path('home/bin/h.sh'),
        workspace.path('scripts/check.mjs'),
      ].sort(),
    );
  });

  describe('check', () => {
    it('passes a script as it was, and refuses one changed since', async () => {
      workspace = makeWorkspace('ci-agent-hook-scripts-');
      await workspace.write('scripts/guard.sh', 'exit 2\n');
      const command = 'bash scripts/guard.sh';
      const scripts = findHookScripts(hooksRunning(command), {
        projectDir: workspace.root,
        homeDir: workspace.root,
      });
      expect(scripts.check(command, workspace.root)).toBeUndefined();
      writeFileSync(workspace.path('scripts/guard.sh'), 'exit 0\n');
      expect(scripts.check(command, workspace.root)).toBe(
        `its script ${workspace.path('scripts/guard.sh')} changed after the run started`,
      );
    });

    it('refuses a script the hook runs that did not exist when the run started', async () => {
      // A hook that runs its script only when it is there: the agent would write the judge.
      workspace = makeWorkspace('ci-agent-hook-scripts-');
      const command = 'test -f scripts/hook.mjs && node scripts/hook.mjs || true';
      const scripts = findHookScripts(hooksRunning(command), {
        projectDir: workspace.root,
        homeDir: workspace.root,
      });
      expect(scripts.paths).toContain(workspace.path('scripts/hook.mjs'));
      expect(scripts.check(command, workspace.root)).toBeUndefined();
      await workspace.write('scripts/hook.mjs', 'console.log("{}")\n');
      expect(scripts.check(command, workspace.root)).toContain(
        'scripts/hook.mjs (' + workspace.path('scripts/hook.mjs') + ') did not exist',
      );
    });

    it('refuses a script over 4 MiB rewritten since the start, as it does a small one', async () => {
      workspace = makeWorkspace('ci-agent-hook-scripts-');
      const big = `exit 2\n${'#'.repeat(5 * 1024 * 1024)}\n`;
      await workspace.write('scripts/guard.sh', big);
      const command = 'bash scripts/guard.sh';
      const scripts = findHookScripts(hooksRunning(command), {
        projectDir: workspace.root,
        homeDir: workspace.root,
      });
      expect(scripts.check(command, workspace.root)).toBeUndefined();
      writeFileSync(workspace.path('scripts/guard.sh'), big.replace('exit 2', 'exit 0'));
      expect(scripts.check(command, workspace.root)).toContain('changed after the run started');
    });

    it('refuses a relative script that the working directory now resolves elsewhere', async () => {
      workspace = makeWorkspace('ci-agent-hook-scripts-');
      await workspace.write('scripts/guard.sh', 'exit 2\n');
      await workspace.write('sub/scripts/guard.sh', 'exit 0\n');
      const command = 'bash scripts/guard.sh';
      const scripts = findHookScripts(hooksRunning(command), {
        projectDir: workspace.root,
        homeDir: workspace.root,
      });
      expect(scripts.check(command, workspace.path('sub'))).toContain(
        `now names ${workspace.path('sub/scripts/guard.sh')} instead of ${workspace.path('scripts/guard.sh')}`,
      );
    });
  });
});

describe('a session whose hook guards a command', () => {
  const bash = (id: string, command: string) => ({
    type: 'tool_use' as const,
    id,
    name: 'Bash',
    input: { command, description: 'Run it' },
  });

  it('refuses every change to the hook script, and a hook changed anyway blocks', async () => {
    workspace = makeWorkspace('ci-agent-hook-judge-');
    // The guard blocks any command that mentions "deploy".
    await workspace.write(
      'scripts/guard.sh',
      '#!/bin/sh\nif grep -q deploy; then echo "no deploys" >&2; exit 2; fi\nexit 0\n',
    );
    const guard = workspace.path('scripts/guard.sh');
    const original = readFileSync(guard, 'utf8');
    mkdirSync(workspace.path('out'));
    server = await startReplayServer({
      apiKey: 'sk-test',
      turns: [
        [
          {
            type: 'tool_use',
            id: 'toolu_write',
            name: 'Write',
            input: { file_path: guard, content: 'exit 0\n' },
          },
        ],
        [bash('toolu_echo', `echo 'exit 0' > scripts/guard.sh`)],
        // Code the agent runs (a test command, say) rewrites the guard where no rule can see it.
        [bash('toolu_node', `node -e "require('fs').writeFileSync('scripts/guard.sh','exit 0')"`)],
        [
          bash(
            'toolu_deploy',
            "node -e \"require('fs').writeFileSync('out/deployed','x')\" # deploy",
          ),
        ],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    const result = await runSession({
      prompt: 'Deploy.',
      cwd: workspace.root,
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
      permissionMode: 'acceptEdits',
      rules: { allow: [parseRule('Bash', 'policy.yml')], deny: [] },
      env: process.env,
      events: () => undefined,
      retry: false,
      hooksConfig: hooksRunning('sh scripts/guard.sh'),
    });

    expect(result.subtype).toBe('success');
    const resultOf = (turn: number, id: string) => {
      const messages = (server?.requests[turn]?.body as { messages: Message[] }).messages;
      const blocks = messages[messages.length - 1]?.content as ToolResultBlock[];
      const block = blocks.find((candidate) => candidate.tool_use_id === id);
      return typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content);
    };
    expect(resultOf(1, 'toolu_write')).toContain('which judges this run');
    expect(resultOf(2, 'toolu_echo')).toContain('which judges this run');
    expect(readFileSync(guard, 'utf8')).not.toBe(original);
    expect(resultOf(4, 'toolu_deploy')).toContain('changed after the run started');
    expect(existsSync(join(workspace.root, 'out/deployed'))).toBe(false);
  });
});

describe('scriptsOutsideClaudeDir', () => {
  it('lists the project scripts hooks run from outside .claude/, and nothing else', async () => {
    workspace = makeWorkspace('ci-agent-hook-outside-');
    await workspace.write('guard.mjs', '');
    await workspace.write('.claude/hooks/check.mjs', '');
    const home = makeWorkspace('ci-agent-hook-home-');
    try {
      const commands = [
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh',
        'node .claude/hooks/check.mjs',
        'node scripts/check.mjs --strict',
        'python3 -u "$CLAUDE_PROJECT_DIR/tools/../hooks/y.py"',
        './gate.sh && bash ~/bin/h.sh',
        'test -f later.mjs && node ./later.mjs',
        '/usr/bin/env true',
        'jq -r .tool_input.command | grep -q curl && exit 2 || exit 0',
        'node ../elsewhere/x.mjs',
        'node guard.mjs > report.txt',
      ];
      const found = scriptsOutsideClaudeDir(hooksRunning(...commands), {
        projectDir: workspace.root,
        homeDir: home.root,
      });
      expect(found).toEqual([
        { command: commands[2], script: 'scripts/check.mjs' },
        { command: commands[3], script: 'hooks/y.py' },
        { command: commands[4], script: 'gate.sh' },
        // Named before it exists: the agent would be the one to write it.
        { command: commands[5], script: 'later.mjs' },
        // No slash, but a file of the project: the hook runs it.
        { command: commands[9], script: 'guard.mjs' },
      ]);
    } finally {
      home.cleanup();
    }
  });

  it('lists nothing when every script is under .claude/', () => {
    expect(
      scriptsOutsideClaudeDir(hooksRunning('bash .claude/hooks/a.sh', '.claude/hooks/b.sh'), {
        projectDir: '/work/repo',
        homeDir: '/home/runner',
      }),
    ).toEqual([]);
  });
});
