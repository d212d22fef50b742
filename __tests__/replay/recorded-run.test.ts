import { describe, expect, it } from 'vitest';
import { parseRecordedRun, ReplayInputError } from '../../src/replay/recorded-run.js';
import { comparableText, mapPaths } from '../../src/replay/replay-paths.js';

const init = {
  type: 'system',
  subtype: 'init',
  cwd: '/work/repo',
  tools: ['Bash', 'Read'],
  model: 'claude-sonnet-5-5',
  permissionMode: 'default',
  ci_agent_sandbox: 'none',
  ci_agent_commit: 'a'.repeat(40),
  ci_agent_policy: [{ path: '.github/ci-agent.yml', kind: 'policy', sha256: 'b'.repeat(64) }],
};
const assistant = (id: string, content: unknown[], extra: object = {}) => ({
  type: 'assistant',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5-5',
    content,
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  },
  parent_tool_use_id: null,
  ...extra,
});
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } };
const decision = {
  type: 'system',
  subtype: 'permission_decision',
  tool_use_id: 'toolu_1',
  tool_name: 'Bash',
  behavior: 'allow',
  ask_resolved: false,
  decision_source: 'allow-rule',
  rules: [{ rule: 'Bash(ls)', source: '.github/ci-agent.yml' }],
  reason: 'allowed',
};
const user = {
  type: 'user',
  message: {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a\nb' }],
  },
  parent_tool_use_id: null,
};
const result = { type: 'result', subtype: 'success', num_turns: 2, is_error: false };
const log = (...lines: unknown[]) => lines.map((line) => JSON.stringify(line)).join('\n');

function failure(text: string): string {
  try {
    parseRecordedRun(text, 'run.jsonl');
  } catch (error) {
    expect(error).toBeInstanceOf(ReplayInputError);
    return (error as Error).message;
  }
  throw new Error('expected the log to be refused');
}

describe('parseRecordedRun', () => {
  it('keeps each compaction with the turn whose request came after it', () => {
    const boundary = (summary: string) => ({
      type: 'system',
      subtype: 'compact_boundary',
      compact_metadata: { trigger: 'auto', pre_tokens: 9000 },
      ci_agent_summary: summary,
    });
    const run = parseRecordedRun(
      log(
        init,
        assistant('msg_1', [toolUse]),
        decision,
        user,
        boundary('first summary'),
        assistant('msg_2', []),
        boundary('second summary'),
        result,
      ),
      'run.jsonl',
    );
    expect(run.compactions).toEqual([
      { beforeTurn: 1, summary: 'first summary' },
      { beforeTurn: 2, summary: 'second summary' },
    ]);
  });

  it('reads the session, the turns, each call with its decision and result, and the end', () => {
    const run = parseRecordedRun(
      log(init, assistant('msg_1', [toolUse]), decision, user, assistant('msg_2', []), result),
      'run.jsonl',
    );
    expect(run).toMatchObject({
      cwd: '/work/repo',
      commit: 'a'.repeat(40),
      policy: init.ci_agent_policy,
      sandbox: 'none',
      outcome: { subtype: 'success', numTurns: 2 },
    });
    expect(run.turns.map((turn) => turn.id)).toEqual(['msg_1', 'msg_2']);
    expect(run.calls).toEqual([{ id: 'toolu_1', name: 'Bash', input: { command: 'ls' }, turn: 0 }]);
    expect(run.decisions.get('toolu_1')).toMatchObject({ behavior: 'allow', source: 'allow-rule' });
    expect(run.results.get('toolu_1')).toEqual({ content: 'a\nb', isError: false });
  });

  it('tells a log from before the commit was recorded', () => {
    const { ci_agent_commit: _commit, ci_agent_policy: _policy, ...older } = init;
    const run = parseRecordedRun(log(older, assistant('msg_1', []), result), 'run.jsonl');
    expect(run.commit).toBeUndefined();
    expect(run.policy).toBeUndefined();
  });

  describe('when the log cannot be replayed', () => {
    it('names a line in the middle that is not JSON', () => {
      expect(failure(`${log(init)}\nnot json\n${log(result)}`)).toBe(
        'run.jsonl:2: not a JSON line: a tool log has one JSON object per line',
      );
    });

    it.each([
      ['/', 'cwd: expected an absolute path of a folder below /'],
      ['repo', 'cwd: expected an absolute path of a folder below /'],
    ])('refuses the workspace %j, under which every path would move', (cwd, message) => {
      expect(failure(log({ ...init, cwd }, result))).toBe(`run.jsonl:1: ${message}`);
    });

    it('refuses a commit that is not a full commit id', () => {
      expect(failure(log({ ...init, ci_agent_commit: '--output=/tmp/x' }, result))).toBe(
        'run.jsonl:1: ci_agent_commit: expected a full commit id (40 or 64 hex digits)',
      );
    });

    it('refuses a log that does not start with system/init', () => {
      expect(failure(log(result))).toContain(
        'run.jsonl:1: expected the system/init line first, found result',
      );
    });

    it('names the field of a line of the wrong shape', () => {
      expect(failure(log(init, { ...decision, behavior: 3 }, result))).toMatch(
        /^run\.jsonl:2: behavior: /,
      );
    });

    it("refuses a subagent's lines", () => {
      const inner = assistant('msg_2', [], { parent_tool_use_id: 'toolu_agent' });
      expect(failure(log(init, inner, result))).toContain(
        'run.jsonl:2: a subagent\'s line (parent_tool_use_id "toolu_agent"): replaying runs with subagents',
      );
    });

    it('refuses a compaction whose summary is not in the log (an older log)', () => {
      const boundary = { type: 'system', subtype: 'compact_boundary' };
      expect(failure(log(init, boundary, result))).toBe(
        'run.jsonl:2: the run compacted its context, and this log does not have the summary the model wrote for it (ci_agent_summary: an older ci-agent wrote it), so it cannot be replayed',
      );
      expect(failure(log(init, { ...boundary, ci_agent_summary: 7 }, result))).toMatch(
        /^run\.jsonl:2: ci_agent_summary: /,
      );
    });

    it('refuses two runs in one file', () => {
      expect(failure(log(init, result, assistant('msg_1', [])))).toContain(
        'run.jsonl:3: a line after the result line',
      );
    });

    it('refuses an empty file', () => {
      expect(failure('\n')).toBe('run.jsonl: empty: no system/init line');
    });
  });
});

