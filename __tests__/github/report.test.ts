import { describe, expect, it } from 'vitest';
import type { AgentEvent, RunResult } from '../../src/agent/events.js';
import { ReportCollector } from '../../src/github/report.js';
import type { ReportContext } from '../../src/github/report-markdown.js';
import {
  GITHUB_COMMENT_LIMIT,
  REPORT_MARKER,
  renderReport,
  shortInput,
} from '../../src/github/report-markdown.js';
import type { SpendRow } from '../../src/model/spend-meter.js';
import type { PermissionDecision } from '../../src/permissions/types.js';
import { elementsNamed, renderGfm, tables, visibleText } from '../helpers/gfm.js';

const usage = {
  input_tokens: 1000,
  output_tokens: 200,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 50,
};
const allow: PermissionDecision = {
  behavior: 'allow',
  askResolved: false,
  source: 'default',
  matchedRules: [],
  reason: 'read-only call inside the workspace',
};
const denyDecision: PermissionDecision = {
  behavior: 'deny',
  askResolved: false,
  source: 'deny-rule',
  matchedRules: [
    { text: 'Bash(rm:*)', toolName: 'Bash', content: 'rm:*', source: '.claude/settings.json' },
  ],
  reason: "denied by rule 'Bash(rm:*)' (.claude/settings.json)",
};

function result(overrides: Partial<RunResult> = {}): RunResult {
  return {
    subtype: 'success',
    isError: false,
    result: 'Fixed it.',
    numTurns: 2,
    durationMs: 4321,
    durationApiMs: 3000,
    stopReason: 'end_turn',
    totalCostUsd: 0.0123,
    usage,
    modelUsage: {},
    permissionDenials: [
      {
        tool_name: 'Bash',
        tool_use_id: 't2',
        tool_input: { command: 'rm -rf build' },
        reason: denyDecision.reason,
        rules: ['Bash(rm:*)'],
      },
    ],
    errors: [],
    ...overrides,
  };
}

/** A run as the engine reports it: the Read starts while its message still streams. */
function events(): AgentEvent[] {
  return [
    {
      type: 'session-start',
      sessionId: 's',
      cwd: '/w',
      model: 'claude-sonnet-5-5',
      tools: ['Read', 'Bash'],
      permissionMode: 'default',
    },
    { type: 'tool-call-start', toolUseId: 't1', toolName: 'Read', input: { file_path: '/w/a.ts' } },
    {
      type: 'permission-decision',
      toolUseId: 't1',
      toolName: 'Read',
      input: { file_path: '/w/a.ts' },
      decision: allow,
    },
    {
      type: 'tool-result',
      toolUseId: 't1',
      toolName: 'Read',
      result: { type: 'tool_result', tool_use_id: 't1', content: '1\tx' },
      structured: {},
      durationMs: 3.4,
      stage: 'completed',
    },
    {
      type: 'assistant-message',
      messageId: 'm1',
      model: 'claude-sonnet-5-5',
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/w/a.ts' } },
          { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'rm -rf build' } },
        ],
      },
      stopReason: 'tool_use',
      usage,
    },
    {
      type: 'permission-decision',
      toolUseId: 't2',
      toolName: 'Bash',
      input: { command: 'rm -rf build' },
      decision: denyDecision,
    },
    {
      type: 'tool-result',
      toolUseId: 't2',
      toolName: 'Bash',
      result: { type: 'tool_result', tool_use_id: 't2', content: 'denied', is_error: true },
      structured: undefined,
      durationMs: 0.2,
      stage: 'permission',
    },
    {
      type: 'hook-run',
      toolUseId: 't2',
      run: {
        event: 'PreToolUse',
        matcher: 'Bash',
        command: './guard.sh',
        exitCode: 127,
        durationMs: 5,
        error: 'command not found',
      },
    },
    {
      type: 'assistant-message',
      messageId: 'm2',
      model: 'claude-sonnet-5-5',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Fixed it.' }] },
      stopReason: 'end_turn',
      usage,
    },
    { type: 'result', result: result() },
  ];
}

