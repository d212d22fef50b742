import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HooksConfig } from '../../src/hooks/config.js';
import type { RuleTarget } from '../../src/permissions/rules.js';
import type { PermissionMode } from '../../src/permissions/types.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import type { HookProject } from './hook-fixture.js';
import { group, live, makeHookProject, on, preRequest } from './hook-fixture.js';

let project: HookProject;
beforeEach(() => {
  project = makeHookProject();
});
afterEach(() => project.cleanup());

const lines = (relative: string) => project.read(relative).trim().split('\n');

describe('createHookRunner: execution', () => {
  describe('payload', () => {
    it('sends the PreToolUse fields as compact JSON without a trailing newline', async () => {
      const { hooks } = project.runner(on('PreToolUse', ['cat > "$CLAUDE_PROJECT_DIR/in.json"']), {
        promptId: 'prompt-1',
      });
      await hooks.preToolUse(preRequest('Bash', { command: 'npm test', timeout: 120000 }));
      const raw = project.read('in.json');
      expect(raw.endsWith('}')).toBe(true);
      // Field order as Claude Code 2.1.197 writes it.
      expect(raw).toBe(
        JSON.stringify({
          session_id: 'session-1',
          transcript_path: project.path('transcript.jsonl'),
          cwd: project.root,
          prompt_id: 'prompt-1',
          permission_mode: 'default',
          effort: { level: 'high' },
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'npm test', timeout: 120000 },
          tool_use_id: 'toolu_1',
        }),
      );
    });

    it('sends tool_response and duration_ms on PostToolUse', async () => {
      const { hooks } = project.runner(on('PostToolUse', ['cat > in.json']));
      const toolResponse = {
        type: 'text',
        file: { filePath: '/a.txt', content: 'x\n', numLines: 2 },
      };
      await hooks.postToolUse({
        ...preRequest('Read', { file_path: '/a.txt' }),
        toolResponse,
        durationMs: 7,
      });
      expect(JSON.parse(project.read('in.json'))).toEqual({
        session_id: 'session-1',
        transcript_path: project.path('transcript.jsonl'),
        cwd: project.root,
        permission_mode: 'default',
        effort: { level: 'high' },
        hook_event_name: 'PostToolUse',
        tool_name: 'Read',
        tool_input: { file_path: '/a.txt' },
        tool_response: toolResponse,
        tool_use_id: 'toolu_1',
        duration_ms: 7,
      });
    });

    it('sends error and is_interrupt on PostToolUseFailure', async () => {
      const { hooks } = project.runner(on('PostToolUseFailure', ['cat > in.json']));
      await hooks.postToolUseFailure({ ...preRequest(), error: 'Exit code 1', isInterrupt: false });
      expect(JSON.parse(project.read('in.json'))).toMatchObject({
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_use_id: 'toolu_1',
        error: 'Exit code 1',
        is_interrupt: false,
      });
    });

    it('reports the permission mode it was given', async () => {
      const { hooks } = project.runner(on('PreToolUse', ['cat > in.json']), {
        permissionMode: 'acceptEdits',
      });
      await hooks.preToolUse(preRequest());
      expect(JSON.parse(project.read('in.json'))).toMatchObject({ permission_mode: 'acceptEdits' });
    });

    it('reports the mode at the time of the call when it is given as a getter', async () => {
      let mode: PermissionMode = 'plan';
      const { hooks } = project.runner(on('PreToolUse', ['cat > in.json']), {
        permissionMode: () => mode,
      });
      await hooks.preToolUse(preRequest());
      expect(JSON.parse(project.read('in.json'))).toMatchObject({ permission_mode: 'plan' });
      mode = 'default';
      await hooks.preToolUse(preRequest());
      expect(JSON.parse(project.read('in.json'))).toMatchObject({ permission_mode: 'default' });
    });
  });

  describe('when a handler has an "if" rule', () => {
    const target = (command: string): RuleTarget => ({
      toolName: 'Bash',
      aliases: [],
      request: { access: 'execute', ruleContent: command },
      projectDir: project.root,
      homeDir: '/nonexistent-home',
    });
    const guarded = () =>
      project.runner(on('PreToolUse', ['echo ran >> runs.txt'], { if: 'Bash(git push:*)' }));
    const runs = () =>
      existsSync(join(project.root, 'runs.txt')) ? project.read('runs.txt').trim().split('\n') : [];

    it('runs for a call the rule matches, also as part of a compound command', async () => {
      const { hooks } = guarded();
      await hooks.preToolUse({ ...preRequest(), target: target('git push origin main') });
      await hooks.preToolUse({ ...preRequest(), target: target('cd app && git push') });
      expect(runs()).toEqual(['ran', 'ran']);
    });

    it('does not run for a call the rule does not match, nor without the call to match', async () => {
      const { hooks, records } = guarded();
      await hooks.preToolUse({ ...preRequest(), target: target('git status') });
      await hooks.preToolUse(preRequest());
      expect(runs()).toEqual([]);
      expect(records).toEqual([]);
    });

    it('never runs on an event that is not about a tool call', async () => {
      const { hooks } = project.runner(on('Stop', ['echo ran >> runs.txt'], { if: 'Bash' }));
      await hooks.stop({ stopHookActive: false });
      expect(runs()).toEqual([]);
    });
  });

  describe('environment and directory', () => {
    it('adds CLAUDE_PROJECT_DIR, the session id and effort (as Claude Code 2.1.197), and passes no secrets', async () => {
      const env = buildChildEnv({
        ...process.env,
        ANTHROPIC_API_KEY: 'sk-ant-secret',
        GITHUB_TOKEN: 'ghp_secret',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
        HARMLESS: 'visible',
      });
      const script = await project.script(
        'env.py',
        "#!/usr/bin/env python3\nimport json, os\njson.dump(dict(os.environ), open('env.json', 'w'))\n",
      );
      const { hooks } = project.runner(on('PreToolUse', [script]), { env });
      await hooks.preToolUse(preRequest());
      const seen = JSON.parse(project.read('env.json')) as Record<string, string>;
      expect(seen.CLAUDE_PROJECT_DIR).toBe(project.root);
      expect(seen.CLAUDE_CODE_SESSION_ID).toBe('session-1');
      expect(seen.CLAUDE_EFFORT).toBe('high');
      expect(seen.HARMLESS).toBe('visible');
      for (const name of [
        'ANTHROPIC_API_KEY',
        'GITHUB_TOKEN',
        'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
        'CLAUDE_TOOL_INPUT',
      ]) {
        expect(seen[name]).toBeUndefined();
      }
    });

    it('runs in the current cwd, read at each firing', async () => {
      await project.write('sub/.keep', '');
      let cwd = project.root;
      const { hooks } = project.runner(
        on('PreToolUse', ['pwd >> "$CLAUDE_PROJECT_DIR/cwds.txt"; cat > /dev/null']),
        {
          cwd: () => cwd,
        },
      );
      await hooks.preToolUse(preRequest());
      cwd = project.path('sub');
      await hooks.preToolUse(preRequest());
      expect(lines('cwds.txt')).toEqual([project.root, project.path('sub')]);
    });
  });

  describe('parallelism and dedupe', () => {
    it('runs the handlers of one event in parallel', async () => {
      const stamp = (name: string) =>
        `date +%s%3N > ${name}.start; sleep 0.3; date +%s%3N > ${name}.end`;
      const { hooks } = project.runner(on('PreToolUse', [stamp('a'), stamp('b'), stamp('c')]));
      await hooks.preToolUse(preRequest());
      const starts = ['a', 'b', 'c'].map((name) => Number(project.read(`${name}.start`)));
      const ends = ['a', 'b', 'c'].map((name) => Number(project.read(`${name}.end`)));
      // Sequential runs would start each hook after the previous one ended.
      expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));
      expect(Math.max(...ends) - Math.min(...starts)).toBeLessThan(900);
    });

    it('runs an identical command once per firing, even across groups', async () => {
      const command = 'echo ran >> count.txt';
      const config: HooksConfig = {
        PreToolUse: [
          group(command, { matcher: 'Bash' }),
          group(command, { matcher: '*' }),
          group('true'),
        ],
      };
      const { hooks, records } = project.runner(config);
      await hooks.preToolUse(preRequest());
      expect(lines('count.txt')).toEqual(['ran']);
      expect(records.map((record) => [record.command, record.matcher])).toEqual([
        [command, 'Bash'],
        ['true', ''],
      ]);
      await hooks.preToolUse(preRequest());
      expect(lines('count.txt')).toEqual(['ran', 'ran']);
    });

    it('makes a deduplicated command required when any copy is', async () => {
      const config: HooksConfig = {
        PreToolUse: [group('exit 1'), group('exit 1', { required: true })],
      };
      const { hooks } = project.runner(config);
      expect((await hooks.preToolUse(preRequest())).decision?.behavior).toBe('deny');
    });
  });

  describe('merging', () => {
    const decide = (behavior: string, delay = 0) =>
      `sleep ${delay}; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${behavior}","permissionDecisionReason":"${behavior} said so"}}'`;

    it.each([
      [['allow', 'ask', 'deny'], 'deny'],
      [['deny', 'allow'], 'deny'],
      [['allow', 'ask'], 'ask'],
      [['ask', 'allow', 'allow'], 'ask'],
      [['allow', 'allow'], 'allow'],
    ])('merges %j into %s', async (behaviors, expected) => {
      const commands = behaviors.map((behavior, index) => `${decide(behavior)} # ${index}`);
      const { hooks } = project.runner(on('PreToolUse', commands));
      expect((await hooks.preToolUse(preRequest())).decision?.behavior).toBe(expected);
    });

    it('names every hook that denied, with its reason', async () => {
      const { hooks } = project.runner(
        on('PreToolUse', ['echo a >&2; exit 2', 'true', 'echo b >&2; exit 2']),
      );
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toEqual({
        behavior: 'deny',
        source: '"echo a >&2; exit 2", "echo b >&2; exit 2"',
        reason: '"echo a >&2; exit 2": a; "echo b >&2; exit 2": b',
      });
    });

    it('keeps config order for context and updatedInput, whatever the finishing order', async () => {
      const output = (text: string, delay: number) =>
        `sleep ${delay}; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"${text}","updatedInput":{"command":"${text}"}}}'`;
      const { hooks, records } = project.runner(
        on('PreToolUse', [output('first', 0.3), output('second', 0)]),
      );
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.additionalContext).toEqual(['first', 'second']);
      expect(outcome.updatedInput).toEqual({ command: 'second' });
      expect(records.map((record) => record.command)).toEqual([
        output('first', 0.3),
        output('second', 0),
      ]);
    });
  });

  describe('matchers', () => {
    const fired = async (matcher: string, toolName: string) => {
      const { hooks, records } = project.runner({ PreToolUse: [group('true', { matcher })] });
      await hooks.preToolUse(preRequest(toolName));
      return records.length === 1;
    };

    it.each([
      ['Bash', 'Bash', true],
      ['Edit|Write', 'Bash', false],
      ['Edit, Write', 'Write', true],
      ['Edit.*', 'NotebookEdit', true],
      ['mcp__brave-search', 'mcp__brave-search', true],
      ['mcp__brave-search__.*', 'mcp__brave-search__web_search', true],
      ['Task', 'Agent', true],
    ])('matcher %j fires for %s: %s', async (matcher, toolName, expected) => {
      expect(await fired(matcher, toolName)).toBe(expected);
    });

    it('never runs a group with an invalid regex and warns once', async () => {
      const { hooks, records } = project.runner({
        PreToolUse: [group('touch ran', { matcher: 'Edit(' })],
      });
      const first = await hooks.preToolUse(preRequest());
      await hooks.preToolUse(preRequest());
      expect(first.decision).toBeUndefined();
      expect(() => readFileSync(project.path('ran'))).toThrow();
      expect(records).toEqual([
        expect.objectContaining({
          command: 'touch ran',
          exitCode: null,
          status: 'skipped',
          error: expect.stringMatching(
            /^did not run: its matcher "Edit\(" is not a valid regular expression/,
          ) as string,
        }),
      ]);
    });

    it('denies every call when a required hook has an invalid regex', async () => {
      const { hooks, records } = project.runner({
        PreToolUse: [group('true', { matcher: '[', required: true })],
      });
      for (let call = 0; call < 2; call++) {
        const outcome = await hooks.preToolUse(preRequest());
        expect(outcome.decision?.reason).toMatch(
          /^it is a required hook and it did not run: its matcher "\["/,
        );
      }
      expect(records).toHaveLength(2);
    });

    it('ignores matchers on events without one', async () => {
      const { hooks, records } = project.runner({ Stop: [group('true', { matcher: 'Bash' })] });
      await hooks.stop({ stopHookActive: false });
      expect(records).toHaveLength(1);
    });
  });

  it('reports records to the sink and in the outcome alike', async () => {
    const { hooks, records } = project.runner(on('PostToolUse', ['true', 'exit 3']));
    const outcome = await hooks.postToolUse({ ...preRequest(), toolResponse: {}, signal: live() });
    expect(outcome.runs).toEqual(records);
    expect(records.map((record) => record.exitCode)).toEqual([0, 3]);
  });

  it('says which events have hooks', () => {
    const { hooks } = project.runner({ ...on('Stop', ['true']), PreToolUse: [] });
    expect(hooks.has('Stop')).toBe(true);
    expect(hooks.has('PreToolUse')).toBe(false);
    expect(hooks.has('PostToolUse')).toBe(false);
  });
});
