/**
 * The run report as Markdown, for the one PR comment and the job summary (docs/REPORT.md shows
 * it rendered). Outcome first, then the model's last words, what changed and the diff, the task
 * list, every denial with its rule and how to allow it (or why nothing can), the tool log with a short why per call, hook runs tied to
 * their call, and the footer naming the artifact with everything.
 *
 * Nothing the model, the repository or an issue wrote changes its structure (issue 12, item 1):
 * their text goes through markdown-escape.ts (code spans, escaped text) or model-markdown.ts (the
 * model's final text), after the masker, so that a secret cannot hide behind an escape.
 *
 * It fits GitHub (item 7): paths relative to the workspace, seven narrow tool-log columns, every
 * table capped with the rest in the artifact, vendored, generated and dependency files counted
 * instead of shown, and the whole under the comment limit: when it would not fit, the diff is cut
 * first, then the tables, and each cut says where the whole is.
 */
import { adviceMarkdown } from './report-advice.js';
import { changeGroupOf, diffSections } from './change-groups.js';
import type { ChangeGroup } from './change-groups.js';
import type { FileChange } from './git.js';
import { cellCode, codeBlock, codeSpan, escapeProse, escapeText } from './markdown-escape.js';
import type { RunReport, ToolCallEntry } from './report.js';
import type { HookRunRecord } from '../hooks/types.js';
import type { SpendRow } from '../model/spend-meter.js';
import type { TodoItem } from '../tools/tool.js';
import { LOG_HASH_LABEL } from '../log/log-chain.js';
import { REPORT_MARKER } from './comment.js';

export { REPORT_MARKER };
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
  /** What the action did for the run's safety, said plainly (say, credentials taken out). */
  notes?: readonly string[];
  /** Links of ours under the warnings (say, where to open a refused pull request by hand). */
  links?: readonly { label: string; url: string }[];
  /** Problems shown as written, in a code block below the headline (say, a bad policy file's). */
  errorDetails?: string;
  /**
   * The names of the files the artifact holds; empty: no artifact was uploaded; unset: the tool
   * log and the transcript.
   */
  artifactFiles?: readonly string[];
  /** The directory the agent worked in: paths under it are shown relative to it. */
  workspace?: string;
  /**
   * What everything the agent ran was contained by: the sandbox's one-line description, or the
   * policy entry that turned it off (then the report says "unsandboxed" at the top).
   */
  sandbox?:
    | { kind: 'sandboxed'; description: string; fork?: boolean }
    | { kind: 'unsandboxed'; why: string };
  /** Where the model was reached, when not Anthropic's API: `Amazon Bedrock (us-east-1)`. */
  provider?: string;
  /**
   * The tool log's final hash (`sha256:<hex>`, log/log-chain.ts): what `ci-agent audit
   * --expect-hash` checks the artifact against. Unset: the log could not be closed.
   */
  logHash?: string;
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

/** Rows each table shows at most before the rest is left to the artifact. */
const CAPS = {
  files: 50,
  todos: 30,
  denials: 20,
  calls: 60,
  hooks: 30,
  notes: 20,
  costs: 20,
} as const;
type Caps = Record<keyof typeof CAPS, number>;

/** The model's last text shown, in characters: the whole is in the transcript. */
const FINAL_TEXT_MAX = 2_000;
/** A change this large, or one touching node_modules, is likely not what was asked for. */
const ACCIDENTAL_FILES = 1_000;
/** A command longer than this (or than three lines) is shown whole below the tool log. */
const CELL_COMMAND_MAX = 80;

