/**
 * An audit as text for a terminal, and as JSON for a program. Names from the artifact (file
 * names, session ids) are printed JSON-quoted: they are data, and a control character in one
 * must not reach the terminal as itself.
 */
import type { AuditResult } from './audit.js';

/** What each exit code of `ci-agent audit` says, on its last line (`resultLine`). */
const VERDICT_WORDS = {
  0: 'verified, nothing to report',
  1: 'verified, with findings',
  2: 'FAILED verification',
} as const;

export function renderAuditText(result: AuditResult): string {
  const { verdict, source } = result;
  const lines = [
    `ci-agent audit of ${JSON.stringify(source.origin)} (${source.kind}: ${source.files.length} file(s), log ${JSON.stringify(source.log)})`,
    `  chain:        ${chainWords(result)}`,
    `  session:      ${verdict.sessionId === undefined ? '-' : JSON.stringify(verdict.sessionId)}${verdict.chains > 1 ? ` (the last of ${verdict.chains} runs)` : ''}`,
    verdict.failure
      ? `  last good:    ${verdict.finalHash ?? '- (none)'}`
      : `  final hash:   ${verdict.finalHash ?? '-'}${verdict.closed ? '' : ' (of the last whole line: the log is not closed)'}`,
    `  checked with: ${result.checkedAgainst ? `${result.checkedAgainst.hash} (${result.checkedAgainst.from === 'report' ? "report.md's" : '--expect-hash'})` : 'no published hash'}`,
    `  attestation:  ${result.attestation.status}`,
    '',
  ];
  for (const finding of result.findings) {
    const where = finding.line === undefined ? '' : ` line ${finding.line}`;
    lines.push(`${finding.severity} ${finding.code}${where}: ${finding.message}`);
  }
  lines.push(`${result.findings.length > 0 ? '\n' : ''}${resultLine(result.exitCode)}`, '');
  return lines.join('\n');
}

/** The audit's last line: the verdict in words and the exit code it makes. */
export function resultLine(exitCode: 0 | 1 | 2): string {
  return `Result: ${VERDICT_WORDS[exitCode]} (exit ${exitCode})`;
}

function chainWords(result: AuditResult): string {
  const { verdict } = result;
  const count = `${verdict.records.length} line(s) verified`;
  if (verdict.failure)
    return `broken at line ${verdict.failure.line} (${verdict.failure.kind}); ${count} before it`;
  return verdict.status === 'verified' ? `${count}, closed` : `${count}, incomplete`;
}

/** The audit as one JSON document: everything but the records themselves (their count). */
export function renderAuditJson(result: AuditResult): string {
  const { records, ...verdict } = result.verdict;
  return `${JSON.stringify({ ...result, verdict: { ...verdict, lines: records.length } }, null, 2)}\n`;
}
