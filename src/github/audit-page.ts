/**
 * The artifact's `audit.html` (src/audit/html.ts): the run's tool log and patch as one page a
 * reviewer opens, written beside them before the upload. Both files are already masked (and
 * redacted again after the push scan) when it is written, so the page shows nothing they do
 * not. A page that cannot be written is a warning: the log itself is the record.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { renderAuditHtml } from '../audit/html.js';
import { parseLogLines, readAuditRun } from '../audit/records.js';
import { errorMessage } from '../util/errors.js';

/** Writes `paths.html` from `paths.log` and `paths.diff`; the warning when it could not. */
export function writeAuditPage(
  paths: { log: string; diff: string; html: string },
  title: string,
): string | undefined {
  try {
    if (!existsSync(paths.log)) return undefined;
    const run = readAuditRun(parseLogLines(readFileSync(paths.log, 'utf8')));
    const patch = existsSync(paths.diff) ? readFileSync(paths.diff, 'utf8') : undefined;
    writeFileSync(
      paths.html,
      renderAuditHtml({ run, title, ...(patch !== undefined && { patch }) }),
    );
    return undefined;
  } catch (error) {
    return `the audit page could not be written (${errorMessage(error)}); the tool log is in the artifact`;
  }
}