export async function renderReport(
  report: RunReport,
  context: ReportContext,
  options: RenderOptions = {},
): Promise<string> {
  const limit = options.limit ?? GITHUB_COMMENT_LIMIT;
  const mask = options.mask ?? ((text: string) => text);
  const { modelMarkdown } = await import('./model-markdown.js');
  // Masked before anything is escaped: an escape inside a secret would hide it from the masker.
  const view = prepare(maskStrings(report, mask), maskStrings(context, mask), modelMarkdown);
  // The whole report, then with the diff cut, then with the tables cut as well.
  for (const [diffBudget, rowShare] of [
    [Infinity, 1],
    [Math.floor(limit / 3), 1],
    [Math.floor(limit / 4), 0.5],
    [0, 0.25],
    [0, 0.05],
    [0, 0],
  ] as const) {
    const caps = Object.fromEntries(
      Object.entries(CAPS).map(([key, cap]) => [key, Math.floor(cap * rowShare)]),
    ) as Caps;
    const text = mask(compose(view, diffBudget, caps));
    if (text.length <= limit) return text;
  }
  const minimal = mask(
    compose({ ...view, lastText: '', warnings: [] }, 0, { ...CAPS, ...zeroCaps() }),
  );
  return minimal.length <= limit
    ? minimal
    : `${minimal.slice(0, limit - 200)}\n\n… (cut to fit; the whole report is in ${view.artifact})\n`;
}

function zeroCaps(): Caps {
  return { files: 0, todos: 0, denials: 0, calls: 0, hooks: 0, notes: 0, costs: 0 };
}

/** What every attempt at fitting shares: computed once. */
interface View {
  report: RunReport;
  context: ReportContext;
  artifact: string;
  /** The model's final text, already made safe Markdown. */
  lastText: string;
  warnings: string[];
  shown: FileChange[];
  grouped: Array<{ group: ChangeGroup; files: FileChange[] }>;
  /** The diff without the grouped files' hunks. */
  diff: string;
  /** Call number (1-based) by tool use id. */
  callNumbers: Map<string, number>;
  /** Workspace-relative text: commands stay as they ran, paths and reasons are shortened. */
  relative: (text: string) => string;
}

function prepare(
  report: RunReport,
  context: ReportContext,
  modelMarkdown: (text: string) => string,
): View {
  const artifact = context.artifactName
    ? `the ${codeSpan(context.artifactName)} artifact`
    : 'the run’s artifacts';
  const shown: FileChange[] = [];
  const byGroup = new Map<ChangeGroup, FileChange[]>();
  for (const file of context.files) {
    const group = changeGroupOf(file.path);
    if (group) byGroup.set(group, [...(byGroup.get(group) ?? []), file]);
    else shown.push(file);
  }
  const grouped = [...byGroup].map(([group, files]) => ({ group, files }));
  const diff = diffSections(context.diff)
    .filter((section) => changeGroupOf(section.path) === undefined)
    .map((section) => section.text)
    .join('');
  const lastText = report.lastText
    ? modelMarkdown(
        report.lastText.length > FINAL_TEXT_MAX
          ? `${report.lastText.slice(0, FINAL_TEXT_MAX)}…`
          : report.lastText,
      )
    : '';
  const warnings = (context.warnings ?? []).map((warning) => escapeProse(warning));
  const accidental = accidentalChange(context.files, byGroup);
  if (accidental) warnings.push(accidental);
  const workspace = context.workspace?.replace(/\/+$/, '');
  return {
    report,
    context,
    artifact,
    lastText,
    warnings,
    shown,
    grouped,
    diff,
    callNumbers: new Map(report.calls.map((call, index) => [call.toolUseId, index + 1])),
    relative: (text) => (workspace ? text.replaceAll(`${workspace}/`, '') : text),
  };
}

/** A warning when the change looks like it was not meant: too many files, or node_modules. */
function accidentalChange(
  files: readonly FileChange[],
  byGroup: Map<ChangeGroup, FileChange[]>,
): string | undefined {
  const modules = [...byGroup].find(([group]) => group.label === 'node_modules/')?.[1].length ?? 0;
  if (files.length <= ACCIDENTAL_FILES && modules === 0) return undefined;
  const why = [
    files.length > ACCIDENTAL_FILES ? `${thousands(files.length)} files` : '',
    modules > 0 ? `${thousands(modules)} of them under ${codeSpan('node_modules/')}` : '',
  ].filter(Boolean);
  return `**This change looks accidental:** it touches ${why.join(', ')}${files.length > ACCIDENTAL_FILES ? '' : ` (${thousands(files.length)} files in all)`}. Check that they were meant to be committed before merging.`;
}

