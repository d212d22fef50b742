/**
 * One audit of a run's files (docs/AUDIT.md), in order:
 *   1. the tool log's chain, against the final hash given (--expect-hash) or, failing that, the
 *      one report.md published (verify.ts);
 *   2. the attestation, when the artifact has one (attestation.ts);
 *   3. the findings, each with a stable code, and the exit code they make: 0 verified and clean,
 *      1 findings, 2 the log fails verification (or, before this, cannot be read).
 * The explanation and judgement of what the run did (explain.ts, judge.ts) add their findings to
 * the same list.
 */
import { checkAttestation } from './attestation.js';
import type { AttestationCheck } from './attestation.js';
import { ATTESTATION_FILE } from './source.js';
import type { AuditSource } from './source.js';
import { normalizeHash, verifyLogText } from './verify.js';
import type { ChainVerdict } from './verify.js';

export type FindingSeverity = 'failure' | 'finding' | 'note';

export interface AuditFinding {
  /** Stable, documented in docs/AUDIT.md. */
  code: string;
  /** failure: exit 2; finding: exit 1; note: said, no effect on the exit code. */
  severity: FindingSeverity;
  /** 1-based line of the tool log it is about, if any. */
  line?: number;
  message: string;
}

export interface AuditOptions {
  /** `--expect-hash`: the final hash the run published (report, job summary, `log-hash`). */
  expectHash?: string;
  /** The session the log must be of (the action's audit: the run id). */
  expectSessionId?: string;
}

export interface AuditResult {
  source: { origin: string; kind: AuditSource['kind']; log: string; files: string[] };
  verdict: ChainVerdict;
  /** The hash the log was checked against, and where it came from. */
  checkedAgainst: { hash: string; from: 'expect-hash' | 'report' } | undefined;
  attestation: AttestationCheck;
  findings: AuditFinding[];
  exitCode: 0 | 1 | 2;
}

export function auditSource(source: AuditSource, options: AuditOptions = {}): AuditResult {
  const given = normalizeHash(options.expectHash);
  const checkedAgainst = given
    ? { hash: given, from: 'expect-hash' as const }
    : source.publishedHash
      ? { hash: source.publishedHash, from: 'report' as const }
      : undefined;
  const verdict = verifyLogText(source.logText, {
    ...(checkedAgainst && { expectedHash: checkedAgainst.hash }),
    ...(options.expectSessionId !== undefined && { expectedSessionId: options.expectSessionId }),
  });
  const attestation = checkAttestation(
    source.attestation,
    source.files,
    source.logName,
    ATTESTATION_FILE,
  );
  const findings = [
    ...chainFindings(verdict, source, checkedAgainst),
    ...attestationFindings(attestation),
  ];
  // A report published by the run that disagrees with the hash the caller expects.
  if (given && source.publishedHash && source.publishedHash !== given) {
    findings.push({
      code: 'report-hash-differs',
      severity: 'failure',
      message: `${source.origin}'s report.md publishes ${source.publishedHash}, not the expected ${given}: the report is of another log`,
    });
  }
  return {
    source: {
      origin: source.origin,
      kind: source.kind,
      log: source.logName,
      files: [...source.files.keys()].sort(),
    },
    verdict,
    checkedAgainst,
    attestation,
    findings,
    exitCode: exitCodeOf(findings),
  };
}

export function exitCodeOf(findings: readonly AuditFinding[]): 0 | 1 | 2 {
  if (findings.some((finding) => finding.severity === 'failure')) return 2;
  if (findings.some((finding) => finding.severity === 'finding')) return 1;
  return 0;
}

function chainFindings(
  verdict: ChainVerdict,
  source: AuditSource,
  checkedAgainst: AuditResult['checkedAgainst'],
): AuditFinding[] {
  const findings: AuditFinding[] = [];
  if (verdict.failure) {
    findings.push({
      code: verdict.failure.code,
      severity: 'failure',
      line: verdict.failure.line,
      message: `${source.logName}: ${verdict.failure.message}`,
    });
    return findings;
  }
  if (verdict.status === 'incomplete') {
    findings.push({
      code: 'incomplete',
      severity: 'finding',
      line: verdict.partialLine ?? (verdict.records.at(-1)?.line ?? 0) + 1,
      message:
        verdict.partialLine !== undefined
          ? `${source.logName} ends in part of line ${verdict.partialLine}: the run was killed while writing it; the ${verdict.records.length} whole lines before it verify`
          : `${source.logName} has no closing line: the run was killed or is still going; its ${verdict.records.length} lines verify`,
    });
  }
  if (checkedAgainst === undefined) {
    findings.push({
      code: 'unpublished',
      severity: 'note',
      message:
        "no published final hash to check against (give --expect-hash with the run's log-hash): the chain proves the lines are in order and unchanged relative to each other, not that they are the run's",
    });
  }
  return findings;
}

function attestationFindings(check: AttestationCheck): AuditFinding[] {
  switch (check.status) {
    case 'not-attested':
      return [{ code: 'not-attested', severity: 'note', message: check.message }];
    case 'subjects-match':
      return [{ code: 'attested', severity: 'note', message: check.message }];
    case 'mismatch':
    case 'unreadable':
      return [{ code: `attestation-${check.status}`, severity: 'failure', message: check.message }];
  }
}
