/**
 * The replay's report, as text for a person or JSON for a program. What the tools returned is
 * the recorded run's output, not ours: in text its control characters are shown escaped, so a
 * result cannot move the terminal's cursor or change its colours.
 */
import type { DecisionSummary, Difference } from './compare-runs.js';
import type { ReplayReport, ReplayVerification } from './run-replay.js';

export function reportJson(report: ReplayReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function reportText(report: ReplayReport): string {
  const lines = [`ci-agent replay of ${report.log}`];
  if (report.commit !== undefined)
    lines.push(
      `  commit ${report.commit} (${report.commitRecorded ? 'as recorded' : 'given with --commit'}), checked out from ${report.repository}`,
    );
  if (report.verification) lines.push(`  tool log: ${verificationLine(report.verification)}`);
  lines.push(`  policy: ${policyLine(report)}`);
  const { sandbox } = report;
  if (sandbox.replayed !== undefined)
    lines.push(
      `  sandbox: ${sandbox.replayed === sandbox.recorded ? `${sandbox.recorded} (as recorded)` : `${sandbox.replayed} (the recorded run's: ${sandbox.recorded})`}`,
    );
  lines.push(
    `  ${report.turns.replayed} of ${report.turns.recorded} recorded model turns replayed, ${report.calls} tool calls recorded`,
  );
  if (report.kept) lines.push(`  kept: ${report.kept} (the checkout and the replayed tool log)`);
  const count = report.differences.length;
  if (count > 0) lines.push('', `${count} difference${count === 1 ? '' : 's'}:`);
  for (const difference of report.differences) lines.push(...differenceLines(difference));
  if (report.status === 'cannot-replay') {
    lines.push('', `cannot replay: ${report.error ?? 'unknown reason'}`);
    if (report.stderr.length > 0)
      lines.push('the replayed run said:', ...report.stderr.map((line) => `  ${line}`));
  } else if (count === 0) {
    lines.push('', 'no differences: every tool result and decision is as recorded');
  }
  return `${lines.map(escapeControls).join('\n')}\n`;
}

function verificationLine(verification: ReplayVerification): string {
  const { failure } = verification;
  if (failure)
    return `FAILS verification${failure.line === undefined ? '' : ` at line ${failure.line}`} (${failure.code})${verification.enforced ? '' : ', replayed anyway (--no-verify)'}`;
  return verification.status === 'verified'
    ? `verified (final hash ${verification.finalHash ?? '-'})`
    : 'incomplete (whole up to where the run was killed)';
}

function policyLine(report: ReplayReport): string {
  const differs = report.differences.some((difference) => difference.kind === 'policy');
  switch (report.policy) {
    case 'recorded':
      return differs ? "the checkout's, which differs from the recorded one" : 'as recorded';
    case 'not-recorded':
      return "the checkout's (the log does not record the policy, so it is not compared)";
    default:
      return `${report.policy} (--policy)${differs ? ', which differs from the recorded one' : ''}`;
  }
}

function differenceLines(difference: Difference): string[] {
  switch (difference.kind) {
    case 'policy':
      return [
        `  policy file ${difference.path}: ${digest(difference.recorded)} recorded, ${digest(difference.replayed)} now`,
      ];
    case 'session':
      return [
        `  ${difference.field}: recorded ${difference.recorded}, replayed ${difference.replayed}`,
      ];
    case 'decision':
      return [
        `  ${difference.toolUseId} (${difference.toolName}) decision:`,
        `      recorded: ${decision(difference.recorded)}`,
        `      replayed: ${decision(difference.replayed)}`,
      ];
    case 'result': {
      const { recorded, replayed } = difference;
      const errors =
        replayed !== null && recorded.isError !== replayed.isError
          ? ` (is_error ${recorded.isError} → ${replayed.isError})`
          : '';
      if (replayed === null)
        return [
          `  ${difference.toolUseId} (${difference.toolName}) result: the replay never ran it`,
        ];
      return [
        `  ${difference.toolUseId} (${difference.toolName}) result${errors}:`,
        ...difference.diff.split('\n').map((line) => `      ${line}`),
      ];
    }
    case 'outcome':
      return [`  the run ended: recorded ${difference.recorded}, replayed ${difference.replayed}`];
  }
}

function digest(sha256: string | null): string {
  return sha256 === null ? 'absent' : `sha256 ${sha256.slice(0, 12)}`;
}

function decision(summary: DecisionSummary | null): string {
  if (summary === null) return 'none (the call ended before a decision, or never ran)';
  const rules = summary.rules.length > 0 ? ` by ${summary.rules.join(', ')}` : '';
  return `${summary.behavior} (${summary.source}${rules}): ${summary.reason}`;
}

/** C0 and C1 control characters but tab, as \x.. (a line break cannot occur within a line). */
function escapeControls(line: string): string {
  return line.replace(
    // eslint-disable-next-line no-control-regex -- these are what is escaped
    /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g,
    (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
