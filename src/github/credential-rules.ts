/**
 * Credentials the run never knew, in the lines a push adds: secretlint's recommended rule set
 * (`@secretlint/core` with `@secretlint/secretlint-rule-preset-recommend`), run in-process.
 *
 * secretlint rather than patterns of our own: its rules are maintained per provider (token formats
 * change, new providers appear), each names itself, and its core lints a string in about a
 * millisecond. gitleaks' rules are the other maintained set, but they ship as TOML for a Go binary.
 * Bundled, secretlint adds about 70 KB, in chunks loaded only when something is about to be
 * pushed. Its `secretlint-disable` comment filter is left out: the agent writes the comments it
 * would obey.
 */
import { basename, extname, join } from 'node:path';
import type { FileAdditions } from './added-lines.js';

export interface CredentialFinding {
  file: string;
  line: number;
  /** The rule's message id and name, e.g. "AWSSecretAccessKey (secretlint rule aws)". */
  rule: string;
}

const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments';
/** Below a device, so never a directory (ENOTDIR): nothing under it can be read. */
const NO_DIRECTORY = '/dev/null/ci-agent-push-scan';
const RULE_PREFIX = '@secretlint/secretlint-rule-';

/**
 * secretlint over each file's added lines, placed at their own line numbers (the lines between
 * left empty), so that what it reports is where the line is in the file.
 */
export async function findCredentials(
  files: readonly FileAdditions[],
): Promise<{ findings: CredentialFinding[]; values: string[] }> {
  const findings: CredentialFinding[] = [];
  const values: string[] = [];
  if (files.every((file) => file.lines.length === 0)) return { findings, values };
  // Loaded here: a run that pushes nothing never pays for it.
  const [{ lintSource }, { rules }] = await Promise.all([
    import('@secretlint/core'),
    import('@secretlint/secretlint-rule-preset-recommend'),
  ]);
  const config = {
    rules: rules
      .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
      .map((rule) => ({ id: rule.meta.id, rule })),
  };
  for (const file of files) {
    if (file.lines.length === 0) continue;
    const rows: string[] = new Array<string>(file.lines.at(-1)!.line).fill('');
    for (const entry of file.lines) rows[entry.line - 1] = entry.text;
    // secretlint drops a leading byte order mark, which would shift every range it reports.
    const content = rows.join('\n').replace(/^\uFEFF/, '');
    const result = await lintSource({
      // The name keeps what the rules read from it (the extension, `package.json`, `.npmrc`) in
      // a directory that cannot exist: the p12 rule reads its file from disk, and the agent's
      // file could be a link to anything (/dev/zero). A .p12 key is binary: it is not linted.
      source: {
        content,
        filePath: join(NO_DIRECTORY, basename(file.path)),
        ext: extname(file.path),
        contentType: 'text',
      },
      // Unmasked: the values are needed for redaction; the findings never carry them.
      options: { config, maskSecrets: false, noPhysicFilePath: true },
    });
    for (const message of result.messages) {
      // The rule's data holds what it matched (`range` is not always the match: the AWS rule's
      // starts at its key name) beside labels (`typeName`), which are not in the text; the
      // range's text only when a rule gives no such data.
      const data = Object.values(message.data ?? {}).filter(
        (value): value is string =>
          typeof value === 'string' && value !== '' && content.includes(value),
      );
      const found = data.length > 0 ? data : [content.slice(...message.range)];
      if (found.every(isPlaceholder)) continue;
      const rule = message.ruleId.startsWith(RULE_PREFIX)
        ? message.ruleId.slice(RULE_PREFIX.length)
        : message.ruleId;
      findings.push({
        file: file.path,
        line: message.loc.start.line,
        rule: `${message.messageId} (secretlint rule ${rule})`,
      });
      for (const text of found) values.push(...text.split('\n').map((piece) => piece.trim()));
    }
  }
  return { findings, values };
}

/**
 * Documentation's stand-ins (`ghp_xxxxxxxx…`, `AKIA0000…`) match the rules' shapes but hold no
 * secret: more than half of their characters are one repeated character. A real token's most
 * common character is a small share of it.
 */
export function isPlaceholder(text: string): boolean {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  return Math.max(...counts.values()) * 2 > [...text].length;
}
