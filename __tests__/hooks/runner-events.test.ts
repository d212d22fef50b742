import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookProject } from './hook-fixture.js';
import { group, makeHookProject, on, preRequest } from './hook-fixture.js';

let project: HookProject;
beforeEach(() => {
  project = makeHookProject();
});
afterEach(() => project.cleanup());

const echo = (value: unknown) => `echo '${JSON.stringify(value)}'`;

describe('createHookRunner: postToolUse', () => {
  const post = async (commands: string[]) => {
    const { hooks, records } = project.runner(on('PostToolUse', commands));
    const outcome = await hooks.postToolUse({ ...preRequest(), toolResponse: { stdout: 'ok' } });
    return { outcome, records };
  };

  it('turns decision "block" into feedback naming the hook', async () => {
    const command = echo({ decision: 'block', reason: 'lint failed: 3 errors' });
    const { outcome, records } = await post([command]);
    expect(outcome.block).toEqual({
      reason: `PostToolUse hook ${JSON.stringify(command)} reported a problem: lint failed: 3 errors`,
    });
    expect(records[0]?.decision).toBe('block');
  });

  it('turns exit 2 into feedback from stderr', async () => {
    const { outcome } = await post(['echo "format check failed" >&2; exit 2']);
    expect(outcome.block?.reason).toMatch(/reported a problem: format check failed$/);
  });

  it('joins the feedback of several hooks in config order', async () => {
    const { outcome } = await post(['sleep 0.2; echo one >&2; exit 2', 'echo two >&2; exit 2']);
    expect(outcome.block?.reason.split('\n').map((line) => line.replace(/.*: /, ''))).toEqual([
      'one',
      'two',
    ]);
  });

  it('returns additionalContext and ignores PreToolUse-only fields', async () => {
    const { outcome } = await post([
      echo({
        hookSpecificOutput: {
          hookEventName: 'PostToolUse',
          additionalContext: 'file was reformatted',
          permissionDecision: 'deny',
        },
      }),
    ]);
    expect(outcome).toMatchObject({ additionalContext: ['file was reformatted'] });
    expect(outcome.block).toBeUndefined();
  });

  it('ignores the PreToolUse-only decision "approve"', async () => {
    const { outcome, records } = await post([echo({ decision: 'approve' })]);
    expect(outcome.block).toBeUndefined();
    expect(records[0]?.error).toBeUndefined();
  });

  it('stops the run on continue: false', async () => {
    const { outcome } = await post([echo({ continue: false })]);
    expect(outcome.stop?.reason).toMatch(/^PostToolUse hook ".*" stopped the run$/);
  });

  it('leaves the result alone when the hook exits 1', async () => {
    const { outcome, records } = await post(['echo nope >&2; exit 1']);
    expect(outcome.block).toBeUndefined();
    expect(records[0]?.error).toBe('exited with code 1 (nope)');
  });
});

describe('createHookRunner: postToolUseFailure', () => {
  it('turns exit 2 into feedback for the model', async () => {
    const { hooks } = project.runner(
      on('PostToolUseFailure', ['echo "see docs/TESTING.md" >&2; exit 2']),
    );
    const outcome = await hooks.postToolUseFailure({ ...preRequest(), error: 'Exit code 1' });
    expect(outcome.block?.reason).toMatch(
      /^PostToolUseFailure hook .* reported a problem: see docs\/TESTING.md$/,
    );
  });

  it('only fires for matching tools', async () => {
    const { hooks, records } = project.runner({
      PostToolUseFailure: [group('true', { matcher: 'Edit' })],
    });
    await hooks.postToolUseFailure({ ...preRequest('Bash'), error: 'Exit code 1' });
    expect(records).toEqual([]);
  });
});

describe('createHookRunner: stop', () => {
  it('sends stop_hook_active and the last assistant message', async () => {
    const { hooks } = project.runner(on('Stop', ['cat > in.json']));
    await hooks.stop({ stopHookActive: true, lastAssistantMessage: 'All done.' });
    expect(JSON.parse(project.read('in.json'))).toMatchObject({
      hook_event_name: 'Stop',
      stop_hook_active: true,
      last_assistant_message: 'All done.',
    });
  });

  it('continues with the reason when a hook blocks', async () => {
    const command = echo({ decision: 'block', reason: 'npm test still fails' });
    const { hooks } = project.runner(on('Stop', [command]));
    const outcome = await hooks.stop({ stopHookActive: false });
    expect(outcome.continueWith).toEqual({
      reason: `Stop hook ${JSON.stringify(command)} says the work is not finished: npm test still fails`,
    });
  });

  it('continues with stderr when a hook exits 2', async () => {
    const { hooks } = project.runner(on('Stop', ['echo "run the linter" >&2; exit 2']));
    const outcome = await hooks.stop({ stopHookActive: false });
    expect(outcome.continueWith?.reason).toMatch(/: run the linter$/);
  });

  it('lets a guarded hook allow stopping once stop_hook_active is set', async () => {
    // The disler/claude-code-hooks-mastery pattern: block once, then let go.
    const script = await project.script(
      'stop.py',
      [
        '#!/usr/bin/env python3',
        'import json, sys',
        'data = json.load(sys.stdin)',
        "if not data['stop_hook_active']:",
        '    print(json.dumps({"decision": "block", "reason": "run the tests first"}))',
      ].join('\n'),
    );
    const { hooks } = project.runner(on('Stop', [script]));
    expect((await hooks.stop({ stopHookActive: false })).continueWith).toBeDefined();
    expect((await hooks.stop({ stopHookActive: true })).continueWith).toBeUndefined();
  });

  it('reports continue: false as a stop, next to any block', async () => {
    const { hooks } = project.runner(
      on('Stop', [
        echo({ continue: false, stopReason: 'out of budget' }),
        echo({ decision: 'block', reason: 'x' }),
      ]),
    );
    const outcome = await hooks.stop({ stopHookActive: false });
    expect(outcome.stop?.reason).toMatch(/stopped the run: out of budget$/);
    expect(outcome.continueWith).toBeDefined();
  });

  it('lets the stop happen when the hook approves or says nothing', async () => {
    const { hooks } = project.runner(on('Stop', ['true', echo({})]));
    expect(await hooks.stop({ stopHookActive: false })).toMatchObject({ systemMessages: [] });
    expect((await hooks.stop({ stopHookActive: false })).continueWith).toBeUndefined();
  });
});

