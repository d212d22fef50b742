import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookProject } from './hook-fixture.js';
import { makeHookProject, on, preRequest } from './hook-fixture.js';

let project: HookProject;
beforeEach(() => {
  project = makeHookProject();
});
afterEach(() => project.cleanup());

/** Runs one PreToolUse hook (a bash script with this body) for a Bash call. */
async function preWith(body: string, options: { required?: boolean } = {}) {
  const script = await project.script('hook.sh', `#!/bin/bash\n${body}\n`);
  const { hooks, records } = project.runner(on('PreToolUse', [script], options));
  const outcome = await hooks.preToolUse(preRequest());
  return { outcome, records, script, label: JSON.stringify(script) };
}

const json = (value: unknown) => `cat <<'EOF'\n${JSON.stringify(value)}\nEOF`;

describe('createHookRunner: preToolUse', () => {
  describe('when the hook exits 0', () => {
    it('renders no decision when it prints nothing', async () => {
      const { outcome, records, script } = await preWith('exit 0');
      expect(outcome).toEqual({ additionalContext: [], systemMessages: [], runs: records });
      expect(records).toEqual([
        {
          event: 'PreToolUse',
          matcher: '',
          command: script,
          exitCode: 0,
          durationMs: expect.any(Number) as number,
          status: 'completed',
          source: 'test-settings.json',
          toolName: 'Bash',
          toolUseId: 'toolu_1',
        },
      ]);
    });

    it('ignores plain text on stdout', async () => {
      const { outcome, records } = await preWith('echo "looks fine to me"');
      expect(outcome.decision).toBeUndefined();
      expect(outcome.additionalContext).toEqual([]);
      expect(records[0]?.error).toBeUndefined();
    });

    it.each(['allow', 'deny', 'ask'] as const)(
      'takes permissionDecision %s with its reason',
      async (behavior) => {
        const { outcome, records, label } = await preWith(
          json({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: behavior,
              permissionDecisionReason: `because ${behavior}`,
            },
          }),
        );
        expect(outcome.decision).toEqual({
          behavior,
          reason: `because ${behavior}`,
          source: label,
        });
        expect(records[0]?.decision).toBe(behavior);
      },
    );

    it('treats the current-only permissionDecision defer as ask', async () => {
      const { outcome } = await preWith(
        json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer' } }),
      );
      expect(outcome.decision?.behavior).toBe('ask');
    });

    it.each([
      ['approve', 'allow'],
      ['block', 'deny'],
    ] as const)('maps the deprecated decision %s to %s', async (decision, behavior) => {
      const { outcome } = await preWith(json({ decision, reason: 'legacy' }));
      expect(outcome.decision).toMatchObject({ behavior, reason: 'legacy' });
    });

    it('prefers permissionDecision over the deprecated decision', async () => {
      const { outcome } = await preWith(
        json({
          decision: 'approve',
          hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' },
        }),
      );
      expect(outcome.decision?.behavior).toBe('deny');
    });

    it('passes an updatedInput object through for the pipeline to validate', async () => {
      const updatedInput = { command: 'ls -la', description: 'list', extra: [1, { deep: true }] };
      const { outcome } = await preWith(
        json({
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'allow',
            updatedInput,
          },
        }),
      );
      expect(outcome.updatedInput).toEqual(updatedInput);
    });

    it('returns additionalContext and systemMessage, and accepts suppressOutput', async () => {
      const { outcome, records } = await preWith(
        json({
          suppressOutput: true,
          systemMessage: 'note for the user',
          hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'repo uses pnpm' },
        }),
      );
      expect(outcome.additionalContext).toEqual(['repo uses pnpm']);
      expect(outcome.systemMessages).toEqual(['note for the user']);
      expect(records[0]?.systemMessage).toBe('note for the user');
    });

    it('stops the run and denies the call on continue: false', async () => {
      const { outcome, records, label } = await preWith(
        json({ continue: false, stopReason: 'budget reached' }),
      );
      expect(outcome.stop).toEqual({
        reason: `PreToolUse hook ${label} stopped the run: budget reached`,
      });
      expect(outcome.decision).toEqual({
        behavior: 'deny',
        source: label,
        reason: 'it stopped the run: budget reached',
      });
      expect(records[0]?.decision).toBe('stop');
    });

    it.each([
      ['{"continue":true}'],
      ['{"action":"continue"}'],
      ['{"block":true,"message":"nope"}'],
      ['{"feedback":"fine"}'],
      ['{}'],
    ])('treats %s as a valid no-op', async (output) => {
      const { outcome, records } = await preWith(`echo '${output}'`);
      expect(outcome.decision).toBeUndefined();
      expect(outcome.stop).toBeUndefined();
      expect(records[0]?.error).toBeUndefined();
    });

    it.each([
      ['{"decision": ', /invalid JSON/],
      ['{"permissionDecision": "deny"} trailing', /invalid JSON/],
      ['{"decision":"allow"}', /failed validation \(decision: /],
      ['{"continue":"no"}', /failed validation \(continue: /],
      [
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}',
        /failed validation \(hookSpecificOutput\.permissionDecision: /,
      ],
      [
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":["ls"]}}',
        /failed validation \(hookSpecificOutput\.updatedInput: /,
      ],
      [
        '{"hookSpecificOutput":{"permissionDecision":"deny"}}',
        /failed validation \(hookSpecificOutput\.hookEventName: /,
      ],
      [
        '{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}',
        /hookSpecificOutput for "PostToolUse" but ran for PreToolUse/,
      ],
    ])('logs %s as a non-blocking error without a decision', async (output, error) => {
      const { outcome, records } = await preWith(`echo '${output}'`);
      expect(outcome.decision).toBeUndefined();
      expect(records[0]?.error).toMatch(error);
      expect(records[0]?.decision).toBeUndefined();
    });

    it('caps a reason at 10,000 characters', async () => {
      const { outcome } = await preWith(
        `python3 -c 'import json; print(json.dumps({"decision":"block","reason":"r"*20000}))'`,
      );
      expect(outcome.decision?.reason).toBe(`${'r'.repeat(10_000)}… [10000 more characters cut]`);
    });
  });

  describe('when the hook exits 2', () => {
    it('denies with stderr as the reason', async () => {
      const { outcome, records, label } = await preWith('echo "rm is forbidden here" >&2; exit 2');
      expect(outcome.decision).toEqual({
        behavior: 'deny',
        reason: 'rm is forbidden here',
        source: label,
      });
      expect(records[0]).toMatchObject({
        exitCode: 2,
        decision: 'deny',
        stderrExcerpt: 'rm is forbidden here',
      });
    });

    it('denies even when stdout says allow', async () => {
      const { outcome } = await preWith(
        `${json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })}\necho no >&2\nexit 2`,
      );
      expect(outcome.decision).toMatchObject({ behavior: 'deny', reason: 'no' });
    });

    it('gives a default reason when stderr is empty', async () => {
      const { outcome } = await preWith('exit 2');
      expect(outcome.decision?.reason).toBe('the hook exited with code 2 and gave no reason');
    });
  });

  describe('when the hook fails', () => {
    it('logs another exit code with the first stderr line and decides nothing', async () => {
      const { outcome, records } = await preWith('echo "first" >&2; echo "second" >&2; exit 1');
      expect(outcome.decision).toBeUndefined();
      expect(records[0]).toMatchObject({
        exitCode: 1,
        status: 'completed',
        error: 'exited with code 1 (first)',
        stderrExcerpt: 'first\nsecond',
      });
    });

    it('ignores stdout JSON of a hook that exits 1', async () => {
      const { outcome } = await preWith(`${json({ decision: 'block', reason: 'x' })}\nexit 1`);
      expect(outcome.decision).toBeUndefined();
    });

    it('treats a missing script (exit 127) as non-blocking', async () => {
      const { hooks, records } = project.runner(
        on('PreToolUse', [project.path('hooks/missing.sh')]),
      );
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toBeUndefined();
      expect(records[0]).toMatchObject({
        exitCode: 127,
        error: expect.stringMatching(/^exited with code 127 \(.*not found/) as string,
      });
    });

    it('records a hook that never started, with no exit code', async () => {
      const { hooks, records } = project.runner(on('PreToolUse', ['true']), {
        cwd: () => project.path('gone'),
      });
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toBeUndefined();
      expect(records[0]).toMatchObject({
        exitCode: null,
        status: 'failed-to-start',
        error: `could not start: its working directory ${project.path('gone')} does not exist`,
      });
    });

    it('renders no decision when the hook times out', async () => {
      const { hooks, records } = project.runner(
        on('PreToolUse', ['echo "deny" >&2; sleep 5; exit 2'], { timeout: 0.3 }),
      );
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toBeUndefined();
      expect(records[0]).toMatchObject({
        status: 'timed-out',
        error: 'timed out after 0.3 s and was killed',
      });
    });
  });

  describe('when a failing hook is required', () => {
    const denied = (label: string, failure: string) => ({
      behavior: 'deny',
      source: label,
      reason: `it is a required hook and it ${failure}; a required hook that fails blocks the call`,
    });

    it('blocks on a missing script', async () => {
      const missing = project.path('hooks/missing.sh');
      const { hooks, records } = project.runner(on('PreToolUse', [missing], { required: true }));
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toMatchObject({ behavior: 'deny', source: JSON.stringify(missing) });
      expect(outcome.decision?.reason).toMatch(
        /^it is a required hook and it exited with code 127/,
      );
      expect(records[0]).toMatchObject({ required: true, decision: 'deny', exitCode: 127 });
    });

    it('blocks on a script that is not executable (exit 126)', async () => {
      const path = await project.write('hooks/plain.sh', '#!/bin/bash\nexit 0\n');
      const { hooks } = project.runner(on('PreToolUse', [path], { required: true }));
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision?.reason).toMatch(
        /required hook and it exited with code 126 \(.*[Pp]ermission denied/,
      );
    });

    it('blocks on a crash', async () => {
      const { outcome, label } = await preWith('echo boom >&2; exit 1', { required: true });
      expect(outcome.decision).toEqual(denied(label, 'exited with code 1 (boom)'));
    });

    it('blocks on invalid JSON', async () => {
      const { outcome } = await preWith("echo '{oops'", { required: true });
      expect(outcome.decision?.reason).toMatch(/required hook and it printed invalid JSON/);
    });

    it('blocks on a timeout', async () => {
      const { hooks } = project.runner(
        on('PreToolUse', ['sleep 5'], { timeout: 0.3, required: true }),
      );
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toEqual(denied('"sleep 5"', 'timed out after 0.3 s and was killed'));
    });

    it('blocks when the hook never ran', async () => {
      const { hooks, records } = project.runner(on('PreToolUse', ['true'], { required: true }), {
        cwd: () => project.path('gone'),
      });
      const outcome = await hooks.preToolUse(preRequest());
      expect(outcome.decision).toEqual(
        denied(
          '"true"',
          `could not start: its working directory ${project.path('gone')} does not exist`,
        ),
      );
      expect(records[0]).toMatchObject({
        status: 'failed-to-start',
        exitCode: null,
        required: true,
      });
    });

    it('blocks when the call is cancelled before the hook ran', async () => {
      const { hooks } = project.runner(on('PreToolUse', ['true'], { required: true }));
      const controller = new AbortController();
      controller.abort();
      const outcome = await hooks.preToolUse({ ...preRequest(), signal: controller.signal });
      expect(outcome.decision?.reason).toMatch(/required hook and it was cancelled/);
    });

    it('lets the hook decide when it works', async () => {
      const { outcome } = await preWith(json({ decision: 'approve' }), { required: true });
      expect(outcome.decision?.behavior).toBe('allow');
    });

    it('does not block on PostToolUse, where required has no meaning', async () => {
      const { hooks } = project.runner(on('PostToolUse', ['exit 1'], { required: true }));
      const outcome = await hooks.postToolUse({ ...preRequest(), toolResponse: {} });
      expect(outcome.block).toBeUndefined();
    });
  });
});
