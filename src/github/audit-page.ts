/**
 * The artifact's `audit.html` (src/audit/html.ts): the run's tool log and patch as one page a
 * reviewer opens, written beside them before the upload. Both files are already masked (and
 * redacted again after the push scan) when it is written, so the page shows nothing they do
 * not. The page shows the chain verified as `ci-agent audit` does it, against the final hash the
 * run publishes and its session (the run id): what a reviewer opens says whether the log holds.
 * A page that cannot be written is a warning: the log itself is the record.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { renderAuditHtml } from '../audit/html.js';
import { parseLogLines, readAuditRun } from '../audit/records.js';
import { verifyLogText } from '../audit/verify.js';
import { errorMessage } from '../util/errors.js';

/** What the log is verified against: the run's published final hash and its session id. */
export interface AuditPageChecks {
  /** `sha256:<hex>`: the `log-hash` the run publishes; absent: the log could not be closed. */
  logHash?: string;
  sessionId?: string;
}

/** Writes `paths.html` from `paths.log` and `paths.diff`; the warning when it could not. */
export function writeAuditPage(
  paths: { log: string; diff: string; html: string },
  title: string,
  checks: AuditPageChecks = {},
): string | undefined {
  try {
    if (!existsSync(paths.log)) return undefined;
    const text = readFileSync(paths.log, 'utf8');
    const run = readAuditRun(parseLogLines(text));
    const verdict = verifyLogText(text, {
      ...(checks.logHash !== undefined && { expectedHash: checks.logHash }),
      ...(checks.sessionId !== undefined && { expectedSessionId: checks.sessionId }),
    });
    const patch = existsSync(paths.diff) ? readFileSync(paths.diff, 'utf8') : undefined;
    const verification = {
      verdict,
      ...(checks.logHash !== undefined && {
        checkedAgainst: { hash: checks.logHash, from: 'log-hash' as const },
      }),
    };
    writeFileSync(
      paths.html,
      renderAuditHtml({ run, title, verification, ...(patch !== undefined && { patch }) }),
    );
    return undefined;
  } catch (error) {
    return `the audit page could not be written (${errorMessage(error)}); the tool log is in the artifact`;
  }
}