function collect(list: AgentEvent[] = events()) {
  const collector = new ReportCollector();
  for (const event of list) collector.handle(event);
  return collector.report;
}

/** What a reader sees of `text`, with white space collapsed. */
const seen = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The tool log's rows as rendered (header left out), each as its cells' text. */
function toolLogRows(markdown: string): string[][] {
  const log = tables(renderGfm(markdown, 'remark')).find((table) => table[0]?.[0] === '#');
  return log?.slice(1) ?? [];
}

const context: ReportContext = {
  conclusion: 'success',
  headline: 'Fixed the failing test; PR #12 is ready for review',
  files: [{ path: 'src/a.ts', added: 2, removed: 1 }],
  diff: 'diff --git a/src/a.ts b/src/a.ts\n-old\n+new\n+more\n',
  runUrl: 'https://github.com/o/r/actions/runs/1',
  artifactName: 'ci-agent-log',
  branch: 'ci-agent/issue-12',
  prNumber: 12,
};

describe('ReportCollector', () => {
  it('records each call once, in the turn whose message carried it, with its decision and timing', async () => {
    const report = collect();
    expect(report.calls).toEqual([
      {
        turn: 1,
        toolUseId: 't1',
        toolName: 'Read',
        input: { file_path: '/w/a.ts' },
        decision: 'allow',
        decisionReason: 'read-only call inside the workspace',
        decisionSource: 'default',
        durationMs: 3.4,
        isError: false,
        stage: 'completed',
      },
      {
        turn: 1,
        toolUseId: 't2',
        toolName: 'Bash',
        input: { command: 'rm -rf build' },
        decision: 'deny',
        decisionReason: denyDecision.reason,
        decisionSource: 'deny-rule',
        rules: [{ text: 'Bash(rm:*)', source: '.claude/settings.json' }],
        durationMs: 0.2,
        isError: true,
        stage: 'permission',
      },
    ]);
    expect(report.lastText).toBe('Fixed it.');
    expect(report.hookRuns).toEqual([expect.objectContaining({ toolUseId: 't2', exitCode: 127 })]);
    expect(report.denials[0]?.rules).toEqual(['Bash(rm:*)']);
  });

  it("keeps the model's last task list from TodoWrite, and ignores a failed TodoWrite", async () => {
    const todoResult = (id: string, newTodos: unknown, isError = false): AgentEvent => ({
      type: 'tool-result',
      toolUseId: id,
      toolName: 'TodoWrite',
      result: { type: 'tool_result', tool_use_id: id, content: 'ok', is_error: isError },
      structured: { oldTodos: [], newTodos },
      durationMs: 1,
      stage: isError ? 'validation' : 'completed',
    });
    const first = [{ content: 'Read the code', status: 'completed', activeForm: 'Reading' }];
    const second = [
      ...first,
      { content: 'Fix mean()', status: 'in_progress', activeForm: 'Fixing mean()' },
      { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
    ];
    const report = collect([
      todoResult('t1', first),
      todoResult('t2', second),
      todoResult('t3', [], true),
    ]);
    expect(report.todos).toEqual(second);
    const tree = renderGfm(await renderReport(report, context), 'remark');
    expect(seen(visibleText(tree))).toContain(
      'Task list (1/3 done) Read the code ⏳ Fix mean() Run the tests',
    );
    expect(elementsNamed(tree, 'input').map((box) => box.properties.checked === true)).toEqual([
      true,
      false,
      false,
    ]);
  });

  it("lists a subagent's calls under the Agent call that ran them, in that call's turn", async () => {
    const agentCall: AgentEvent = {
      type: 'assistant-message',
      messageId: 'm1',
      model: 'claude-sonnet-5-5',
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'a1',
            name: 'Agent',
            input: { description: 'look', prompt: 'find it', subagent_type: 'Explore' },
          },
        ],
      },
      stopReason: 'tool_use',
      usage,
    };
    const inner = (event: AgentEvent): AgentEvent => ({
      type: 'subagent-event',
      parentToolUseId: 'a1',
      agentId: 'agent-1',
      agentType: 'Explore',
      event,
    });
    const report = collect([
      agentCall,
      inner({
        type: 'tool-call-start',
        toolUseId: 's1',
        toolName: 'Read',
        input: { file_path: '/w/a' },
      }),
      inner({
        type: 'permission-decision',
        toolUseId: 's1',
        toolName: 'Read',
        input: { file_path: '/w/a' },
        decision: allow,
      }),
      inner({
        type: 'tool-result',
        toolUseId: 's1',
        toolName: 'Read',
        result: { type: 'tool_result', tool_use_id: 's1', content: 'x' },
        structured: {},
        durationMs: 2,
        stage: 'completed',
      }),
      inner({ type: 'tool-results-message', results: [], structured: [] }),
    ]);
    expect(report.calls.map((call) => [call.toolUseId, call.turn, call.parent])).toEqual([
      ['a1', 1, undefined],
      ['s1', 1, { toolUseId: 'a1', agentType: 'Explore' }],
    ]);
    expect(toolLogRows(await renderReport(report, context))[1]).toEqual([
      '2',
      '↳ Explore: Read',
      '/w/a',
      'allow',
      'read-only call inside the workspace',
      '2',
      'ok',
    ]);
  });

  it('counts model API retries, kept cut-off responses and compactions, and says so', async () => {
    const retry: AgentEvent = {
      type: 'api-retry',
      attempt: 1,
      maxRetries: 10,
      delayMs: 500,
      status: 529,
      error: 'overloaded',
      message: 'Overloaded',
    };
    const report = collect([
      retry,
      { ...retry, attempt: 2 },
      {
        type: 'partial-response',
        messageId: 'm',
        keptBlocks: 1,
        toolUseIds: ['t'],
        status: undefined,
        error: 'stream_dropped',
        message: 'cut',
      },
      { type: 'compact-boundary', trigger: 'auto', preTokens: 150_000, summary: 's' },
      ...events(),
    ]);
    expect(report.incidents).toEqual({ apiRetries: 2, partialResponses: 1, compactions: 1 });
    expect(await renderReport(report, context)).toMatch(
      / · 2 model API retries · 1 cut-off response\(s\) kept · context compacted 1×/,
    );
    expect(await renderReport(collect(), context)).not.toContain('retr');
  });

  it('shows how an MCP server’s questions were answered, without the server’s words', async () => {
    const mcpCall: AgentEvent[] = [
      {
        type: 'permission-decision',
        toolUseId: 'm1',
        toolName: 'mcp__docs__lookup',
        input: {},
        decision: allow,
      },
      {
        type: 'tool-result',
        toolUseId: 'm1',
        toolName: 'mcp__docs__lookup',
        result: { type: 'tool_result', tool_use_id: 'm1', content: 'ok' },
        structured: {
          content: [],
          elicitations: [
            { action: 'decline', message: '[click](https://evil.example/) <b>now</b>' },
            { action: 'accept', message: 'Defaults?' },
          ],
        },
        durationMs: 12,
        stage: 'completed',
      },
    ];
    const report = collect(mcpCall);
    expect(report.calls[0]?.elicitations).toEqual(['declined', 'accepted with defaults']);
    const text = await renderReport(report, context);
    expect(toolLogRows(text)[0]?.slice(3, 5)).toEqual([
      'allow',
      'the server asked for input: declined, accepted with defaults · read-only call inside the workspace',
    ]);
    expect(text).not.toContain('evil.example');
  });

  it('shows no task list when the model never wrote one', async () => {
    const report = collect();
    expect(report.todos).toBeUndefined();
    expect(await renderReport(report, context)).not.toContain('Task list');
  });

  it('keeps what it saw when the run is cut short (no result yet)', async () => {
    const report = collect(events().slice(0, 4));
    expect(report.result).toBeUndefined();
    expect(report.calls).toHaveLength(1);
    const text = await renderReport(report, {
      ...context,
      conclusion: 'cancelled',
      headline: 'Stopped',
      partial: true,
    });
    expect(text).toContain('The run was stopped before it finished');
    expect(text).toContain('1 tool calls so far');
  });
});