function compose(view: View, diffBudget: number, caps: Caps): string {
  const { report, context } = view;
  const parts = [REPORT_MARKER, heading(view), numbers(report, context.provider)];
  if (context.partial)
    parts.push(
      `> The run was stopped before it finished: this report shows what happened until then.`,
    );
  if (context.errorDetails !== undefined) parts.push(codeBlock(context.errorDetails, 'text'));
  for (const warning of view.warnings) parts.push(`> ⚠️ ${warning}`);
  for (const note of context.notes ?? []) parts.push(`> ℹ️ ${escapeProse(note)}`);
  if (context.links && context.links.length > 0) parts.push(linkLine(context.links));
  if (view.lastText) parts.push(view.lastText);
  if (context.files.length > 0) {
    parts.push(filesTable(view, caps.files));
    if (view.grouped.length > 0) parts.push(groupLines(view));
    parts.push(diffBlock(view, diffBudget));
  }
  if (report.todos && report.todos.length > 0) parts.push(taskList(report.todos, caps.todos));
  if (report.denials.length > 0) parts.push(denials(view, caps.denials));
  if (report.calls.length > 0) parts.push(toolLog(view, caps));
  if (report.hookRuns.length > 0) parts.push(hookRuns(view, caps.hooks));
  const costs = report.result?.costParts ?? [];
  // One part alone is the total the numbers line shows already.
  if (costs.length > 1) parts.push(costTable(costs, caps.costs));
  parts.push(footer(view));
  return `${parts.join('\n\n')}\n`;
}

/**
 * Our own links: the labels are ours, the URLs built from the server URL and names, so only
 * what would end a link destination early is escaped.
 */
