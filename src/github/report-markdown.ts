/**
 * The run report as Markdown, for the one PR comment and the job summary. Outcome first, then
 * what changed, the diff, every denial with its rule, the tool log, hook runs, and the numbers.
 *
 * It always fits GitHub's comment limit: when it would not, the diff is cut first, then the tool
 * log (first and last rows kept), and each cut says so and names the artifact with the whole.
 * Secrets are masked in the final text.
 */
import type { FileChange } from './git.js';
import type { RunReport, ToolCallEntry } from './report.js';
import type { TodoItem } from '../tools/tool.js';

/** Finds the comment again on the next run (one comment per PR or issue). */
export const REPORT_MARKER = '<!-- ci-agent:report -->';
/** GitHub rejects issue comments longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export type Conclusion =
  'success' | 'no-changes' | 'tests-pass' | 'failed' | 'denied' | 'limit' | 'cancelled' | 'working';

export interface ReportContext {
  conclusion: Conclusion;
  /** One sentence: what happened, or why it failed. */
  headline: string;
  files: readonly FileChange[];
  diff: string;
  runUrl?: string;
  artifactName?: string;
  branch?: string;
  prNumber?: number;
  commitSha?: string;
  /** The run was stopped before the end: the report shows what happened until then. */
  partial?: boolean;
  /** Warnings about the run itself (say, git configuration the agent changed and that was put back). */
  warnings?: readonly string[];
  /** Problems shown as written, in a code block below the headline (say, a bad policy file's). */
  errorDetails?: string;
  /**
   * The names of the files the artifact holds; empty: no artifact was uploaded; unset: the tool
   * log and the transcript.
   */
  artifactFiles?: readonly string[];
}

export interface RenderOptions {
  limit?: number;
  mask?: (text: string) => string;
}

const ICONS: Record<Conclusion, string> = {
  success: '✅',
  'no-changes': '➖',
  'tests-pass': '✅',
  failed: '❌',
  denied: '⛔',
  limit: '⏱️',
  cancelled: '🛑',
  working: '⏳',
};

export function renderReport(
  report: RunReport,
  context: ReportContext,
  options: RenderOptions = {},
): string {
  const limit = options.limit ?? GITHUB_COMMENT_LIMIT;
  const mask = options.mask ?? ((text: string) => text);
  const artifact = context.artifactName
    ? `the \`${context.artifactName}\` artifact`
    : 'the run’s artifacts';
  // Try the full report, then with the diff cut, then with the tool log cut as well.
  for (const [diffBudget, rowBudget] of [
    [Infinity, Infinity],
    [Math.floor(limit / 3), Infinity],
    [Math.floor(limit / 4), 60],
    [0, 20],
    [0, 4],
  ] as const) {
    const text = mask(compose(report, context, artifact, diffBudget, rowBudget));
    if (text.length <= limit) return text;
  }
  const minimal = mask(
    compose(report, { ...context, files: context.files.slice(0, 20) }, artifact, 0, 0),
  );
  return minimal.length <= limit
    ? minimal
    : `${minimal.slice(0, limit - 200)}\n\n… (cut to fit; the whole report is in ${artifact})\n`;
}

function compose(
  report: RunReport,
  context: ReportContext,
  artifact: string,
  diffBudget: number,
  rowBudget: number,
): string {
  const parts = [REPORT_MARKER, heading(report, context), numbers(report)];
  if (context.partial)
    parts.push(
      `> The run was stopped before it finished: this report shows what happened until then.`,
    );
  if (context.errorDetails !== undefined) parts.push(codeBlock(context.errorDetails));
  for (const warning of context.warnings ?? []) parts.push(`> ⚠️ ${warning}`);
  if (report.lastText) parts.push(quote(report.lastText));
  if (context.files.length > 0)
    parts.push(filesTable(context.files), diffBlock(context, diffBudget, artifact));
  if (report.todos && report.todos.length > 0) parts.push(taskList(report.todos, rowBudget));
  if (report.denials.length > 0) parts.push(denials(report));
  if (report.calls.length > 0) parts.push(toolLog(report.calls, rowBudget, artifact));
  if (report.hookRuns.length > 0) parts.push(hookRuns(report, rowBudget));
  parts.push(footer(context, artifact));
  return `${parts.join('\n\n')}\n`;
}

