/**
 * `ci-agent audit explain`: a readable account of a run from its tool log (records.ts).
 *
 *   1. the findings: denied calls, failed hooks, malformed log lines (findings.ts codes)
 *   2. the run: its outcome and setting
 *   3. every call in order: tool, input, decision with its rules and their files, hooks,
 *      duration, result
 *
 * Two renderings: text for a terminal (every control character and ANSI escape from the log
 * shown as a visible escape, never sent to the terminal) and JSON (`ExplainJson`, a stable shape
 * documented in docs/AUDIT.md; JSON escapes control characters itself).
 */
import { neutralise } from '../util/neutralise.js';
import type { Finding } from './findings.js';
import type { AuditCall, AuditHook, AuditRun } from './records.js';

export const EXPLAIN_FORMAT = 'ci-agent-audit-explain';
export const EXPLAIN_VERSION = 1;

export interface Explanation {
  run: AuditRun;
  /** Denials and failed hooks first, in call order; then malformed lines. */
  findings: Finding[];
}

/** What `--format json` prints: the run's records with the findings, under a format marker. */
export interface ExplainJson extends AuditRun {
  format: typeof EXPLAIN_FORMAT;
  version: typeof EXPLAIN_VERSION;
  findings: Finding[];
}

export function explainRun(run: AuditRun): Explanation {
  return { run, findings: [...callFindings(run), ...lineFindings(run)] };
}

export function explainJson(explanation: Explanation): ExplainJson {
  return {
    format: EXPLAIN_FORMAT,
    version: EXPLAIN_VERSION,
    ...explanation.run,
    findings: explanation.findings,
  };
}

/** Denied calls and failed hooks, each call's in the order it was made; session hooks last. */
function callFindings(run: AuditRun): Finding[] {
  const findings: Finding[] = [];
  for (const call of run.calls) {
    const ref = { index: call.index, toolUseId: call.toolUseId, tool: call.tool };
    if (call.decision?.behavior === 'deny') {
      findings.push({
        code: 'call-denied',
        message: `${call.tool} ${inputSummary(call)} was denied: ${call.decision.reason}`,
        call: ref,
        rules: call.decision.rules,
        line: call.line,
      });
    }
    for (const hook of call.hooks.filter(hookFailed)) {
      findings.push({ ...hookFinding(hook), call: ref });
    }
  }
  return [...findings, ...run.sessionHooks.filter(hookFailed).map(hookFinding)];
}

function lineFindings(run: AuditRun): Finding[] {
  return run.problems.map((problem) => ({
    code: 'log-line-malformed',
    message: `line ${problem.line}: ${problem.message}`,
    line: problem.line,
  }));
}

/** A hook that did not do its job; a hook that ran and said deny or block did its job. */
export function hookFailed(hook: AuditHook): boolean {
  return hook.error !== undefined || (hook.status !== undefined && FAILED_STATUS.has(hook.status));
}

const FAILED_STATUS = new Set(['timed-out', 'failed-to-start', 'aborted']);

function hookFinding(hook: AuditHook): Finding {
  const why = hook.error ?? hook.status ?? 'failed';
  return {
    code: 'hook-failed',
    message: `${hook.event} hook ${hook.command}${hook.source ? ` (${hook.source})` : ''} failed: ${why}`,
    line: hook.line,
  };
}

/** The part of a call's input a reader recognises it by: the command, the path, the URL … */
export function inputSummary(call: Pick<AuditCall, 'input'>): string {
  const input = call.input;
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    for (const key of SUMMARY_KEYS) {
      const value = (input as Record<string, unknown>)[key];
      if (typeof value === 'string') return value;
    }
  }
  return JSON.stringify(input) ?? 'undefined';
}

const SUMMARY_KEYS = [
  'command',
  'file_path',
  'notebook_path',
  'path',
  'pattern',
  'url',
  'description',
];

// Text rendering ---------------------------------------------------------------------------------

export { neutralise };

const RESULT_LINES = 6;

