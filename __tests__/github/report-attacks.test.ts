/**
 * Issue 12, item 1: nothing the model, the repository or an issue writes changes the report's
 * structure. Each hostile string is put in each place such text lands, the report is rendered by
 * a real GFM renderer (GitHub's cmark-gfm, and remark), and what a reader sees is checked: every
 * section is there, the string shows as written, nothing it wrote became a link, a mention, an
 * image or an extra table row or column.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, RunResult } from '../../src/agent/events.js';
import { ReportCollector } from '../../src/github/report.js';
import type { RunReport } from '../../src/github/report.js';
import { renderReport } from '../../src/github/report-markdown.js';
import type { ReportContext } from '../../src/github/report-markdown.js';
import type { PermissionDecision } from '../../src/permissions/types.js';
import {
  elementsNamed,
  filteredText,
  linkTargets,
  renderGfm,
  renderers,
  tables,
  visibleText,
} from '../helpers/gfm.js';

const WORKSPACE = '/home/runner/work/r/r';
const RUN_URL = 'https://github.com/o/r/actions/runs/1';

/** What an attacker writes; each is short enough that no cell cuts it. */
const HOSTILE: Record<string, string> = {
  'an HTML comment opener': 'evil <!--',
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

type Place =
  | 'final text'
  | 'Bash command'
  | 'file_path'
  | 'TodoWrite content'
  | 'hook command'
  | 'hook stderr'
  | 'file name'
  | 'branch name'
  | 'denial reason'
  | 'headline'
  | 'warning';

const PLACES: Place[] = [
  'final text',
  'Bash command',
  'file_path',
  'TodoWrite content',
  'hook command',
  'hook stderr',
  'file name',
  'branch name',
  'denial reason',
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
function scenario(place: Place, hostile: string): { report: RunReport; context: ReportContext } {
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

/** What a reader sees of `text`, whitespace collapsed as a browser does in running text. */
const seen = (text: string) => text.replace(/\s+/g, ' ').trim();

const cases = PLACES.flatMap((place) =>
  Object.entries(HOSTILE).map(([what, hostile]) => ({ place, what, hostile })),
);

/** The report's own tables (not one the model wrote in its text), as row lengths. */
function tableShape(tree: ReturnType<typeof renderGfm>): number[][] {
  return tables(tree)
    .filter((table) => ['file', '#', 'call', 'event'].includes(table[0]?.[0] ?? ''))
    .map((table) => table.map((row) => row.length));
}

const SECTIONS = [
  'ci-agent: the agent made changes',
  'Diff: 1 file',
  'Task list (1/2 done)',
  'Denied calls (1)',
  'Tool log (4 calls)',
  'Hook runs (1, 1 failed)',
  'the full tool log',
];

describe.each(renderers)('the rendered report (%s)', (renderer) => {
  const render = async (place: Place, text: string) => {
    const { report, context } = scenario(place, text);
    return renderGfm(await renderReport(report, context), renderer);
  };

  it.each(PLACES)(
    'of a harmless run shows each section and table (%s: plain text)',
    async (place) => {
      const tree = await render(place, 'plain words');
      const text = seen(visibleText(tree));
      expect(SECTIONS.map((section) => text.indexOf(section)).every((index) => index >= 0)).toBe(
        true,
      );
      if (place !== 'final text') expect(text).toContain('plain words');
      expect(tableShape(tree)).toHaveLength(3);
    },
  );

  it.each(cases)('$what in the $place changes nothing around it', async ({ place, hostile }) => {
    const tree = await render(place, hostile);
    const text = seen(visibleText(tree));

    // Every section is still there, in order, and the footer ends the comment.
    const sections = SECTIONS.map((section) => text.indexOf(section));
    expect(
      sections.every((index) => index >= 0),
      `sections at ${sections.join(', ')}`,
    ).toBe(true);
    expect([...sections].sort((a, b) => a - b)).toEqual(sections);
    expect(text).toMatch(/the full tool log[^·]*: the ci-agent-log artifact$/);

    // The hostile text shows as written (the final text keeps only its formatting).
    // Our own sentences (headline, warnings) show backticked names as code: only the backticks go.
    const prose = place === 'headline' || place === 'warning';
    if (place !== 'final text')
      expect(text).toContain(seen(prose ? hostile.replace(/`([^`]+)`/g, '$1') : hostile));

    // In its own cell, not only somewhere on the page (the diff shows file names too).
    const [files, log] = tables(tree).filter((table) =>
      ['file', '#'].includes(table[0]?.[0] ?? ''),
    );
    if (place === 'file name') expect(files?.[1]?.[0]).toBe(hostile);
    if (place === 'Bash command' && hostile.length <= 80)
      expect(seen(log?.[2]?.[2] ?? '')).toBe(seen(hostile));

    // Nothing it wrote is a link, an image, a mention, a reference or an autolink.
    expect(linkTargets(tree)).toEqual([RUN_URL]);
    expect(elementsNamed(tree, 'img')).toEqual([]);
    expect(
      filteredText(tree, { emoji: place !== 'final text' }).filter((value) =>
        /evil|octocat|github\/|123|smile/i.test(value),
      ),
    ).toEqual([]);

    // The report's tables have the rows and columns of a harmless run's, and no more.
    expect(tableShape(tree)).toEqual(tableShape(await render(place, 'plain words')));
    // The diff is one code block, whole.
    const blocks = elementsNamed(tree, 'pre').map((pre) =>
      visibleText({ type: 'root', children: [pre] }),
    );
    expect(blocks.some((block) => block.includes('-old\n+new'))).toBe(true);
  });

  it('keeps the model’s formatting but none of its HTML, mentions or links', async () => {
    const { report, context } = scenario(
      'final text',
      'Fixed **mean()**.\n\n- [x] `a < b`\n- see @octocat and https://evil.example\n\n# Not ours\n\n<details>\n</details>\n\nend <!--',
    );
    const tree = renderGfm(await renderReport(report, context), renderer);
    const quote = elementsNamed(tree, 'blockquote').map((node) =>
      visibleText({ type: 'root', children: [node] }),
    );
    const said = quote.find((text) => text.includes('Fixed'));
    expect(said).toBeDefined();
    expect(seen(said!)).toContain('Fixed mean().');
    expect(seen(said!)).toContain('<details> </details>');
    expect(seen(said!)).toContain('end <!--');
    expect(seen(said!)).toContain('see @octocat and https://evil.example');
    const strong = elementsNamed(tree, 'strong').map((node) =>
      visibleText({ type: 'root', children: [node] }),
    );
    expect(strong).toEqual(expect.arrayContaining(['mean()', 'Not ours']));
    expect(elementsNamed(tree, 'h1')).toEqual([]);
    expect(linkTargets(tree)).toEqual([RUN_URL]);
  });
});
