/**
 * The audit's reading of a real run's tool log (the built CLI, audit-fixture.ts) and its account
 * as text and JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainJson, explainRun, neutralise, renderExplainText } from '../../src/audit/explain.js';
import { RESULT_TEXT_CHARS, readAuditRun } from '../../src/audit/records.js';
import type { AuditRun } from '../../src/audit/records.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { ANSI_ATTACK, SCRIPT_ATTACK, auditedRun } from './audit-fixture.js';

let cli: CliRun;
let run: AuditRun;
beforeAll(async () => {
  cli = await auditedRun();
  run = readAuditRun(cli.lines);
}, 60_000);
afterAll(() => cli?.workspace.cleanup());

describe('readAuditRun', () => {
  it('finds every call in the order the model made it, the subagent’s among them', () => {
    expect(cli.code, cli.stderr).toBe(0);
    expect(run.problems).toEqual([]);
    expect(run.calls.map((call) => [call.index, call.toolUseId, call.tool])).toEqual([
      [1, 'toolu_01', 'Read'],
      [2, 'toolu_02', 'Read'],
      [3, 'toolu_03', 'Bash'],
      [4, 'toolu_04', 'Bash'],
      [5, 'toolu_05', 'Edit'],
      [6, 'toolu_06', 'Agent'],
      [7, 'toolu_07', 'Read'],
    ]);
    expect(run.calls[6]?.parentToolUseId).toBe('toolu_06');
    expect(run.calls[5]?.parentToolUseId).toBeUndefined();
    expect(run.subagents).toEqual([
      expect.objectContaining({
        parentToolUseId: 'toolu_06',
        agentType: 'Explore',
        status: 'success',
      }),
    ]);
  });

  it('gives each call its decision, the rule and the file it came from, hooks and result', () => {
    const [, secret, rm, echo, edit] = run.calls;
    expect(secret?.decision).toMatchObject({
      behavior: 'deny',
      source: 'deny-rule',
      rules: [{ rule: 'Read(./secret.env)', source: '.claude/settings.json' }],
    });
    expect(secret?.stage).toBe('permission');
    expect(secret?.result?.isError).toBe(true);
    expect(rm?.decision).toMatchObject({ behavior: 'deny', source: 'hook' });
    expect(rm?.hooks).toEqual([
      expect.objectContaining({
        event: 'PreToolUse',
        command: 'sh hooks/block-rm.sh',
        exitCode: 2,
        decision: 'deny',
        stderr: 'rm is forbidden here',
        source: '.claude/settings.json',
      }),
    ]);
    expect(echo?.decision?.rules).toEqual([
      { rule: 'Bash(echo:*)', source: '.claude/settings.json' },
    ]);
    expect(echo?.result).toMatchObject({ isError: false, truncated: false });
    expect(echo?.result?.text).toContain(ANSI_ATTACK);
    expect(edit?.hooks[0]?.error).toMatch(/invalid JSON/);
    expect(typeof edit?.durationMs).toBe('number');
    expect(run.outcome).toMatchObject({ subtype: 'success', isError: false, permissionDenials: 2 });
    expect(run.setting?.cwd).toBe(cli.workspace.root);
  });

  it('reads a log whose lines carry a field it does not know (a chain hash) the same', () => {
    const chained = cli.lines.map((line, index) => ({ ...line, chain: `sha256:${index}` }));
    expect(readAuditRun(chained)).toEqual(run);
  });

  describe('when lines are malformed', () => {
    it('reports each with its line number and goes on', () => {
      const lines: unknown[] = [...cli.lines];
      const decisionAt = lines.findIndex(
        (line) => (line as { subtype?: string }).subtype === 'permission_decision',
      );
      lines[decisionAt] = { ...(lines[decisionAt] as object), behavior: 'maybe' };
      lines.splice(1, 0, undefined, 'text', [1]);
      lines.push({
        type: 'system',
        subtype: 'tool_call_end',
        tool_use_id: 'toolu_x',
        stage: 'completed',
        duration_ms: 1,
        is_error: false,
      });
      const read = readAuditRun(lines);
      expect(read.problems.map((problem) => problem.line)).toEqual([
        2,
        3,
        4,
        decisionAt + 4,
        lines.length,
      ]);
      expect(read.problems[3]?.message).toMatch(/permission_decision line with a bad `behavior`/);
      expect(read.problems[4]?.message).toContain('"toolu_x", a call no assistant line made');
      expect(read.calls).toHaveLength(7);
    });
  });

  it('keeps the first part of a long result and counts the rest', () => {
    const long = 'x'.repeat(RESULT_TEXT_CHARS + 10);
    const read = readAuditRun([
      {
        type: 'assistant',
        message: {
          content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'yes' } }],
        },
      },
      {
        type: 'user',
        message: {
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: long }] },
          ],
        },
      },
    ]);
    expect(read.calls[0]?.result).toEqual({
      isError: false,
      text: long.slice(0, RESULT_TEXT_CHARS),
      chars: RESULT_TEXT_CHARS + 10,
      truncated: true,
    });
    expect(read.outcome).toBeUndefined();
  });
});

describe('explainRun', () => {
  it('puts denials and hook failures first, in call order', () => {
    const { findings } = explainRun(run);
    expect(findings.map((finding) => [finding.code, finding.call?.toolUseId])).toEqual([
      ['call-denied', 'toolu_02'],
      ['call-denied', 'toolu_03'],
      ['hook-failed', 'toolu_05'],
    ]);
    expect(findings[0]?.rules).toEqual([
      { rule: 'Read(./secret.env)', source: '.claude/settings.json' },
    ]);
  });

  it('reports a failed session hook, and keeps retries and compaction as run events', () => {
    const explained = explainRun(
      readAuditRun([
        {
          type: 'system',
          subtype: 'api_retry',
          attempt: 1,
          max_retries: 10,
          error_message: 'overloaded',
        },
        {
          type: 'system',
          subtype: 'compact_boundary',
          compact_metadata: { trigger: 'auto', pre_tokens: 150000 },
        },
        {
          type: 'system',
          subtype: 'hook_response',
          event: 'Stop',
          command: 'sh hooks/slow.sh',
          exitCode: null,
          status: 'timed-out',
          source: '.github/ci-agent.yml',
        },
      ]),
    );
    expect(explained.findings).toEqual([
      {
        code: 'hook-failed',
        message: 'Stop hook sh hooks/slow.sh (.github/ci-agent.yml) failed: timed-out',
        line: 3,
      },
    ]);
    const text = renderExplainText(explained);
    expect(text).toContain('line 1: model request retried (attempt 1 of 10): overloaded');
    expect(text).toContain('line 2: the conversation was compacted (auto, 150000 tokens before)');
    expect(text).toMatch(/^Run: no result line/);
  });

  it('reports malformed lines as findings', () => {
    const { findings } = explainRun(readAuditRun([null]));
    expect(findings).toEqual([
      { code: 'log-line-malformed', message: 'line 1: not a JSON object', line: 1 },
    ]);
  });
});

describe('renderExplainText', () => {
  it('lists the findings, then every call with its decision, rule, file, hooks and result', () => {
    const text = renderExplainText(explainRun(run));
    const findingsAt = text.indexOf('Findings (3):');
    const callsAt = text.indexOf('Calls (7):');
    expect(findingsAt).toBeGreaterThan(0);
    expect(callsAt).toBeGreaterThan(findingsAt);
    expect(text).toMatch(/^Run: success, 5 turns, .*2 denied/);
    expect(text).toContain('rule: Read(./secret.env) from .claude/settings.json');
    expect(text).toContain('hook: PreToolUse sh hooks/block-rm.sh, exit 2, said deny');
    expect(text).toContain('#7 Read');
    expect(text).toContain('(subagent of toolu_06)');
  });

  it('shows ANSI escapes and other controls from the log as visible text, never raw', () => {
    const text = renderExplainText(explainRun(run));
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('\\x1b[31mred\\x1b[2J\\x07');
    expect(text).toContain(SCRIPT_ATTACK); // plain text in a terminal: shown as written
  });

  it('neutralises bidirectional overrides and carriage returns', () => {
    expect(neutralise('a\u202eb\rc\nd')).toBe('a\\u202eb\\x0dc\\x0ad');
    expect(neutralise('a\nb', { keepNewlines: true, indent: '  ' })).toBe('a\n  b');
  });
});

describe('explainJson', () => {
  it('has a stable shape with a format marker that survives JSON', () => {
    const json = JSON.parse(JSON.stringify(explainJson(explainRun(run)))) as Record<
      string,
      unknown
    >;
    expect(Object.keys(json).sort()).toEqual([
      'calls',
      'events',
      'findings',
      'format',
      'outcome',
      'problems',
      'sessionHooks',
      'setting',
      'subagents',
      'texts',
      'version',
    ]);
    expect(json).toMatchObject({ format: 'ci-agent-audit-explain', version: 1 });
    expect((json.calls as unknown[]).length).toBe(7);
  });
});