describe('mapPaths', () => {
  it('moves every path under the recorded workspace to the replay', () => {
    expect(
      mapPaths(
        { file_path: '/work/repo/a.js', edits: ['cd /work/repo && ls'] },
        '/work/repo',
        '/t/x',
      ),
    ).toEqual({ file_path: '/t/x/a.js', edits: ['cd /t/x && ls'] });
  });
});

describe('comparableText', () => {
  it('leaves out the workspace path and timings, and nothing else', () => {
    const text = (duration: string, count: number) =>
      comparableText(
        `✔ mean (${duration}ms)\nℹ duration_ms ${duration}\nat /w/test.js:${count}\n`,
        '/w',
      );
    expect(text('0.5', 6)).toBe(text('123.25', 6));
    expect(text('0.5', 6)).toBe('✔ mean (<time>)\nℹ duration_ms <n>\nat <workspace>/test.js:6\n');
    expect(text('0.5', 6)).not.toBe(text('0.5', 7));
  });

  it.each([
    ['TAP', '  duration_ms: 1.810588', '  duration_ms: <n>'],
    ['pytest', '2 passed in 0.12s', '2 passed in <time>'],
    ['jest', 'Time:        1.234 s', 'Time:        <time>'],
  ])("leaves out %s's timings", (_, line, expected) => {
    expect(comparableText(line, '/w')).toBe(expected);
  });

  it('keeps numbers that are not timings', () => {
    expect(comparableText('ℹ tests 2\n  + 1.6666666666666667\nexit 1s2', '/w')).toBe(
      'ℹ tests 2\n  + 1.6666666666666667\nexit 1s2',
    );
  });

  it('joins text blocks and names the others', () => {
    expect(
      comparableText(
        [
          { type: 'text', text: 'a' },
          { type: 'image', source: {} },
        ],
        '/w',
      ),
    ).toBe('a\n[image block]');
  });
});
