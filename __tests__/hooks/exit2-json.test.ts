/**
 * Exit 2 with a blocking JSON on stdout, as Claude Code 2.1.197 handles it (observed with
 * `claude -p` and real hook scripts): the JSON's reason reaches the model even when stderr has
 * text; without a blocking JSON, stderr does; the block holds either way.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookProject } from './hook-fixture.js';
import { makeHookProject, on, preRequest } from './hook-fixture.js';

let project: HookProject;
beforeEach(() => {
  project = makeHookProject();
});
afterEach(() => project.cleanup());

/** A bash hook that reads its payload, prints this on stdout and that on stderr, and exits 2. */
async function exit2(stdout: unknown, stderr = 'stderr text') {
  const printed = stdout === undefined ? '' : `cat <<'EOF'\n${JSON.stringify(stdout)}\nEOF\n`;
  return project.script(
    'hook.sh',
    `#!/bin/bash\ncat > /dev/null\n${printed}echo '${stderr}' >&2\nexit 2\n`,
  );
}

/** A merged reason: the hook's label, then what it said (and nothing of stderr when unused). */
const says = (text: string) => expect.stringMatching(new RegExp(`: ${text}$`)) as string;

const deny = (reason: string) => ({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: reason,
  },
});

describe('createHookRunner: preToolUse after exit 2', () => {
  it.each([
    ['permissionDecision deny', deny('JSON reason pre')],
    ['decision block', { decision: 'block', reason: 'JSON reason pre' }],
  ])('denies with the reason of a %s JSON, not stderr', async (_form, output) => {
    const script = await exit2(output);
    const { hooks, records } = project.runner(on('PreToolUse', [script]));
    const outcome = await hooks.preToolUse(preRequest());
    expect(outcome.decision).toEqual({
      behavior: 'deny',
      reason: 'JSON reason pre',
      source: JSON.stringify(script),
    });
    expect(records[0]).toMatchObject({ decision: 'deny', stderrExcerpt: 'stderr text' });
  });

  it('denies with stderr when stdout holds no JSON', async () => {
    const { hooks } = project.runner(on('PreToolUse', [await exit2(undefined, 'plain reason')]));
    expect((await hooks.preToolUse(preRequest())).decision).toMatchObject({
      behavior: 'deny',
      reason: 'plain reason',
    });
  });

  it('denies with stderr when the JSON allows: exit 2 cannot be lifted', async () => {
    const allow = {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'looks fine',
      },
    };
    const { hooks } = project.runner(on('PreToolUse', [await exit2(allow, 'stderr says no')]));
    expect((await hooks.preToolUse(preRequest())).decision).toMatchObject({
      behavior: 'deny',
      reason: 'stderr says no',
    });
  });

  it('denies with stderr when the JSON fails validation', async () => {
    const { hooks } = project.runner(
      on('PreToolUse', [await exit2({ decision: 'maybe', reason: 'unused' }, 'bad json')]),
    );
    expect((await hooks.preToolUse(preRequest())).decision).toMatchObject({
      behavior: 'deny',
      reason: 'bad json',
    });
  });

  it('denies with stderr when the deny JSON gives no reason', async () => {
    const bare = {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' },
    };
    const { hooks } = project.runner(on('PreToolUse', [await exit2(bare, 'from stderr')]));
    expect((await hooks.preToolUse(preRequest())).decision?.reason).toBe('from stderr');
  });

  it('keeps the rest of the JSON: its context and its systemMessage', async () => {
    const output = {
      ...deny('no'),
      systemMessage: 'for the log',
      hookSpecificOutput: { ...deny('no').hookSpecificOutput, additionalContext: 'ctx' },
    };
    const { hooks } = project.runner(on('PreToolUse', [await exit2(output)]));
    const outcome = await hooks.preToolUse(preRequest());
    expect(outcome.decision?.reason).toBe('no');
    expect(outcome.additionalContext).toEqual(['ctx']);
    expect(outcome.systemMessages).toEqual(['for the log']);
  });
});

describe('createHookRunner: postToolUse after exit 2', () => {
  const post = { ...preRequest(), toolResponse: { stdout: 'post' } };

  it("blocks with a decision block JSON's reason, not stderr", async () => {
    const script = await exit2({ decision: 'block', reason: 'JSON reason post' });
    const { hooks } = project.runner(on('PostToolUse', [script]));
    expect((await hooks.postToolUse(post)).block).toEqual({ reason: says('JSON reason post') });
  });

  it('blocks with stderr when stdout holds no JSON', async () => {
    const { hooks } = project.runner(on('PostToolUse', [await exit2(undefined, 'post stderr')]));
    expect((await hooks.postToolUse(post)).block).toEqual({ reason: says('post stderr') });
  });

  it('blocks with stderr when the JSON does not block', async () => {
    const context = {
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'c' },
    };
    const { hooks } = project.runner(on('PostToolUse', [await exit2(context, 'post stderr')]));
    const outcome = await hooks.postToolUse(post);
    expect(outcome.block).toEqual({ reason: says('post stderr') });
    expect(outcome.additionalContext).toEqual(['c']);
  });
});

describe('createHookRunner: stop after exit 2', () => {
  it("continues with a decision block JSON's reason, not stderr", async () => {
    const script = await exit2({ decision: 'block', reason: 'stop JSON reason' });
    const { hooks } = project.runner(on('Stop', [script]));
    const outcome = await hooks.stop({ stopHookActive: false });
    expect(outcome.continueWith).toEqual({ reason: says('stop JSON reason') });
  });

  it('continues with stderr when stdout holds no JSON', async () => {
    const { hooks } = project.runner(on('Stop', [await exit2(undefined, 'keep going')]));
    expect((await hooks.stop({ stopHookActive: false })).continueWith).toEqual({
      reason: says('keep going'),
    });
  });
});

describe('createHookRunner: sessionStart after exit 2', () => {
  it('cannot block; the JSON context still counts, its message and stderr go to the user', async () => {
    const output = {
      systemMessage: 'from the JSON',
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'repo notes' },
    };
    const { hooks } = project.runner(on('SessionStart', [await exit2(output, 'from stderr')]));
    const outcome = await hooks.sessionStart({ source: 'startup' });
    expect(outcome.additionalContext).toEqual(['repo notes']);
    expect(outcome.systemMessages).toEqual([expect.stringContaining('from the JSON\nfrom stderr')]);
    expect(outcome.stop).toBeUndefined();
  });
});
