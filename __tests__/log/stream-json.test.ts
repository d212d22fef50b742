import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';
import type { StreamJsonLine } from '../../src/log/stream-json.js';
import { StreamJsonMapper, resultLine, streamJsonSink } from '../../src/log/stream-json.js';
import {
  SESSION_ID,
  assistantMessage,
  hookRun,
  permissionDecision,
  resultEvent,
  runResult,
  sessionStart,
  toolResult,
  toolResultsMessage,
} from './events.js';

function mapAll(events: AgentEvent[], mapper = new StreamJsonMapper({ version: '9.9.9' })) {
  return events.flatMap((event) => mapper.map(event));
}

/** The lines of call events, once the assistant message that made those calls is out. */
function mapCalls(
  ids: string[],
  events: AgentEvent[],
  mapper = new StreamJsonMapper({ version: '9.9.9' }),
) {
  mapper.map(
    assistantMessage(
      '',
      ids.map((id) => [id, 'Bash', {}]),
    ),
  );
  return mapAll(events, mapper);
}

const kinds = (lines: StreamJsonLine[]) =>
  lines.map((line) => [line.type, line.subtype].filter(Boolean).join('/'));

describe('StreamJsonMapper', () => {
  it('maps a run to Claude Code’s shapes plus our audit lines, in event order', () => {
    const lines = mapAll([
      sessionStart,
      assistantMessage('Reading.', [['toolu_1', 'Read', { file_path: '/repo/a' }]]),
      { type: 'tool-call-start', toolUseId: 'toolu_1', toolName: 'Read', input: {} },
      { type: 'tool-progress', toolUseId: 'toolu_1', toolName: 'Read', message: '…' },
      permissionDecision('toolu_1', 'Read', 'allow'),
      toolResult('toolu_1', 'one\n'),
      toolResultsMessage(['toolu_1', 'one\n']),
      resultEvent(),
    ]);
    expect(kinds(lines)).toEqual([
      'system/init',
      'assistant',
      'system/permission_decision',
      'system/tool_call_end',
      'user',
      'result/success',
    ]);
    for (const line of lines) {
      expect(line.session_id).toBe(SESSION_ID);
      expect(line.uuid).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  describe("when a call's events come before the message that made it (tools start while it streams)", () => {
    const ids = (lines: StreamJsonLine[]) =>
      lines.map((line) => {
        const call = line.tool_use_id ?? line.parent_tool_use_id;
        const kind = [line.type, line.subtype].filter(Boolean).join('/');
        return typeof call === 'string' ? `${kind} ${call}` : kind;
      });

    it('holds the call’s lines until its assistant line is out, then writes them in order', () => {
      const mapper = new StreamJsonMapper({ version: '1' });
      const early = [
        permissionDecision('toolu_1', 'Bash', 'deny'),
        hookRun('no', 'toolu_1'),
        toolResult('toolu_1', 'denied', { isError: true, stage: 'permission' }),
      ].flatMap((event) => mapper.map(event));
      expect(early).toEqual([]);
      const lines = [
        assistantMessage('Deleting.', [['toolu_1', 'Bash', { command: 'rm x' }]]),
        toolResultsMessage(['toolu_1', 'denied']),
      ].flatMap((event) => mapper.map(event));
      expect(ids(lines)).toEqual([
        'assistant',
        'system/permission_decision toolu_1',
        'system/hook_response toolu_1',
        'system/tool_call_end toolu_1',
        'user',
      ]);
    });

    it('lets through at once the lines of a call whose message is out, and holds the next message’s', () => {
      const lines = mapAll([
        assistantMessage('One.', [['toolu_1', 'Read', {}]]),
        permissionDecision('toolu_1', 'Read', 'allow'),
        permissionDecision('toolu_2', 'Read', 'allow'),
        toolResult('toolu_1', 'a'),
        { ...assistantMessage('Two.', [['toolu_2', 'Read', {}]]), messageId: 'msg_2' },
        toolResult('toolu_2', 'b'),
      ]);
      expect(ids(lines)).toEqual([
        'assistant',
        'system/permission_decision toolu_1',
        'system/tool_call_end toolu_1',
        'assistant',
        'system/permission_decision toolu_2',
        'system/tool_call_end toolu_2',
      ]);
    });

    it('holds a subagent’s lines until the Agent call is out, and its calls until its own message is', () => {
      const sub = (event: AgentEvent): AgentEvent => ({
        type: 'subagent-event',
        parentToolUseId: 'toolu_agent',
        agentId: 'agent-1',
        agentType: 'Explore',
        event,
      });
      const lines = mapAll([
        sub(sessionStart),
        sub(permissionDecision('toolu_inner', 'Read', 'allow')),
        sub(assistantMessage('Looking.', [['toolu_inner', 'Read', {}]])),
        sub(toolResult('toolu_inner', 'x')),
        assistantMessage('Delegating.', [['toolu_agent', 'Agent', {}]]),
        sub(resultEvent()),
      ]);
      expect(ids(lines)).toEqual([
        'assistant',
        'system/subagent_start toolu_agent',
        'assistant toolu_agent',
        'system/permission_decision toolu_inner',
        'system/tool_call_end toolu_inner',
        'system/subagent_end toolu_agent',
      ]);
    });

    it('writes what still waits before the result line, so nothing is lost', () => {
      const lines = mapAll([
        sessionStart,
        permissionDecision('toolu_cut', 'Read', 'allow'),
        toolResult('toolu_cut', 'x'),
        resultEvent(),
      ]);
      expect(ids(lines)).toEqual([
        'system/init',
        'system/permission_decision toolu_cut',
        'system/tool_call_end toolu_cut',
        'result/success',
      ]);
    });
  });

  it('writes system/init with the tools, model, mode and our version', () => {
    const [init] = mapAll([sessionStart]);
    expect(init).toMatchObject({
      type: 'system',
      subtype: 'init',
      cwd: '/repo',
      tools: ['Bash', 'Read'],
      model: 'claude-sonnet-5-5',
      permissionMode: 'default',
      mcp_servers: [],
      ci_agent_version: '9.9.9',
    });
  });

  it('records the commit and the policy files by digest, for a replay', () => {
    const policy = [{ path: '.github/ci-agent.yml', kind: 'policy', sha256: 'ab'.repeat(32) }];
    const mapper = new StreamJsonMapper({ version: '9.9.9', policy });
    const [init] = mapAll([{ ...sessionStart, commit: 'c0ffee'.padEnd(40, '0') }], mapper);
    expect(init).toMatchObject({
      ci_agent_commit: 'c0ffee'.padEnd(40, '0'),
      ci_agent_policy: policy,
    });
  });

  it('writes a null commit outside a git checkout, and no policy when none is given', () => {
    const [init] = mapAll([sessionStart]);
    expect(init?.ci_agent_commit).toBeNull();
    expect(init).not.toHaveProperty('ci_agent_policy');
  });

  it('names the process scope that ends what each Bash call starts', () => {
    const [init] = mapAll([sessionStart]);
    expect(['pid-namespace', 'process-sweep']).toContain(init?.ci_agent_process_scope);
  });

  it('names the sandbox as the process scope of a sandboxed run: nothing runs outside it', () => {
    const mapper = new StreamJsonMapper({ version: '0.0.0', sandbox: 'bubblewrap 0.8.0: …' });
    const [init] = mapper.map(sessionStart);
    expect(init).toMatchObject({
      ci_agent_process_scope: 'sandbox',
      ci_agent_sandbox: 'bubblewrap 0.8.0: …',
    });
  });

  it('writes the assistant message as an Anthropic message', () => {
    const [, assistant] = mapAll([sessionStart, assistantMessage('Hi.')]);
    expect(assistant).toMatchObject({
      type: 'assistant',
      parent_tool_use_id: null,
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'Hi.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    });
  });

  it('writes one user line per tool_result, with the structured output beside it', () => {
    const lines = mapAll([toolResultsMessage(['toolu_1', 'a'], ['toolu_2', 'b'])]);
    expect(lines).toEqual([
      expect.objectContaining({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' }],
        },
        tool_use_result: { stdout: 'a' },
      }),
      expect.objectContaining({ tool_use_result: { stdout: 'b' } }),
    ]);
  });

  it('writes each permission decision with its source, rules and reason', () => {
    const [line] = mapCalls(
      ['toolu_2'],
      [permissionDecision('toolu_2', 'Bash', 'deny', 'rm is not allowed')],
    );
    expect(line).toMatchObject({
      type: 'system',
      subtype: 'permission_decision',
      tool_use_id: 'toolu_2',
      tool_name: 'Bash',
      behavior: 'deny',
      ask_resolved: true,
      decision_source: 'default',
      rules: [{ rule: 'Bash(rm:*)', source: 'policy.yml' }],
      reason: 'rm is not allowed',
    });
  });

  it('writes a denial’s suggestion (snake_case), null without one, and none on an allow', () => {
    const denied = permissionDecision('toolu_2', 'Bash', 'deny', 'no rule allows Bash');
    const advice = {
      allowable: true,
      text: 'add "Bash(npm test:*)" to permissions.allow in .claude/settings.json',
      addRules: ['Bash(npm test:*)'],
      file: '.claude/settings.json',
      removeRules: [{ rule: 'Bash(rm:*)', list: 'deny' as const, source: 'policy.yml' }],
    };
    const [advised, bare, allowed] = mapCalls(
      ['toolu_2', 'toolu_3', 'toolu_4'],
      [
        { ...denied, decision: { ...denied.decision, advice } },
        permissionDecision('toolu_3', 'Bash', 'deny'),
        permissionDecision('toolu_4', 'Bash', 'allow'),
      ],
    );
    expect(advised?.suggestion).toEqual({
      allowable: true,
      text: advice.text,
      add_rules: ['Bash(npm test:*)'],
      file: '.claude/settings.json',
      remove_rules: [{ rule: 'Bash(rm:*)', list: 'deny', source: 'policy.yml' }],
      on_ask: null,
    });
    expect(bare?.suggestion).toBeNull();
    expect(allowed).not.toHaveProperty('suggestion');
  });

  it('writes each hook run with Claude Code’s fields and our record', () => {
    const [line] = mapCalls(['toolu_2'], [hookRun('no rm here', 'toolu_2')]);
    expect(line).toMatchObject({
      type: 'system',
      subtype: 'hook_response',
      tool_use_id: 'toolu_2',
      hook_event: 'PreToolUse',
      exit_code: 2,
      stderr: 'no rm here',
      event: 'PreToolUse',
      command: 'sh check.sh',
      exitCode: 2,
      decision: 'deny',
      status: 'completed',
      source: '.claude/settings.json',
    });
  });

  describe('when a call ends', () => {
    it('writes its stage, rounded duration, outcome, decision and result size', () => {
      const lines = mapCalls(
        ['toolu_1'],
        [
          permissionDecision('toolu_1', 'Read', 'allow'),
          toolResult('toolu_1', 'hello', { durationMs: 41.6 }),
        ],
      );
      expect(lines[1]).toMatchObject({
        type: 'system',
        subtype: 'tool_call_end',
        tool_use_id: 'toolu_1',
        tool_name: 'Read',
        stage: 'completed',
        duration_ms: 42,
        is_error: false,
        decision: 'allow',
        result_chars: 5,
      });
    });

    it('reports a denied call as an error with the deny decision', () => {
      const lines = mapCalls(
        ['toolu_2'],
        [
          permissionDecision('toolu_2', 'Bash', 'deny'),
          toolResult('toolu_2', 'denied', { isError: true, stage: 'permission' }),
        ],
      );
      expect(lines[1]).toMatchObject({ stage: 'permission', is_error: true, decision: 'deny' });
    });

    it('reports no decision for a call that ended before one', () => {
      const [line] = mapCalls(
        ['toolu_3'],
        [toolResult('toolu_3', 'bad input', { isError: true, stage: 'schema' })],
      );
      expect(line).toMatchObject({ stage: 'schema', is_error: true, decision: null });
    });

    it('counts only the text of a result with images', () => {
      const event = toolResult('toolu_4', '');
      const lines = mapCalls(
        ['toolu_4'],
        [
          {
            ...event,
            result: {
              ...event.result,
              content: [
                { type: 'text', text: 'abc' },
                {
                  type: 'image',
                  source: { type: 'base64', media_type: 'image/png', data: 'AAAA' },
                },
              ],
            },
          },
        ],
      );
      expect(lines[0]?.result_chars).toBe(3);
    });
  });

  describe('when the run ends', () => {
    it('writes the result with usage, cost, turns and denials', () => {
      const denial = {
        tool_name: 'Bash',
        tool_use_id: 'toolu_2',
        tool_input: { command: 'rm x' },
        reason: 'no',
        rules: [],
      };
      const lines = mapAll([sessionStart, resultEvent({ permissionDenials: [denial] })]);
      expect(lines[1]).toMatchObject({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'All done.',
        num_turns: 2,
        duration_ms: 1500,
        duration_api_ms: 900,
        total_cost_usd: 0.0123,
        usage: { input_tokens: 10 },
        permission_denials: [denial],
        session_id: SESSION_ID,
      });
    });

    it('gives an error result its errors instead of a result text', () => {
      const line = resultLine(
        runResult({ subtype: 'error_max_turns', isError: true, errors: ['Reached max turns (2)'] }),
        SESSION_ID,
      );
      expect(line).toMatchObject({ subtype: 'error_max_turns', errors: ['Reached max turns (2)'] });
      expect(line).not.toHaveProperty('result');
    });
  });

  describe('when given a secret masker', () => {
    const KEY = 'sk-ant-api03-secret-key';
    const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const mapper = () =>
      new StreamJsonMapper({ version: '1', masker: createSecretMasker([KEY, TOKEN]) });

    it.each<[string, AgentEvent]>([
      ['assistant text', assistantMessage(`the key is ${KEY}`)],
      ['tool_use input', assistantMessage('', [['toolu_1', 'Bash', { command: `echo ${TOKEN}` }]])],
      ['tool_result and its structured output', toolResultsMessage(['toolu_1', `GH=${TOKEN}`])],
      ['hook stderr', hookRun(`token ${TOKEN} rejected`)],
      ['permission reason', permissionDecision('toolu_1', 'Bash', 'deny', `uses ${KEY}`)],
      ['result text', resultEvent({ result: `done with ${KEY}` })],
      ['result errors', resultEvent({ subtype: 'error_during_execution', errors: [KEY] })],
      ['init cwd', { ...sessionStart, cwd: `/tmp/${TOKEN}` }],
    ])('masks a secret in the %s', (_label, event) => {
      const masking = mapper();
      masking.map(assistantMessage('', [['toolu_1', 'Bash', {}]]));
      const lines = masking.map(event);
      const text = JSON.stringify(lines);
      expect(lines.length).toBeGreaterThan(0);
      expect(text).toContain('***');
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(TOKEN);
    });

    it('masks the call-end line too', () => {
      const masking = mapper();
      masking.map(assistantMessage('', [['toolu_1', 'Bash', {}]]));
      const [line] = masking.map({ ...toolResult('toolu_1', 'x'), toolName: `T${TOKEN}` });
      expect(line?.tool_name).toBe('T***');
    });
  });
});

describe('streamJsonSink', () => {
  it('feeds every line to every sink, in order, the same object to each', () => {
    const first: StreamJsonLine[] = [];
    const second: StreamJsonLine[] = [];
    const sink = streamJsonSink(new StreamJsonMapper({ version: '1' }), [
      (line) => first.push(line),
      (line) => second.push(line),
    ]);
    sink(sessionStart);
    sink(toolResultsMessage(['toolu_1', 'a'], ['toolu_2', 'b']));
    sink(resultEvent());
    expect(kinds(first)).toEqual(['system/init', 'user', 'user', 'result/success']);
    expect(second).toEqual(first);
    expect(second[1]).toBe(first[1]);
  });
});