export function renderExplainText(explanation: Explanation): string {
  const { run, findings } = explanation;
  const out: string[] = [outcomeLine(run), settingLine(run)].filter((line) => line !== '');
  out.push('', findings.length === 0 ? 'No findings.' : `Findings (${findings.length}):`);
  for (const finding of findings) {
    const rules = (finding.rules ?? []).map((rule) => `${rule.rule} (${rule.source})`);
    out.push(`  ${finding.code}  ${neutralise(finding.message)}`);
    if (rules.length > 0) out.push(`      rule: ${neutralise(rules.join(', '))}`);
  }
  out.push('', `Calls (${run.calls.length}):`);
  for (const call of run.calls) out.push(...callLines(call));
  if (run.events.length > 0) {
    out.push('', 'Run events:');
    for (const event of run.events) out.push(`  line ${event.line}: ${neutralise(event.summary)}`);
  }
  return `${out.join('\n')}\n`;
}

function outcomeLine(run: AuditRun): string {
  const outcome = run.outcome;
  if (!outcome) return 'Run: no result line (the run was stopped, or the log is cut short)';
  const parts = [
    outcome.subtype,
    outcome.numTurns === undefined ? undefined : `${outcome.numTurns} turns`,
    outcome.durationMs === undefined ? undefined : `${(outcome.durationMs / 1000).toFixed(1)} s`,
    outcome.totalCostUsd === undefined ? undefined : `$${outcome.totalCostUsd.toFixed(4)}`,
    `${outcome.permissionDenials} denied`,
  ].filter((part) => part !== undefined);
  const errors = outcome.errors.length > 0 ? `; errors: ${outcome.errors.join('; ')}` : '';
  return neutralise(`Run: ${parts.join(', ')}${errors}`);
}

function settingLine(run: AuditRun): string {
  const setting = run.setting;
  if (!setting) return '';
  const parts = [
    setting.model && `model ${setting.model}`,
    setting.permissionMode && `mode ${setting.permissionMode}`,
    setting.version && `ci-agent ${setting.version}`,
    setting.sandbox && `sandbox: ${setting.sandbox}`,
    setting.cwd && `in ${setting.cwd}`,
  ].filter(Boolean);
  return neutralise(parts.join(', '));
}

function callLines(call: AuditCall): string[] {
  const under = call.parentToolUseId ? ` (subagent of ${call.parentToolUseId})` : '';
  const lines = [
    `  #${call.index} ${neutralise(call.tool)} ${neutralise(inputSummary(call))}${neutralise(under)}`,
  ];
  const decision = call.decision;
  if (decision) {
    const asked = decision.askResolved ? ', an ask resolved by onAsk' : '';
    lines.push(
      `      decision: ${decision.behavior} (${decision.source}${asked}): ${neutralise(decision.reason)}`,
    );
    for (const rule of decision.rules)
      lines.push(`      rule: ${neutralise(rule.rule)} from ${neutralise(rule.source)}`);
    if (decision.suggestion) lines.push(`      to allow it: ${neutralise(decision.suggestion)}`);
  } else {
    lines.push(
      `      decision: none (the call ended at ${call.stage ?? 'an unknown stage'} first)`,
    );
  }
  for (const hook of call.hooks) lines.push(`      hook: ${hookText(hook)}`);
  const timing = call.durationMs === undefined ? '' : `, ${call.durationMs} ms`;
  const result = call.result;
  if (result) {
    const cut = result.truncated
      ? `, first ${result.text.length} of ${result.chars} chars`
      : `, ${result.chars} chars`;
    lines.push(`      result: ${result.isError ? 'error' : 'ok'}${timing}${cut}`);
    const shown = result.text.split('\n');
    const head = shown.slice(0, RESULT_LINES).join('\n');
    if (head !== '')
      lines.push(`        ${neutralise(head, { keepNewlines: true, indent: '        ' })}`);
    if (shown.length > RESULT_LINES)
      lines.push(`        … ${shown.length - RESULT_LINES} more lines`);
  } else {
    lines.push(`      result: none recorded${timing}`);
  }
  return lines;
}

function hookText(hook: AuditHook): string {
  const parts = [
    `${hook.event} ${hook.command}`,
    hook.exitCode === null ? 'no exit' : `exit ${hook.exitCode}`,
    hook.decision && `said ${hook.decision}`,
    hook.error && `failed: ${hook.error}`,
    hook.stderr && `stderr: ${hook.stderr}`,
    hook.source && `from ${hook.source}`,
  ].filter(Boolean);
  return neutralise(parts.join(', '));
}
