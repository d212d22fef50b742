/**
 * A recorded-like run for the report tests: one call of each kind (a Read, a Bash that exits 1,
 * a denied Bash, a TodoWrite), a failed hook run, a one-file diff; and the hostile strings an
 * attacker writes, with every place such text lands in the report.
 */
import type { AgentEvent, RunResult } from '../../src/agent/events.js';
import { ReportCollector } from '../../src/github/report.js';
import type { RunReport } from '../../src/github/report.js';
import type { ReportContext } from '../../src/github/report-markdown.js';
import type { PermissionDecision } from '../../src/permissions/types.js';

export const WORKSPACE = '/home/runner/work/r/r';
export const RUN_URL = 'https://github.com/o/r/actions/runs/1';

/** What an attacker writes; each is short enough that no cell cuts it. */
export const HOSTILE: Record<string, string> = {
  'an HTML comment opener': 'evil <!--',
  'a comment opener on its own line': 'evil\n<!--',
  'a closing details tag on its own line': 'evil\n\n</details>\n\n# after',
  'a closing details tag': 'evil </details> after',
  'table pipes': 'evil | a | b |',
  'a backslash before a pipe': 'evil \\| and \\\\| x',
  backticks: 'evil `code` and ```',
  'a mention': 'evil @octocat, cc @github/security',
  autolinks: 'evil https://evil.example www.evil.example me@evil.example',
  'HTML tags': 'evil <img src=x onerror=alert(1)> <b>bold</b> <a href="https://evil.example">x</a>',
  'a table break-out': 'evil </td></tr></table><table><tr><td>',
  'an issue reference and an emoji': 'evil #123 :smile:',
  'Markdown links and images':
    'evil [click](https://evil.example) ![p](https://evil.example/p.png)',
  'emphasis and entities': 'evil *star* _under_ &amp; &lt;b&gt; \\*',
  'a raw HTML block line': '<details open><summary>evil</summary>',
};

export type Place =
  | 'final text'
  | 'Bash command'
  | 'file_path'
  | 'TodoWrite content'
  | 'hook command'
  | 'hook stderr'
  | 'file name'
  | 'branch name'
  | 'denial reason'
  | 'denial suggestion'
  | 'headline'
  | 'warning';

export const PLACES: Place[] = [
  'final text',
  'Bash command',
  'file_path',
  'TodoWrite content',
  'hook command',
  'hook stderr',
  'file name',
  'branch name',
  'denial reason',
  'denial suggestion',
  'headline',
  'warning',
];

const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

function decision(behavior: 'allow' | 'deny', reason: string): PermissionDecision {
  return {
    behavior,
    askResolved: false,
    source: behavior === 'allow' ? 'allow-rule' : 'deny-rule',
    matchedRules: [
      {
        text: behavior === 'allow' ? 'Bash(npm test:*)' : 'Bash(rm:*)',
        toolName: 'Bash',
        source: '.github/ci-agent.yml',
      },
    ],
    reason,
  };
}

