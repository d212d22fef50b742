/**
 * The built CLI with a repository's policy: .claude/settings.json, .github/ci-agent.yml, hooks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/types.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { resultBlocksSent, runCli } from '../helpers/cli-harness.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const runs: CliRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
});

async function cli(...parameters: Parameters<typeof runCli>): Promise<CliRun> {
  const run = await runCli(...parameters);
  runs.push(run);
  return run;
}

const settings = (value: unknown) => ({ '.claude/settings.json': JSON.stringify(value) });
const resultLine = (run: CliRun) => run.lines[run.lines.length - 1] as Record<string, unknown>;

describe('ci-agent with a repository policy (built CLI)', () => {
  it('applies a deny rule from .claude/settings.json without revealing whether the file exists', async () => {
    const run = await cli(['-p', 'read', ...STREAM], {
      files: {
        ...settings({ permissions: { deny: ['Read(./secret.env)', 'Read(./ghost.env)'] } }),
        'secret.env': 'KEY=1\n',
        'a.txt': 'ok\n',
      },
      turns: (root) => [
        [
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'Read',
            input: { file_path: `${root}/secret.env` },
          },
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'Read',
            input: { file_path: `${root}/ghost.env` },
          },
          { type: 'tool_use', id: 'toolu_03', name: 'Read', input: { file_path: `${root}/a.txt` } },
        ],
        [{ type: 'text', text: 'done' }],
      ],
    });
    expect(run.code).toBe(0);
    const sent = resultBlocksSent(run);
    for (const id of ['toolu_01', 'toolu_02']) {
      expect(sent.get(id)?.is_error).toBe(true);
      expect(sent.get(id)?.content).toContain('(.claude/settings.json)');
      expect(sent.get(id)?.content).not.toContain('does not exist');
    }
    expect(sent.get('toolu_03')?.content).toBe('1\tok\n2\t');
    const denials = resultLine(run).permission_denials as Array<{
      tool_use_id: string;
      rules: string[];
    }>;
    expect(denials.map((denial) => [denial.tool_use_id, denial.rules])).toEqual([
      ['toolu_01', ['Read(./secret.env)']],
      ['toolu_02', ['Read(./ghost.env)']],
    ]);
  });

  it('runs PreToolUse and PostToolUse hooks with the Claude Code payload, and a blocking hook stops the call', async () => {
    const log = '.hooklog.jsonl';
    const run = await cli(['-p', 'go', ...STREAM, '--allowedTools', 'Bash'], {
      files: {
        'hooks/log.sh': `#!/bin/sh\ncat >> "$CLAUDE_PROJECT_DIR/${log}"\necho >> "$CLAUDE_PROJECT_DIR/${log}"\n`,
        'hooks/block.sh': '#!/bin/sh\necho "rm is forbidden here" >&2\nexit 2\n',
        'a.txt': 'payload\n',
        ...settings({
          hooks: {
            PreToolUse: [
              { matcher: 'Read', hooks: [{ type: 'command', command: 'sh hooks/log.sh' }] },
              { matcher: 'Bash', hooks: [{ type: 'command', command: 'sh hooks/block.sh' }] },
            ],
            PostToolUse: [
              { matcher: 'Read', hooks: [{ type: 'command', command: 'sh hooks/log.sh' }] },
            ],
          },
        }),
      },
      turns: (root) => [
        [
          { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: `${root}/a.txt` } },
          { type: 'tool_use', id: 'toolu_02', name: 'Bash', input: { command: 'rm a.txt' } },
        ],
        [{ type: 'text', text: 'done' }],
      ],
    });
    expect(run.code).toBe(0);
    expect(readFileSync(`${run.workspace.root}/a.txt`, 'utf8')).toBe('payload\n');
    const blocked = resultBlocksSent(run).get('toolu_02');
    expect(blocked?.is_error).toBe(true);
    expect(blocked?.content).toContain('rm is forbidden here');
    const payloads = readFileSync(`${run.workspace.root}/${log}`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(payloads.map((payload) => payload.hook_event_name)).toEqual([
      'PreToolUse',
      'PostToolUse',
    ]);
    const init = run.lines[0] as { session_id: string };
    expect(payloads[0]).toMatchObject({
      session_id: init.session_id,
      cwd: run.workspace.root,
      permission_mode: 'default',
      tool_name: 'Read',
      tool_input: { file_path: `${run.workspace.root}/a.txt` },
      tool_use_id: 'toolu_01',
    });
    expect(payloads[0]).toHaveProperty('transcript_path');
    expect(payloads[1]?.tool_response).toMatchObject({
      type: 'text',
      file: { content: 'payload\n' },
    });
    const hookLines = run.lines.filter((line) => line.subtype === 'hook_response');
    expect(hookLines.map((line) => [line.event, line.exitCode])).toEqual([
      ['PreToolUse', 0],
      ['PostToolUse', 0],
      ['PreToolUse', 2],
    ]);
  });

  it('keeps the model working until a Stop hook is satisfied', async () => {
    const run = await cli(['-p', 'make it pass', ...STREAM, '--permission-mode', 'acceptEdits'], {
      files: {
        'status.txt': 'failing\n',
        'hooks/stop.sh':
          '#!/bin/sh\nif grep -q passing status.txt; then exit 0; fi\necho "status.txt still says failing: fix it before you stop" >&2\nexit 2\n',
        ...settings({
          hooks: { Stop: [{ hooks: [{ type: 'command', command: 'sh hooks/stop.sh' }] }] },
        }),
      },
      turns: (root) => [
        [{ type: 'text', text: 'I think I am done.' }],
        [
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'Read',
            input: { file_path: `${root}/status.txt` },
          },
        ],
        [
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'Edit',
            input: {
              file_path: `${root}/status.txt`,
              old_string: 'failing',
              new_string: 'passing',
            },
          },
        ],
        [{ type: 'text', text: 'Now it passes.' }],
      ],
    });
    expect(run.code).toBe(0);
    expect(resultLine(run)).toMatchObject({
      subtype: 'success',
      result: 'Now it passes.',
      num_turns: 4,
    });
    const second = run.server.requests[1]?.body as { messages: Message[] };
    const reminder = second.messages[second.messages.length - 1];
    expect(JSON.stringify(reminder)).toContain('status.txt still says failing');
  });

  it('reads .github/ci-agent.yml: per-tool ask answers, limits and hooks', async () => {
    const run = await cli(['-p', 'edit', ...STREAM], {
      files: {
        'a.txt': 'one\n',
        '.github/ci-agent.yml': [
          'permissions:',
          '  onAsk:',
          '    default: deny',
          '    tools:',
          '      Edit: allow',
          'limits:',
          '  maxTurns: 3',
        ].join('\n'),
      },
      turns: (root) => [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: `${root}/a.txt` } }],
        [
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'Edit',
            input: { file_path: `${root}/a.txt`, old_string: 'one', new_string: 'two' },
          },
          { type: 'tool_use', id: 'toolu_03', name: 'Bash', input: { command: 'touch made.txt' } },
        ],
        [{ type: 'tool_use', id: 'toolu_04', name: 'Glob', input: { pattern: '*' } }],
        [{ type: 'text', text: 'never reached' }],
      ],
    });
    expect(readFileSync(`${run.workspace.root}/a.txt`, 'utf8')).toBe('two\n');
    expect(existsSync(`${run.workspace.root}/made.txt`)).toBe(false);
    expect(resultBlocksSent(run).get('toolu_03')?.content).toContain('resolves asks to deny');
    expect(resultLine(run)).toMatchObject({ subtype: 'error_max_turns', num_turns: 3 });
    expect(run.code).toBe(1);
  });

  describe('when the policy is wrong', () => {
    it('names the file, the field, the bad value and the expected form, and runs nothing', async () => {
      const run = await cli(['-p', 'x'], {
        files: {
          '.github/ci-agent.yml':
            'hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: ./check.sh\n          timeout: 10s\n',
        },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('.github/ci-agent.yml');
      expect(run.stderr).toContain('hooks.PreToolUse[0].hooks[0].timeout');
      expect(run.stderr).toContain('"10s"');
      expect(run.server.requests).toHaveLength(0);
    });

    it('warns about unknown settings keys and carries on', async () => {
      const run = await cli(['-p', 'x'], {
        files: settings({ permissions: { allow: ['Read'] }, frobnicate: true }),
        turns: [[{ type: 'text', text: 'fine' }]],
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/^Warning: .*\.claude\/settings\.json.*frobnicate/m);
      expect(run.stdout).toBe('fine\n');
    });

    it('refuses a policy rule that names no tool, and runs nothing', async () => {
      const run = await cli(['-p', 'x'], {
        files: {
          '.github/ci-agent.yml': 'permissions:\n  deny:\n    - Read(/.env)\n    - bash(curl:*)\n',
        },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'Error: .github/ci-agent.yml:4:7: permissions.deny[1]: deny rule "bash(curl:*)" names no tool ci-agent has, so it denies nothing: tool names are case-sensitive; did you mean "Bash(curl:*)"?\n',
      );
      expect(run.server.requests).toHaveLength(0);
    });

    it('warns about a settings rule that names no tool, with the file, line and rule, and carries on', async () => {
      const run = await cli(['-p', 'x'], {
        files: settings({ permissions: { deny: ['WebFech'] } }),
        turns: [[{ type: 'text', text: 'fine' }]],
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Warning: .claude/settings.json:1:25: permissions.deny[0]: deny rule "WebFech" names no tool ci-agent has, so it denies nothing: did you mean "WebFetch"?\n',
      );
    });

    it('refuses a --disallowedTools rule that names no tool, naming the flag', async () => {
      const run = await cli(['-p', 'x', '--disallowedTools', 'Shell(rm:*)']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'Error: --disallowedTools: deny rule "Shell(rm:*)" names no tool ci-agent has, so it denies nothing: did you mean "Bash(rm:*)"?\n',
      );
      expect(run.server.requests).toHaveLength(0);
    });

    it('refuses a settings file nested 100 000 levels deep, naming the file', async () => {
      const run = await cli(['-p', 'x'], {
        files: { '.claude/settings.json': `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'Error: .claude/settings.json:1:65: nested more than 64 levels deep (lists and mappings inside one another); expected a flatter file\n',
      );
    });

    it('accepts --settings as JSON text', async () => {
      const run = await cli(
        ['-p', 'x', ...STREAM, '--settings', '{"permissions":{"deny":["Glob"]}}'],
        {
          turns: [[{ type: 'text', text: 'fine' }]],
        },
      );
      const body = run.server.requests[0]?.body as { tools: Array<{ name: string }> };
      expect(body.tools.map((tool) => tool.name)).not.toContain('Glob');
    });
  });
});
