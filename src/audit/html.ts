/**
 * `ci-agent audit --format html`, and the action's `audit.html` beside the tool log: one
 * self-contained page a reviewer opens.
 *
 *   1. the run's outcome and setting, the findings (explain.ts; judge.ts's when given)
 *   2. the calls on a timeline, one entry per call, coloured by decision
 *   3. filters by tool and by decision (the page's one script, html-assets.ts)
 *   4. each call's detail: input, decision, rules and their files, hooks, result
 *   5. the final diff (the artifact's patch)
 *
 * Everything from the log is untrusted: each text goes through `escapeHtml` (and `neutralise`
 * for control characters) and lands only in element text or quoted attribute values. The page's
 * CSP admits only its own style and script by hash, so injected markup could not run anyway.
 */
import type { Finding } from './findings.js';
import { explainRun, inputSummary, neutralise } from './explain.js';
import { PAGE_CSP, PAGE_CSS, PAGE_SCRIPT } from './html-assets.js';
import type { Judgement } from './judge.js';
import type { AuditCall, AuditHook, AuditRun } from './records.js';

export interface AuditPageInput {
  run: AuditRun;
  /** The run's final diff (the artifact's `changes.patch`); absent: no diff section content. */
  patch?: string;
  /** `audit judge`'s result, shown with the findings and on each call. */
  judgement?: Judgement;
  /** The page's title; default: `ci-agent run`. */
  title?: string;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for element content or a quoted attribute value: markup characters as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** Log text as HTML: control characters made visible, then escaped. */
function show(text: string, keepNewlines = false): string {
  return escapeHtml(neutralise(text, { keepNewlines }));
}

export function renderAuditHtml(input: AuditPageInput): string {
  const { run } = input;
  const findings = [...explainRun(run).findings, ...(input.judgement?.findings ?? [])];
  const title = input.title ?? 'ci-agent run';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(PAGE_CSP)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${show(title)}</title>
<style>${PAGE_CSS}</style>
</head><body>
<h1>${show(title)}</h1>
${outcomeSection(run)}
${findingsSection(findings)}
${timelineSection(run)}
${callsSection(run, input.judgement)}
${diffSection(input.patch)}
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}

function outcomeSection(run: AuditRun): string {
  const outcome = run.outcome;
  const setting = run.setting;
  const facts = outcome
    ? [
        outcome.subtype,
        outcome.numTurns === undefined ? '' : `${outcome.numTurns} turns`,
        outcome.durationMs === undefined ? '' : `${(outcome.durationMs / 1000).toFixed(1)} s`,
        outcome.totalCostUsd === undefined ? '' : `$${outcome.totalCostUsd.toFixed(4)}`,
        `${run.calls.length} calls`,
        `${outcome.permissionDenials} denied`,
      ].filter(Boolean)
    : ['no result line: the run was stopped, or the log is cut short'];
  const said = outcome?.result ?? (outcome?.errors.length ? outcome.errors.join('; ') : '');
  const where = setting
    ? [
        setting.model,
        setting.permissionMode && `mode ${setting.permissionMode}`,
        setting.version && `ci-agent ${setting.version}`,
        setting.sandbox && `sandbox: ${setting.sandbox}`,
        setting.cwd,
      ]
        .filter(Boolean)
        .join(' · ')
    : '';
  return `<section id="outcome"><div class="outcome${!outcome || outcome.isError ? ' error' : ''}"><strong>Outcome:</strong> <span id="outcome-text">${show(facts.join(', '))}</span></div>
${said ? `<pre id="final-text">${show(said, true)}</pre>` : ''}
${where ? `<p class="setting">${show(where)}</p>` : ''}</section>`;
}

function findingsSection(findings: readonly Finding[]): string {
  const items = findings.map((finding) => {
    const rules = (finding.rules ?? []).map((rule) => `${rule.rule} (${rule.source})`).join(', ');
    const link = finding.call
      ? ` <a href="#call-${finding.call.index}">#${finding.call.index}</a>`
      : '';
    return `<li><span class="code">${escapeHtml(finding.code)}</span>${link} ${show(finding.message)}${rules ? ` <span class="sub">rule: ${show(rules)}</span>` : ''}</li>`;
  });
  return `<section id="findings"><h2>Findings (${findings.length})</h2>${items.length === 0 ? '<p>None.</p>' : `<ul class="findings">${items.join('\n')}</ul>`}</section>`;
}

/** The filter attributes a call's elements carry; the script compares them to the selects. */
function callAttributes(call: AuditCall): string {
  const decision = call.decision?.behavior ?? 'none';
  return `data-call data-tool="${escapeHtml(call.tool)}" data-decision="${decision}" data-asked="${call.decision?.askResolved === true}"`;
}

function timelineSection(run: AuditRun): string {
  const entries = run.calls.map((call) => {
    const decision = call.decision?.behavior ?? 'none';
    const label = `#${call.index} ${call.tool} ${inputSummary(call)}: ${decision}`;
    return `<li ${callAttributes(call)} class="${decision}${call.decision?.askResolved ? ' asked' : ''}" title="${show(label)}"><a href="#call-${call.index}">${call.index}</a></li>`;
  });
  const tools = [...new Set(run.calls.map((call) => call.tool))].sort();
  return `<section id="timeline-section"><h2>Timeline</h2>
<div class="filters">
<label>Tool <select id="filter-tool"><option value="">all</option>${tools.map((tool) => `<option value="${escapeHtml(tool)}">${show(tool)}</option>`).join('')}</select></label>
<label>Decision <select id="filter-decision"><option value="">all</option><option value="deny">denied</option><option value="allow">allowed</option><option value="ask">asked (onAsk answered)</option><option value="none">no decision</option></select></label>
<span><span id="shown-count">${run.calls.length}</span> of ${run.calls.length} calls shown</span>
</div>
<ol id="timeline">${entries.join('')}</ol></section>`;
}

function callsSection(run: AuditRun, judgement: Judgement | undefined): string {
  const judged = new Map(judgement?.calls.map((call) => [call.toolUseId, call]));
  const items = run.calls.map((call) => {
    const decision = call.decision?.behavior ?? 'none';
    const again = judged.get(call.toolUseId);
    const under = call.parentToolUseId
      ? ` <span class="sub">in the subagent of ${show(call.parentToolUseId)}</span>`
      : '';
    return `<li id="call-${call.index}" ${callAttributes(call)}><details><summary><span class="badge ${decision}">${decision}${call.decision?.askResolved ? ' (asked)' : ''}</span><strong>#${call.index} ${show(call.tool)}</strong> <code>${show(inputSummary(call))}</code>${under}</summary>
<div class="detail"><dl>
<dt>input</dt><dd><pre class="input">${show(JSON.stringify(call.input, null, 2) ?? 'undefined', true)}</pre></dd>
${decisionRows(call)}
${call.hooks.map(hookRow).join('\n')}
${again ? `<dt>judged</dt><dd class="judged">${escapeHtml(again.verdict)}${again.decision ? `: ${show(again.decision.reason)}` : again.note ? `: ${show(again.note)}` : ''}</dd>` : ''}
${resultRows(call)}
</dl></div></details></li>`;
  });
  return `<section id="calls-section"><h2>Calls (${run.calls.length})</h2><ol id="calls">${items.join('\n')}</ol></section>`;
}

function decisionRows(call: AuditCall): string {
  const decision = call.decision;
  if (!decision)
    return `<dt>decision</dt><dd>none: the call ended at ${show(call.stage ?? 'an unknown stage')} first</dd>`;
  const rules = decision.rules.map(
    (rule) => `<li><code>${show(rule.rule)}</code> from <code>${show(rule.source)}</code></li>`,
  );
  return `<dt>decision</dt><dd class="decision">${decision.behavior} (${show(decision.source)}${decision.askResolved ? ', an ask answered by onAsk' : ''}): ${show(decision.reason)}</dd>
${rules.length > 0 ? `<dt>rules</dt><dd><ul class="rules">${rules.join('')}</ul></dd>` : ''}
${decision.suggestion ? `<dt>to allow it</dt><dd>${show(decision.suggestion)}</dd>` : ''}`;
}

function hookRow(hook: AuditHook): string {
  const facts = [
    hook.exitCode === null ? 'no exit' : `exit ${hook.exitCode}`,
    hook.status,
    hook.decision && `said ${hook.decision}`,
    hook.error && `failed: ${hook.error}`,
    hook.source && `from ${hook.source}`,
  ].filter(Boolean);
  return `<dt>hook</dt><dd class="hook">${show(hook.event)} <code>${show(hook.command)}</code>: ${show(facts.join(', '))}${hook.stderr ? `<pre>${show(hook.stderr, true)}</pre>` : ''}</dd>`;
}

function resultRows(call: AuditCall): string {
  const timing = call.durationMs === undefined ? '' : `${call.durationMs} ms`;
  const result = call.result;
  if (!result) return `<dt>result</dt><dd>none recorded${timing ? `, ${timing}` : ''}</dd>`;
  const size = result.truncated
    ? `first ${result.text.length} of ${result.chars} chars`
    : `${result.chars} chars`;
  return `<dt>result</dt><dd>${result.isError ? 'error' : 'ok'}, ${[timing, size].filter(Boolean).join(', ')}<pre class="result">${show(result.text, true)}</pre></dd>`;
}

function diffSection(patch: string | undefined): string {
  if (patch === undefined || patch === '') {
    return `<section id="diff-section"><h2>Diff</h2><p>No changes.</p></section>`;
  }
  const lines = patch
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const kind =
        line.startsWith('+++') || line.startsWith('---')
          ? 'file'
          : line.startsWith('+')
            ? 'add'
            : line.startsWith('-')
              ? 'del'
              : line.startsWith('@@')
                ? 'hunk'
                : 'context';
      return `<span class="${kind}">${show(line, true) || ' '}</span>`;
    });
  return `<section id="diff-section"><h2>Diff</h2><pre class="diff" id="diff">${lines.join('')}</pre></section>`;
}