function linkLine(links: readonly { label: string; url: string }[]): string {
  const destination = (url: string) =>
    url.replace(/[()<>\s]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `> 🔗 ${links.map((link) => `[${escapeText(link.label)}](${destination(link.url)})`).join(' · ')}`;
}

function heading(view: View): string {
  const { context } = view;
  const where = [
    context.branch ? `branch ${codeSpan(context.branch)}` : undefined,
    context.prNumber ? `PR #${context.prNumber}` : undefined,
    context.commitSha ? `commit ${codeSpan(context.commitSha.slice(0, 7))}` : undefined,
  ].filter(Boolean);
  // The pull request the run opened is the one reference left to link; any other `#N` in the
  // headline came from somewhere else (an error message) and is escaped with the rest.
  const ours = context.prNumber ? `pull request #${context.prNumber}` : undefined;
  const headline = cut(context.headline, 300)
    .split(ours ?? /(?!)/)
    .map((piece) => escapeProse(piece))
    .join(ours ?? '');
  const line = `### ${ICONS[context.conclusion]} ci-agent: ${headline}`;
  const sandbox = context.sandbox;
  const contained =
    sandbox?.kind === 'unsandboxed'
      ? `> [!WARNING]\n> **Unsandboxed**: ${escapeProse(sandbox.why)}. What the agent ran could read the job's credentials and change the runner.`
      : sandbox
        ? `Sandboxed: ${escapeProse(sandbox.description)}${sandbox.fork ? `. This pull request comes from a fork: its code (the test command, what the agent ran) ran only inside the sandbox, with no secret and no network beyond the policy's list` : ''}`
        : undefined;
  const heading = [line, where.length > 0 ? where.join(' · ') : undefined, contained];
  // An unsandboxed run says so before anything else.
  if (sandbox?.kind === 'unsandboxed') heading.unshift(heading.splice(2, 1)[0]);
  return heading.filter((part) => part !== undefined).join('\n\n');
}

function numbers(report: RunReport, provider: string | undefined): string {
  const result = report.result;
  const on = provider === undefined ? '' : ` on ${escapeText(provider)}`;
  const model = `${escapeText(report.model ?? 'unknown')}${on}`;
  if (!result) return `Model: ${model} · ${report.calls.length} tool calls so far`;
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
    `model ${report.model ? model : `${escapeText(Object.keys(result.modelUsage).join(', '))}${on}`}`,
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

/** Source files first; the groups are counted below the table instead of listed. */
function filesTable(view: View, cap: number): string {
  const shown = view.shown.slice(0, cap);
  const rows = shown.map(
    (file) =>
      `| ${cellCode(cutPath(file.path))} | +${thousands(file.added)} | −${thousands(file.removed)} |`,
  );
  const rest = view.shown.length - shown.length;
  if (rest > 0) rows.push(`| … ${more(rest, 'file')} in ${view.artifact} | | |`);
  if (rows.length === 0) rows.push('| (only the files counted below) | | |');
  return ['| file | added | removed |', '|---|---:|---:|', ...rows].join('\n');
}

/** One line per group of vendored, generated or dependency files, with counts. */
function groupLines(view: View): string {
  const lines = view.grouped.map(({ group, files }) => {
    const added = files.reduce((sum, file) => sum + file.added, 0);
    const removed = files.reduce((sum, file) => sum + file.removed, 0);
    return `- ${codeSpan(group.label)} (${group.kind}): ${more(files.length, 'file')}, +${thousands(added)} −${thousands(removed)}`;
  });
  return [
    `**Counted, not shown** (vendored, generated and dependency files; their hunks are in ${view.artifact}):`,
    '',
    ...lines,
  ].join('\n');
}

function diffBlock(view: View, budget: number): string {
  const { context, artifact } = view;
  const added = context.files.reduce((sum, file) => sum + file.added, 0);
  const removed = context.files.reduce((sum, file) => sum + file.removed, 0);
  const summary = `<summary>Diff: ${more(context.files.length, 'file')}, +${thousands(added)} −${thousands(removed)}</summary>`;
  const leftOut =
    view.grouped.length > 0
      ? `The hunks of the ${more(
          view.grouped.reduce((sum, { files }) => sum + files.length, 0),
          'file',
        )} counted above are left out.\n`
      : '';
  if (view.diff === '') {
    return `<details>${summary}\n\n${leftOut || 'No text diff to show.\n'}</details>`;
  }
  if (budget <= 0) {
    return `<details>${summary}\n\nThe diff (${thousands(view.diff.length)} characters) is too large for this comment: the whole patch is in ${artifact}.\n${leftOut}</details>`;
  }
  let diff = view.diff;
  let note = '';
  if (diff.length > budget) {
    diff = diff.slice(0, budget);
    note = `\n… diff cut after ${thousands(budget)} of ${thousands(view.diff.length)} characters: the whole patch is in ${artifact}.\n`;
  }
  return `<details>${summary}\n\n${codeBlock(diff, 'diff')}\n${note}${leftOut}</details>`;
}

/**
 * What each part of the run cost (spend-meter.ts): the main agent, each subagent, compaction,
 * side queries, failed attempts; the rows add up to the numbers line's total. The costliest rows
 * are shown, the rest summed in one.
 */
function costTable(rows: readonly SpendRow[], cap: number): string {
  const total = rows.reduce((sum, row) => sum + row.costUsd, 0);
  const order = [...rows].sort((a, b) => b.costUsd - a.costUsd);
  const shown = order.slice(0, Math.max(cap, 1));
  const rest = order.slice(shown.length);
  const line = (label: string, requests: number, tokens: number, cost: number) =>
    `| ${label} | ${thousands(requests)} | ${thousands(tokens)} | $${cost.toFixed(4)} |`;
  const lines = shown.map((row) =>
    line(costLabel(row), row.requests, tokenCount(row), row.costUsd),
  );
  if (rest.length > 0) {
    lines.push(
      line(
        `… ${more(rest.length, 'part')}`,
        rest.reduce((sum, row) => sum + row.requests, 0),
        rest.reduce((sum, row) => sum + tokenCount(row), 0),
        rest.reduce((sum, row) => sum + row.costUsd, 0),
      ),
    );
  }
  return [
    `**Cost by part ($${total.toFixed(4)})**`,
    '',
    '| part | requests | tokens | cost |',
    '|---|---:|---:|---:|',
    ...lines,
  ].join('\n');
}

function costLabel(row: SpendRow): string {
  const agent =
    row.agentType === undefined
      ? ''
      : `subagent ${codeSpan(row.agentType)} ${codeSpan(row.agentId ?? '')}`;
  switch (row.kind) {
    case 'main':
      return 'main agent';
    case 'subagent':
      return agent;
    case 'compaction':
      return agent === '' ? 'compaction' : `compaction (${agent})`;
    case 'side-query':
      return 'side queries';
    case 'failed':
      return 'failed attempts (retried or cut off)';
  }
}

function tokenCount(row: SpendRow): number {
  const { usage } = row;
  return (
    usage.input_tokens +
    usage.output_tokens +
    usage.cache_read_input_tokens +
    usage.cache_creation_input_tokens
  );
}

const TODO_MARKS = { completed: '[x]', in_progress: '[ ] ⏳', pending: '[ ]' } as const;

/** The model's last task list, as a checklist (not interactive: GitHub renders `[x]` as ticked). */
function taskList(todos: readonly TodoItem[], cap: number): string {
  const shown = todos.slice(0, Math.max(cap, 1));
  const done = todos.filter((todo) => todo.status === 'completed').length;
  const rows = shown.map(
    (todo) => `- ${TODO_MARKS[todo.status]} ${escapeText(cut(todo.content, 200))}`,
  );
  if (shown.length < todos.length) rows.push(`- … ${more(todos.length - shown.length, 'task')}`);
  return [`**Task list (${done}/${todos.length} done)**`, '', ...rows].join('\n');
}

function denials(view: View, cap: number): string {
  const { report } = view;
  const shown = report.denials.slice(0, Math.max(cap, 1));
  const items = shown.map((denial) => {
    const number = view.callNumbers.get(denial.tool_use_id);
    const call = number === undefined ? '' : `call ${number}: `;
    const input = inputText(view, denial.tool_input);
    const said = view.relative(cut(denial.reason, 600));
    const advice = adviceMarkdown(denial.suggestion, view.relative);
    const stop = advice === '' ? '' : /[.!?]$/.test(said) ? ' ' : '. ';
    const reason = `${escapeText(said)}${stop}${advice}`;
    // A command is shown whole, as it would have run: inline when short, else as a block.
    if (input.includes('\n') || input.length > CELL_COMMAND_MAX) {
      const block = codeBlock(input)
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n');
      return `- ${call}${codeSpan(denial.tool_name)} — ${reason}\n\n${block}`;
    }
    return `- ${call}${codeSpan(denial.tool_name)} ${codeSpan(input)} — ${reason}`;
  });
  const rest = report.denials.length - shown.length;
  if (rest > 0) items.push(`- … ${more(rest, 'denial')} in ${view.artifact}`);
  return [`**Denied calls (${report.denials.length})**`, '', ...items].join('\n');
}

function toolLog(view: View, caps: Caps): string {
  const calls = view.report.calls;
  const header = [
    '| # | tool | input | decision | why | ms | result |',
    '|---:|---|---|---|---|---:|---|',
  ];
  const notes = new Notes();
  const whole: Array<{ number: number; command: string }> = [];
  const row = (call: ToolCallEntry, index: number) => {
    const input = inputText(view, call.input);
    let shown = cellCode(input);
    if (isLong(input)) {
      const firstLine = input.split(/\r\n|\r|\n/, 1)[0] ?? '';
      shown = `${cellCode(cut(firstLine, CELL_COMMAND_MAX - 1, ''))}… (see below)`;
      whole.push({ number: index + 1, command: input });
    }
    return `| ${index + 1} | ${escapeText(toolLabel(call), { wrap: true })} | ${shown} | ${call.decision ?? '—'} | ${whyOf(view, call, notes)} | ${call.durationMs === undefined ? '' : Math.round(call.durationMs)} | ${resultOf(call)} |`;
  };
  let rows: string[];
  let left = 0;
  if (calls.length > caps.calls) {
    const head = Math.ceil(caps.calls / 2);
    const tail = Math.floor(caps.calls / 2);
    left = calls.length - head - tail;
    rows = [
      ...calls.slice(0, head).map((call, index) => row(call, index)),
      `| | | … ${more(left, 'call')} not shown: the whole tool log is in ${view.artifact} | | | | |`,
      ...calls
        .slice(calls.length - tail)
        .map((call, index) => row(call, calls.length - tail + index)),
    ];
  } else {
    rows = calls.map(row);
  }
  const parts = [[...header, ...rows].join('\n')];
  const noteList = notes.render(caps.notes, view.artifact);
  if (noteList) parts.push(noteList);
  const commands = whole.slice(0, caps.notes);
  for (const { number, command } of commands)
    parts.push(`Call ${number}, whole:\n\n${codeBlock(command)}`);
  if (whole.length > commands.length)
    parts.push(`… ${more(whole.length - commands.length, 'long input')} more in ${view.artifact}.`);
  return `<details open><summary>Tool log (${calls.length} calls)</summary>\n\n${parts.join('\n\n')}\n\n</details>`;
}

function isLong(input: string): boolean {
  return input.length > CELL_COMMAND_MAX || input.split(/\r\n|\r|\n/).length > 3;
}

/** The longer explanations, each once, numbered in the order they first appear. */
class Notes {
  private readonly numbers = new Map<string, number>();

  ref(text: string): string {
    let number = this.numbers.get(text);
    if (number === undefined) {
      number = this.numbers.size + 1;
      this.numbers.set(text, number);
    }
    return `\\[${number}\\]`;
  }

  render(cap: number, artifact: string): string {
    if (this.numbers.size === 0) return '';
    const entries = [...this.numbers].slice(0, cap);
    const lines = entries.map(([text, number]) => `- \\[${number}\\] ${escapeText(text)}`);
    if (this.numbers.size > entries.length)
      lines.push(`- … ${more(this.numbers.size - entries.length, 'note')} in ${artifact}`);
    return lines.join('\n');
  }
}

/** Short labels for the step that decided, when no rule did. */
const SOURCE_LABELS: Record<string, string> = {
  workspace: 'outside the workspace',
  credentials: "the model provider's credentials",
  'deny-rule': 'deny rule',
  hook: 'PreToolUse hook',
  'ask-rule': 'ask rule',
  'user-interaction': 'needs a person',
  'protected-path': 'protected path',
  judge: 'judges the run',
  'critical-path': 'critical path',
  mode: 'mode',
  'allow-rule': 'allow rule',
  default: 'no rule',
};

/** A reason this short is its own label: no note. */
const SHORT_REASON = 40;

/**
 * The rule and where it came from (`Bash(npm test:*)` (.github/ci-agent.yml)), or the step that
 * decided; the whole reason once, as a numbered note below the table.
 */
function whyOf(view: View, call: ToolCallEntry, notes: Notes): string {
  const asked = call.elicitations
    ? `the server asked for input: ${call.elicitations.join(', ')} · `
    : '';
  const reason = view.relative(call.decisionReason ?? '');
  const rules = call.rules ?? [];
  if (rules.length > 0) {
    const [first] = rules;
    const label = `${cellCode(first!.text)} (${escapeText(view.relative(first!.source), { wrap: true })})${rules.length > 1 ? ` +${rules.length - 1}` : ''}`;
    const onAsk = call.askResolved ? ' → onAsk' : '';
    // An allow rule says it all; a denial or an answered ask has more to say.
    const note = call.decision === 'deny' || call.askResolved ? ` ${notes.ref(reason)}` : '';
    return `${escapeText(asked)}${label}${onAsk}${note}`;
  }
  if (reason === '') return escapeText(`${asked}${call.stage ?? ''}`);
  if (reason.length <= SHORT_REASON) return escapeText(`${asked}${reason}`);
  const label =
    call.askResolved && call.decision === 'allow'
      ? 'onAsk: allow'
      : (SOURCE_LABELS[call.decisionSource ?? ''] ?? 'see note');
  return `${escapeText(`${asked}${label}`)} ${notes.ref(reason)}`;
}

/** `exit 1` for a command that failed, `denied` for a refused call, else ok or error. */
function resultOf(call: ToolCallEntry): string {
  if (call.isError === undefined) return '…';
  if (call.stage === 'permission') return 'denied';
  if (typeof call.exitCode === 'number' && call.exitCode !== 0) return `exit ${call.exitCode}`;
  return call.isError ? 'error' : 'ok';
}

/** A subagent's call is marked as such: `↳ Explore: Read`. */
function toolLabel(call: ToolCallEntry): string {
  return call.parent ? `↳ ${call.parent.agentType}: ${call.toolName}` : call.toolName;
}

function hookRuns(view: View, cap: number): string {
  const runs = view.report.hookRuns;
  const failed = runs.filter((run) => run.error !== undefined);
  // Failed runs first, so that a cut keeps what went wrong.
  const ordered = [...failed, ...runs.filter((run) => run.error === undefined)];
  const shown = ordered.slice(0, Math.max(cap, failed.length === 0 ? 0 : 1));
  const rows = shown.map((run) => hookRow(view, run));
  if (shown.length < runs.length)
    rows.push(
      `| | | … ${more(runs.length - shown.length, 'hook run')} in ${view.artifact} | | | | |`,
    );
  const title = `Hook runs (${runs.length}${failed.length > 0 ? `, ${failed.length} failed` : ''})`;
  return `<details${failed.length > 0 ? ' open' : ''}><summary>${title}</summary>\n\n| call | event | command | exit | ms | decision | error |\n|---:|---|---|---:|---:|---|---|\n${rows.join('\n')}\n\n</details>`;
}

function hookRow(view: View, run: HookRunRecord): string {
  const call = run.toolUseId === undefined ? undefined : view.callNumbers.get(run.toolUseId);
  const event = run.matcher ? `${run.event} (${run.matcher})` : run.event;
  const error = [
    run.error === undefined ? '' : escapeText(view.relative(cut(run.error, 160))),
    run.stderrExcerpt ? cellCode(cut(run.stderrExcerpt.trim(), 200)) : '',
  ].filter(Boolean);
  return `| ${call ?? '—'} | ${escapeText(cut(event, 60))} | ${cellCode(cut(run.command, 100))} | ${run.exitCode ?? '—'} | ${Math.round(run.durationMs)} | ${escapeText(cut(run.decision ?? '', 20))} | ${error.join('<br>')} |`;
}

function footer(view: View): string {
  const bits = [
    view.context.runUrl ? `[the workflow run](${view.context.runUrl})` : undefined,
    view.context.artifactFiles === undefined
      ? `the full tool log, diff and transcript: ${view.artifact}`
      : view.context.artifactFiles.length === 0
        ? 'no artifact was uploaded: the step log says why'
        : `${view.artifact}: ${view.context.artifactFiles.join(', ')}`,
    view.context.logHash ? `${LOG_HASH_LABEL}: ${codeSpan(view.context.logHash)}` : undefined,
  ];
  return `<sub>${bits.filter(Boolean).join(' · ')}</sub>`;
}

/** The call's input as text: a command as it ran, a path relative to the workspace. */
function inputText(view: View, input: unknown): string {
  return shortInput(input, view.context.workspace);
}

/**
 * A call's input, for the log: the command, path, pattern, URL or query it was about; a task
 * list as its size; anything else as JSON. Paths under `workspace` are given relative to it.
 */
export function shortInput(input: unknown, workspace?: string): string {
  if (input === undefined) return '';
  if (input !== null && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    for (const key of [
      'command',
      'file_path',
      'notebook_path',
      'pattern',
      'url',
      'query',
      'path',
    ]) {
      const value = record[key];
      if (typeof value === 'string')
        return PATH_KEYS.has(key) ? relativePath(value, workspace) : value;
    }
    if (Array.isArray(record.todos)) return more(record.todos.length, 'task');
  }
  return JSON.stringify(input) ?? '';
}

/** By prefix, not path.relative: the rest of the path is shown exactly as the call gave it. */
const PATH_KEYS = new Set(['file_path', 'notebook_path', 'path']);

function relativePath(path: string, workspace: string | undefined): string {
  const root = workspace?.replace(/\/+$/, '');
  if (!root) return path;
  if (path === root) return '.';
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

/** A long path keeps its end (the file name) and loses the middle. */
function cutPath(path: string): string {
  return path.length > 120 ? `${path.slice(0, 40)}…${path.slice(-79)}` : path;
}

function cut(text: string, max: number, ellipsis = '…'): string {
  return text.length > max ? `${text.slice(0, max - ellipsis.length)}${ellipsis}` : text;
}

function more(count: number, noun: string): string {
  return `${thousands(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** Every string in plain data (the report, the context) through `mask`. */
function maskStrings<T>(value: T, mask: (text: string) => string): T {
  if (typeof value === 'string') return mask(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => maskStrings(item, mask)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, maskStrings(item, mask)]),
    ) as T;
  }
  return value;
}

/** 12345 → "12,345" without Intl: the first toLocaleString call loads ICU data (~50 ms). */
function thousands(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