function heading(report: RunReport, context: ReportContext): string {
  const where = [
    context.branch ? `branch \`${context.branch}\`` : undefined,
    context.prNumber ? `PR #${context.prNumber}` : undefined,
    context.commitSha ? `commit ${context.commitSha.slice(0, 7)}` : undefined,
  ].filter(Boolean);
  const line = `### ${ICONS[context.conclusion]} ci-agent: ${cell(context.headline, 300)}`;
  return where.length > 0 ? `${line}\n\n${where.join(' · ')}` : line;
}

function numbers(report: RunReport): string {
  const result = report.result;
  if (!result)
    return `Model: ${report.model ?? 'unknown'} · ${report.calls.length} tool calls so far`;
  const tokens =
    result.usage.input_tokens +
    result.usage.output_tokens +
    result.usage.cache_read_input_tokens +
    result.usage.cache_creation_input_tokens;
  return [
    `${result.numTurns} turns`,
    `${report.calls.length} tool calls`,
    `${thousands(tokens)} tokens`,
    `$${result.totalCostUsd.toFixed(4)}`,
    `${(result.durationMs / 1000).toFixed(1)} s`,
    `model ${report.model ?? Object.keys(result.modelUsage).join(', ')}`,
    ...incidents(report),
  ].join(' · ');
}

/** Only what happened: a clean run's line stays short. */
function incidents(report: RunReport): string[] {
  const { apiRetries, partialResponses, compactions } = report.incidents;
  return [
    apiRetries > 0 ? `${apiRetries} model API ${apiRetries === 1 ? 'retry' : 'retries'}` : '',
    partialResponses > 0 ? `${partialResponses} cut-off response(s) kept` : '',
    compactions > 0 ? `context compacted ${compactions}×` : '',
  ].filter(Boolean);
}