describe('renderReport', () => {
  it('puts the marker and the outcome first, then changes, diff, denials, tool log, hooks', async () => {
    const text = await renderReport(collect(), context);
    expect(text.startsWith(`${REPORT_MARKER}\n\n### ✅ ci-agent: Fixed the failing test`)).toBe(
      true,
    );
    const visible = seen(visibleText(renderGfm(text, 'remark')));
    const order = [
      '2 turns',
      'file added removed src/a.ts +2 −1',
      'diff --git a/src/a.ts',
      'Denied calls (1) call 2: Bash rm -rf build — denied by rule',
      'Tool log (2 calls)',
      'Hook runs (1, 1 failed)',
    ].map((needle) => visible.indexOf(needle));
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(toolLogRows(text)[1]).toEqual([
      '2',
      'Bash',
      'rm -rf build',
      'deny',
      'Bash(rm:*) (.claude/settings.json) [1]',
      '0',
      'denied',
    ]);
    expect(visible).toContain("[1] denied by rule 'Bash(rm:*)' (.claude/settings.json)");
    expect(text).toContain('1,250 tokens · $0.0123 · 4.3 s');
    expect(text).toContain('`ci-agent-log` artifact');
  });

  describe('the cost by part', () => {
    const row = (kind: SpendRow['kind'], costUsd: number, agent?: [string, string]): SpendRow => ({
      kind,
      ...(agent && { agentType: agent[0], agentId: agent[1] }),
      requests: 2,
      usage: { ...usage },
      costUsd,
    });
    const withParts = (costParts: SpendRow[]) => {
      const report = collect();
      report.result = result({ costParts });
      return report;
    };
    const costRows = (markdown: string) =>
      tables(renderGfm(markdown, 'remark')).find((table) => table[0]?.[0] === 'part');

    it('shows each part, costliest first, below the tool log', async () => {
      const text = await renderReport(
        withParts([
          row('main', 0.05),
          row('subagent', 0.2, ['Explore', 'a0123456789abcdef']),
          row('compaction', 0.01, ['Explore', 'a0123456789abcdef']),
          row('side-query', 0.001),
          row('failed', 0.002),
        ]),
        context,
      );
      expect(costRows(text)).toEqual([
        ['part', 'requests', 'tokens', 'cost'],
        ['subagent Explore a0123456789abcdef', '2', '1,250', '$0.2000'],
        ['main agent', '2', '1,250', '$0.0500'],
        ['compaction (subagent Explore a0123456789abcdef)', '2', '1,250', '$0.0100'],
        ['failed attempts (retried or cut off)', '2', '1,250', '$0.0020'],
        ['side queries', '2', '1,250', '$0.0010'],
      ]);
      expect(text).toContain('**Cost by part ($0.2630)**');
      const visible = seen(visibleText(renderGfm(text, 'remark')));
      expect(visible.indexOf('Cost by part')).toBeGreaterThan(visible.indexOf('Tool log'));
    });

    it('sums the rows past its cap in one', async () => {
      const many = Array.from({ length: 25 }, (_, index) =>
        row('subagent', (index + 1) / 100, ['Explore', `a${index}`]),
      );
      const rows = costRows(await renderReport(withParts([row('main', 1), ...many]), context));
      expect(rows).toHaveLength(1 + 20 + 1);
      expect(rows?.at(-1)).toEqual(['… 6 parts', '12', '7,500', '$0.2100']);
    });

    it('shows no table when one part spent everything (the numbers line has the total)', async () => {
      const text = await renderReport(withParts([row('main', 0.05)]), context);
      expect(costRows(text)).toBeUndefined();
      expect(text).not.toContain('Cost by part');
    });
  });

  it('uses a longer fence when the diff contains backticks', async () => {
    const text = await renderReport(collect(), { ...context, diff: '+```js\n+code\n+```\n' });
    expect(text).toContain('````diff\n+```js');
  });

  it('cuts the diff first to fit the comment limit, and says where the whole patch is', async () => {
    const diff = `${'+x'.repeat(50_000)}\n`;
    const text = await renderReport(collect(), { ...context, diff });
    expect(text.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(text).toMatch(
      /diff cut after [\d,]+ of 100,001 characters: the whole patch is in the `ci-agent-log` artifact/,
    );
    expect(text).toContain('Tool log (2 calls)');
  });

  it('cuts the tool log when it alone is too long, keeping the first and last calls', async () => {
    const many: AgentEvent[] = [];
    for (let index = 0; index < 3_000; index++) {
      many.push({
        type: 'tool-call-start',
        toolUseId: `t${index}`,
        toolName: 'Read',
        input: { file_path: `/w/${'f'.repeat(60)}${index}` },
      });
    }
    const text = await renderReport(collect(many), { ...context, diff: '', files: [] });
    expect(text.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(text).toMatch(/calls not shown: the whole tool log is in the `ci-agent-log` artifact/);
    const visible = visibleText(renderGfm(text, 'remark'));
    expect(visible).toContain(`/w/${'f'.repeat(60)}0\t`);
    expect(visible).toContain(`/w/${'f'.repeat(60)}2999\t`);
  });

  it('shows what the action did for the run’s safety as a note, below the warnings', async () => {
    const note =
      "The checkout's git credentials (http.https://github.com/.extraheader) were taken out";
    const text = await renderReport(collect(), {
      ...context,
      warnings: ['a warning'],
      notes: [note],
    });
    const visible = visibleText(renderGfm(text, 'remark'));
    expect(visible).toContain(`ℹ️ ${note}`);
    expect(visible.indexOf('a warning')).toBeLessThan(visible.indexOf(note));
  });

  it('masks secrets everywhere in the text', async () => {
    const report = collect();
    report.lastText = 'the key is sk-ant-secret-123';
    const text = await renderReport(report, context, {
      mask: (value) => value.replaceAll('sk-ant-secret-123', '***'),
    });
    expect(text).not.toContain('sk-ant-secret-123');
    expect(visibleText(renderGfm(text, 'remark'))).toContain('the key is ***');
  });

  it('masks a secret before escaping it, so no escape hides it from the masker', async () => {
    const report = collect();
    const secret = 'tok_en|42*x';
    report.calls[0]!.input = { command: `curl -H "Authorization: ${secret}" x` };
    report.lastText = `the token is ${secret}`;
    const text = await renderReport(report, context, {
      mask: (value) => value.replaceAll(secret, '***'),
    });
    const visible = visibleText(renderGfm(text, 'remark'));
    expect(visible).not.toContain(secret);
    expect(visible).toContain('curl -H "Authorization: ***" x');
    expect(visible).toContain('the token is ***');
  });

  it('shows a command in its cell as it ran: pipes and newlines kept, one row', async () => {
    const report = collect();
    report.calls[0]!.input = { command: 'a | b\nc' };
    const rows = toolLogRows(await renderReport(report, context));
    expect(rows).toHaveLength(2);
    expect(rows[0]?.[2]).toBe('a | b\nc');
  });
});

describe('shortInput', () => {
  it.each([
    [{ command: 'npm test' }, 'npm test'],
    [{ file_path: '/w/a.ts', offset: 3 }, '/w/a.ts'],
    [{ pattern: 'TODO', path: 'src' }, 'TODO'],
    [{ other: 1 }, '{"other":1}'],
    [undefined, ''],
  ])('%j → %s', (input, expected) => {
    expect(shortInput(input)).toBe(expected);
  });
});