describe('createHookRunner: sessionStart', () => {
  it('adds plain stdout and JSON additionalContext to the context, in config order', async () => {
    const { hooks } = project.runner(
      on('SessionStart', [
        'sleep 0.2; echo "branch: main"',
        echo({
          hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'use pnpm' },
        }),
      ]),
    );
    const outcome = await hooks.sessionStart({ source: 'startup' });
    expect(outcome.additionalContext).toEqual(['branch: main', 'use pnpm']);
  });

  it('sends the source and honours a source matcher', async () => {
    const { hooks, records } = project.runner({
      SessionStart: [
        group('cat > in.json', { matcher: 'startup' }),
        group('touch compact', { matcher: 'compact' }),
      ],
    });
    await hooks.sessionStart({ source: 'startup' });
    expect(JSON.parse(project.read('in.json'))).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    expect(records.map((record) => record.command)).toEqual(['cat > in.json']);
  });

  it('does not block on exit 2; stderr is a message for the user', async () => {
    const { hooks, records } = project.runner(
      on('SessionStart', ['echo "setup warning" >&2; exit 2']),
    );
    const outcome = await hooks.sessionStart({ source: 'startup' });
    expect(outcome).toMatchObject({ additionalContext: [], systemMessages: ['setup warning'] });
    expect(records[0]?.decision).toBeUndefined();
  });

  it('does not take invalid JSON as context', async () => {
    const { hooks, records } = project.runner(on('SessionStart', ["echo '{not json'"]));
    const outcome = await hooks.sessionStart({ source: 'startup' });
    expect(outcome.additionalContext).toEqual([]);
    expect(records[0]?.error).toMatch(/invalid JSON/);
  });
});

describe('createHookRunner: userPromptSubmit', () => {
  it('sends the prompt and adds plain stdout to the context', async () => {
    const { hooks } = project.runner(
      on('UserPromptSubmit', ['cat > in.json; echo "today is Monday"']),
    );
    const outcome = await hooks.userPromptSubmit({ prompt: 'fix the build' });
    expect(JSON.parse(project.read('in.json'))).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      prompt: 'fix the build',
    });
    expect(outcome).toMatchObject({ additionalContext: ['today is Monday'] });
    expect(outcome.block).toBeUndefined();
  });

  it.each([
    ['exit 2', 'echo "no secrets in prompts" >&2; exit 2', 'no secrets in prompts'],
    ['decision block', echo({ decision: 'block', reason: 'prompt too vague' }), 'prompt too vague'],
  ])('blocks the prompt on %s', async (_, command, reason) => {
    const { hooks } = project.runner(on('UserPromptSubmit', [command]));
    const outcome = await hooks.userPromptSubmit({ prompt: 'x' });
    expect(outcome.block?.reason).toBe(
      `UserPromptSubmit hook ${JSON.stringify(command)} blocked the prompt: ${reason}`,
    );
  });
});

describe('createHookRunner: sessionEnd', () => {
  it('sends the reason and records the run', async () => {
    const { hooks } = project.runner(on('SessionEnd', ['cat > in.json; echo bye >&2; exit 2']));
    const outcome = await hooks.sessionEnd({ reason: 'other' });
    expect(JSON.parse(project.read('in.json'))).toMatchObject({
      hook_event_name: 'SessionEnd',
      reason: 'other',
    });
    expect(outcome).toEqual({
      systemMessages: ['bye'],
      runs: [expect.objectContaining({ event: 'SessionEnd', exitCode: 2 })],
    });
  });
});

describe('createHookRunner: preCompact', () => {
  it('sends the trigger, matches on it, and lets the compaction go on when the hook exits 0', async () => {
    const { hooks, records } = project.runner({
      PreCompact: [
        group('cat > in.json', { matcher: 'auto' }),
        group('touch manual', { matcher: 'manual' }),
      ],
    });
    const outcome = await hooks.preCompact({ trigger: 'auto' });
    expect(outcome.block).toBeUndefined();
    expect(JSON.parse(project.read('in.json'))).toMatchObject({
      hook_event_name: 'PreCompact',
      trigger: 'auto',
      custom_instructions: '',
    });
    expect(records.map((record) => record.command)).toEqual(['cat > in.json']);
  });

  it('blocks the compaction on exit 2 or decision "block", naming the hook', async () => {
    const stderr = project.runner(on('PreCompact', ['echo "keep the full log" >&2; exit 2']));
    expect((await stderr.hooks.preCompact({ trigger: 'auto' })).block?.reason).toBe(
      'PreCompact hook "echo \\"keep the full log\\" >&2; exit 2" blocked the compaction: keep the full log',
    );
    const json = project.runner(on('PreCompact', [echo({ decision: 'block', reason: 'not now' })]));
    const outcome = await json.hooks.preCompact({ trigger: 'auto' });
    expect(outcome.block?.reason).toMatch(/blocked the compaction: not now$/);
    expect(json.records[0]?.decision).toBe('block');
  });
});
