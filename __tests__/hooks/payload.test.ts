import { describe, expect, it } from 'vitest';
import { commonFields, toolInputAsSent } from '../../src/hooks/payload.js';

const values = {
  sessionId: 's',
  transcriptPath: '/t.jsonl',
  cwd: '/repo',
  promptId: 'p',
  permissionMode: 'default' as const,
  effort: 'high',
};

// Which events carry prompt_id and effort, as observed in Claude Code 2.1.197.
describe('commonFields', () => {
  it.each(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SubagentStop'] as const)(
    'gives %s prompt_id and effort, in Claude Code order',
    (event) => {
      expect(Object.keys(commonFields(event, values))).toEqual([
        'session_id',
        'transcript_path',
        'cwd',
        'prompt_id',
        'permission_mode',
        'effort',
        'hook_event_name',
      ]);
      expect(commonFields(event, values).effort).toEqual({ level: 'high' });
    },
  );

  it.each(['UserPromptSubmit', 'SessionEnd', 'PreCompact'] as const)(
    'gives %s prompt_id without effort',
    (event) => {
      const fields = commonFields(event, values);
      expect(fields.prompt_id).toBe('p');
      expect(fields).not.toHaveProperty('effort');
    },
  );

  it('gives SessionStart no prompt_id: the prompt does not exist yet', () => {
    expect(commonFields('SessionStart', values)).not.toHaveProperty('prompt_id');
  });

  it("adds a subagent's id and type after the event name", () => {
    const fields = commonFields('SubagentStop', {
      ...values,
      agent: { id: 'a1', type: 'Explore' },
    });
    expect(Object.keys(fields).slice(-3)).toEqual(['hook_event_name', 'agent_id', 'agent_type']);
  });
});

describe('toolInputAsSent', () => {
  it("fills in Edit's replace_all: false when the model left it out", () => {
    const input = { file_path: '/a', old_string: 'x', new_string: 'y' };
    expect(toolInputAsSent('Edit', input)).toEqual({ ...input, replace_all: false });
    expect(input).not.toHaveProperty('replace_all');
  });

  it('keeps what the model sent otherwise, and other tools as they are', () => {
    const edit = { file_path: '/a', old_string: 'x', new_string: 'y', replace_all: true };
    expect(toolInputAsSent('Edit', edit)).toBe(edit);
    const bash = { command: 'ls' };
    expect(toolInputAsSent('Bash', bash)).toBe(bash);
    expect(toolInputAsSent('Edit', 'not an object')).toBe('not an object');
  });
});