/** A run with one call of each kind, with `hostile` written where `place` says. */
export function scenario(
  place: Place,
  hostile: string,
): { report: RunReport; context: ReportContext } {
  const at = (here: Place, normal: string) => (place === here ? hostile : normal);
  const command = at('Bash command', 'npm test');
  const deniedCommand = at('Bash command', 'rm -rf build');
  const filePath = `${WORKSPACE}/${at('file_path', 'src/a.ts')}`;
  const todo = at('TodoWrite content', 'Fix mean()');
  const reason = at('denial reason', "denied by rule 'Bash(rm:*)' (.github/ci-agent.yml)");
  const call = (
    id: string,
    name: string,
    input: unknown,
    allowed: PermissionDecision,
  ): AgentEvent[] => [
    { type: 'tool-call-start', toolUseId: id, toolName: name, input },
    { type: 'permission-decision', toolUseId: id, toolName: name, input, decision: allowed },
  ];
  const done = (
    id: string,
    name: string,
    structured: unknown,
    stage = 'completed',
    isError = false,
  ): AgentEvent => ({
    type: 'tool-result',
    toolUseId: id,
    toolName: name,
    result: {
      type: 'tool_result',
      tool_use_id: id,
      content: 'x',
      ...(isError && { is_error: true }),
    },
    structured,
    durationMs: 3,
    stage,
  });
  const todos = [
    { content: todo, status: 'completed', activeForm: 'Fixing' },
    { content: 'Run the tests', status: 'pending', activeForm: 'Running' },
  ];
  const denied = decision('deny', reason);
  const result: RunResult = {
    subtype: 'success',
    isError: false,
    result: 'done',
    numTurns: 2,
    durationMs: 1000,
    durationApiMs: 500,
    stopReason: 'end_turn',
    totalCostUsd: 0.01,
    usage,
    modelUsage: {},
    permissionDenials: [
      {
        tool_name: 'Bash',
        tool_use_id: 't3',
        tool_input: { command: deniedCommand },
        reason,
        rules: ['Bash(rm:*)'],
        // The rule it suggests holds the command the model wrote.
        suggestion: {
          allowable: true,
          text: 'remove the deny rule …',
          add_rules: [`Bash(${at('denial suggestion', 'rm -rf build')})`],
          file: '.github/ci-agent.yml',
          remove_rules: [{ rule: 'Bash(rm:*)', list: 'deny', source: '.github/ci-agent.yml' }],
          on_ask: null,
        },
      },
    ],
    errors: [],
  };
  const events: AgentEvent[] = [
    {
      type: 'session-start',
      sessionId: 's',
      cwd: WORKSPACE,
      model: 'claude-x',
      tools: [],
      permissionMode: 'default',
    },
    ...call(
      't1',
      'Read',
      { file_path: filePath },
      {
        ...decision('allow', 'read-only call inside the workspace'),
        source: 'default',
        matchedRules: [],
      },
    ),
    done('t1', 'Read', {}),
    ...call(
      't2',
      'Bash',
      { command },
      decision('allow', "allowed by rule 'Bash(npm test:*)' (.github/ci-agent.yml)"),
    ),
    done('t2', 'Bash', { exitCode: 1, stdout: '', stderr: '' }, 'call', true),
    {
      type: 'permission-decision',
      toolUseId: 't3',
      toolName: 'Bash',
      input: { command: deniedCommand },
      decision: denied,
    },
    done('t3', 'Bash', undefined, 'permission', true),
    ...call(
      't4',
      'TodoWrite',
      { todos },
      { ...decision('allow', 'TodoWrite changes nothing'), source: 'default', matchedRules: [] },
    ),
    done('t4', 'TodoWrite', { oldTodos: [], newTodos: todos }),
    {
      type: 'hook-run',
      toolUseId: 't2',
      run: {
        event: 'PostToolUse',
        matcher: 'Bash',
        command: at('hook command', './hooks/check.sh'),
        exitCode: 2,
        durationMs: 4,
        error: 'exited 2',
        stderrExcerpt: at('hook stderr', 'check failed'),
      },
    },
    {
      type: 'assistant-message',
      messageId: 'm',
      model: 'claude-x',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: at('final text', 'Fixed the bug.') }],
      },
      stopReason: 'end_turn',
      usage,
    },
    { type: 'result', result },
  ];
  const collector = new ReportCollector();
  for (const event of events) collector.handle(event);
  const fileName = at('file name', 'src/mean.ts');
  return {
    report: collector.report,
    context: {
      conclusion: 'success',
      headline: `the agent made changes${at('headline', '')}`,
      warnings: [`git config was put back${at('warning', '')}`],
      files: [{ path: fileName, added: 1, removed: 1 }],
      diff: `diff --git a/${fileName} b/${fileName}\n--- a/${fileName}\n+++ b/${fileName}\n@@ -1 +1 @@\n-old\n+new\n`,
      runUrl: RUN_URL,
      artifactName: 'ci-agent-log',
      branch: at('branch name', 'ci-agent/issue-12'),
      prNumber: 12,
      workspace: WORKSPACE,
    },
  };
}
