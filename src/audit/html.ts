/**
 * `ci-agent audit --format html`, and the action's `audit.html` beside the tool log: one
 * self-contained page a reviewer opens.
 *
 *   1. the chain's verdict (verify.ts): verified, incomplete, failed at line N and how, or no
 *      chain at all — first, since it says how far the rest can be trusted
 *   2. the run's outcome and setting, the findings (explain.ts; judge.ts's when given)
 *   3. the calls on a timeline, one entry per call, coloured by decision
 *   4. filters by tool and by decision (the page's one script, html-assets.ts)
 *   5. each call's detail: input, decision, rules and their files, hooks, result; a call with a
 *      line at or after a chain's first bad line is marked unverified
 *   6. the final diff (the artifact's patch)
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
import type { ChainVerdict } from './verify.js';

/** What the page says of the log's chain: the verdict, and the published hash it was held to. */
export interface PageVerification {
  verdict: ChainVerdict;
  /** The final hash the log was checked against, and where it came from; absent: none known. */
  checkedAgainst?: { hash: string; from: 'expect-hash' | 'report' | 'log-hash' };
}

export interface AuditPageInput {
  run: AuditRun;
  /** The log's chain verified (verify.ts): the page shows the verdict above everything. */
  verification: PageVerification;
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
${chainSection(input.verification)}
${outcomeSection(run)}
${findingsSection(findings)}
${timelineSection(run)}
${callsSection(run, input.judgement, input.verification.verdict.failure?.line)}
${diffSection(input.patch)}
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}

const CHECKED_FROM = {
  'expect-hash': 'the hash given with --expect-hash',
  report: "the hash the run's report.md published",
  'log-hash': "the run's published log-hash",
} as const;

/** The chain's verdict, in the words a reviewer acts on; `data-status` for a program. */
function chainSection({ verdict, checkedAgainst }: PageVerification): string {
  const failure = verdict.failure;
  const status =
    failure?.code === 'not-chained' && verdict.records.length === 0
      ? 'none'
      : failure
        ? 'failed'
        : verdict.status;
  const lines = verdict.records.length;
  const against = checkedAgainst
    ? `, and it is ${CHECKED_FROM[checkedAgainst.from]} (${checkedAgainst.hash})`
    : "; no published hash was given to check it against, so the chain proves the lines unchanged relative to each other, not that they are the run's";
  const words = {
    none: `No hash chain: ${failure?.message ?? ''}. Nothing proves that these lines are the run's or that they are unchanged.`,
    failed: `FAILED verification at line ${failure?.line ?? 0} (${failure?.kind ?? ''}): ${failure?.message ?? ''}. The ${lines} line(s) before it verify; what the page shows from line ${failure?.line ?? 0} on is not proven.`,
    incomplete: `Verified up to line ${verdict.records.at(-1)?.line ?? 0}, incomplete: ${verdict.partialLine === undefined ? 'the log has no closing line (the run was killed or is still going)' : `the log ends in part of line ${verdict.partialLine} (the run was killed while writing it)`}; the ${lines} whole line(s) before it verify.`,
    verified: `Verified: ${lines} line(s), closed; final hash ${verdict.finalHash ?? '-'}${against}.`,
  }[status];
  const heading = {
    none: 'No chain',
    failed: 'FAILED',
    incomplete: 'Incomplete',
    verified: 'Verified',
  }[status];
  return `<section id="chain" class="chain ${status}" data-status="${status}"><strong id="chain-status">Tool log chain: ${heading}</strong> <span id="chain-text">${show(words)}</span></section>`;
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

function callsSection(
  run: AuditRun,
  judgement: Judgement | undefined,
  firstBadLine: number | undefined,
): string {
  const judged = new Map(judgement?.calls.map((call) => [call.toolUseId, call]));
  const items = run.calls.map((call) => {
    const decision = call.decision?.behavior ?? 'none';
    const again = judged.get(call.toolUseId);
    const unproven =
      firstBadLine !== undefined && call.lastLine >= firstBadLine
        ? `<span class="badge unverified" title="read from lines ${call.line}–${call.lastLine}, not all before the chain's first bad line ${firstBadLine}">unverified</span>`
        : '';
    const under = call.parentToolUseId
      ? ` <span class="sub">in the subagent of ${show(call.parentToolUseId)}</span>`
      : '';
    return `<li id="call-${call.index}" ${callAttributes(call)}><details><summary><span class="badge ${decision}">${decision}${call.decision?.askResolved ? ' (asked)' : ''}</span>${unproven}<strong>#${call.index} ${show(call.tool)}</strong> <code>${show(inputSummary(call))}</code>${under}</summary>
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