function quote(text: string): string {
  const shown = text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
  return shown
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function filesTable(files: readonly FileChange[]): string {
  const rows = files.map(
    (file) => `| \`${cell(file.path, 200)}\` | +${file.added} | −${file.removed} |`,
  );
  return ['| file | added | removed |', '|---|---:|---:|', ...rows].join('\n');
}

function diffBlock(context: ReportContext, budget: number, artifact: string): string {
  const added = context.files.reduce((sum, file) => sum + file.added, 0);
  const removed = context.files.reduce((sum, file) => sum + file.removed, 0);
  const summary = `<summary>Diff: ${context.files.length} file${context.files.length === 1 ? '' : 's'}, +${added} −${removed}</summary>`;
  if (budget <= 0) {
    return `<details>${summary}\n\nThe diff (${thousands(context.diff.length)} characters) is too large for this comment: the whole patch is in ${artifact}.\n</details>`;
  }
  let diff = context.diff;
  let note = '';
  if (diff.length > budget) {
    diff = diff.slice(0, budget);
    note = `\n… diff cut after ${thousands(budget)} of ${thousands(context.diff.length)} characters: the whole patch is in ${artifact}.\n`;
  }
  const fence = '`'.repeat(Math.max(3, longestRun(diff, '`') + 1));
  return `<details>${summary}\n\n${fence}diff\n${diff.endsWith('\n') ? diff : `${diff}\n`}${fence}\n${note}</details>`;
}

const TODO_MARKS = { completed: '[x]', in_progress: '[ ] ⏳', pending: '[ ]' } as const;

/** The model's last task list, as a checklist (not interactive: GitHub renders `[x]` as ticked). */
function taskList(todos: readonly TodoItem[], budget: number): string {
  const shown = todos.slice(0, Math.max(budget, 10));
  const done = todos.filter((todo) => todo.status === 'completed').length;
  const rows = shown.map((todo) => `- ${TODO_MARKS[todo.status]} ${cell(todo.content, 200)}`);
  if (shown.length < todos.length) rows.push(`- … and ${todos.length - shown.length} more`);
  return [`**Task list (${done}/${todos.length} done)**`, '', ...rows].join('\n');
}

function denials(report: RunReport): string {
  const rows = report.denials.map(
    (denial) =>
      `- \`${cell(denial.tool_name, 80)}\` ${cell(shortInput(denial.tool_input), 120)} — ${cell(denial.reason, 400)}`,
  );
  return [`**Denied calls (${report.denials.length})**`, '', ...rows].join('\n');
}

function toolLog(calls: readonly ToolCallEntry[], budget: number, artifact: string): string {
  const header = [
    '| # | turn | tool | called with | decision | why | ms | result |',
    '|---:|---:|---|---|---|---|---:|---|',
  ];
  const row = (call: ToolCallEntry, index: number) =>
    `| ${index + 1} | ${call.turn} | ${cell(toolLabel(call), 60)} | ${cell(shortInput(call.input), 100)} | ${call.decision ?? '—'} | ${cell(whyOf(call), 160)} | ${call.durationMs === undefined ? '' : Math.round(call.durationMs)} | ${call.isError === undefined ? '…' : call.isError ? 'error' : 'ok'} |`;
  let rows = calls.map(row);
  if (rows.length > budget) {
    const head = Math.ceil(budget / 2);
    const tail = Math.floor(budget / 2);
    rows = [
      ...rows.slice(0, head),
      `| | | | … ${calls.length - head - tail} calls not shown: the whole tool log is in ${artifact} | | | | |`,
      ...rows.slice(rows.length - tail),
    ];
  }
  return `<details open><summary>Tool log (${calls.length} calls)</summary>\n\n${[...header, ...rows].join('\n')}\n\n</details>`;
}

/** The decision's reason; for an MCP call whose server asked for input, how it was answered. */
function whyOf(call: ToolCallEntry): string {
  const why = call.decisionReason ?? call.stage ?? '';
  if (!call.elicitations) return why;
  return `the server asked for input: ${call.elicitations.join(', ')} · ${why}`;
}

/** A subagent's call is marked as such: `↳ Explore: Read`. */
function toolLabel(call: ToolCallEntry): string {
  return call.parent ? `↳ ${call.parent.agentType}: ${call.toolName}` : call.toolName;
}

function hookRuns(report: RunReport, budget: number): string {
  const failed = report.hookRuns.filter((run) => run.error !== undefined);
  const runs = report.hookRuns.slice(0, Math.max(budget, failed.length === 0 ? 0 : 1));
  const rows = runs.map(
    (run) =>
      `| ${run.event} | ${cell(run.matcher || '*', 40)} | \`${cell(run.command, 80)}\` | ${run.exitCode ?? '—'} | ${Math.round(run.durationMs)} | ${cell(run.decision ?? '', 20)} | ${cell(run.error ?? '', 160)} |`,
  );
  const title = `Hook runs (${report.hookRuns.length}${failed.length > 0 ? `, ${failed.length} failed` : ''})`;
  return `<details${failed.length > 0 ? ' open' : ''}><summary>${title}</summary>\n\n| event | matcher | command | exit | ms | decision | error |\n|---|---|---|---:|---:|---|---|\n${rows.join('\n')}\n\n</details>`;
}

function footer(context: ReportContext, artifact: string): string {
  const bits = [
    context.runUrl ? `[the workflow run](${context.runUrl})` : undefined,
    context.artifactFiles === undefined
      ? `the full tool log and transcript: ${artifact}`
      : context.artifactFiles.length === 0
        ? 'no artifact was uploaded: the step log says why'
        : `${artifact}: ${context.artifactFiles.join(', ')}`,
  ];
  return `<sub>${bits.filter(Boolean).join(' · ')}</sub>`;
}

/** A single line of input, shortened: what the call was about. */
export function shortInput(input: unknown): string {
  if (input === undefined) return '';
  if (input !== null && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    for (const key of ['command', 'file_path', 'pattern', 'url', 'query', 'path']) {
      const value = record[key];
      if (typeof value === 'string') return value;
    }
  }
  return JSON.stringify(input) ?? '';
}

/** Text safe inside one Markdown table cell. */
function cell(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const short = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return short.replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

/** Text as written, in a fence no line of it can close. */
function codeBlock(text: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}text\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    longest = Math.max(longest, current);
  }
  return longest;
}

/** 12345 → "12,345" without Intl: the first toLocaleString call loads ICU data (~50 ms). */
function thousands(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
