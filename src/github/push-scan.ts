/**
 * What is about to be pushed, checked for secrets (issue 12, item 4). Before a push:
 *   1. the added lines of each commit to push (every file read as text, whatever its
 *      attributes; no textconv, no external diff) and the new files' names are searched for the
 *      run's secrets in every form the masker knows (raw, URL-encoded, reversed, base64, hex),
 *      also across the line breaks of a run of added lines (`base64` wraps at 76 columns);
 *   2. the same added lines are linted with secretlint's recommended rule set, for credentials the
 *      run never knew (a cloud key, a private key, a database URL with its password);
 *   3. the branch name and the messages of the commits to push are searched for the run's secrets.
 * Any finding refuses the push; the caller keeps the work as a patch with every value found
 * redacted.
 *
 * secretlint rather than our own patterns: its rules are maintained per provider (token formats
 * change, new providers appear), each names itself, and its core runs in-process on a string.
 * gitleaks' rules are the other maintained set, but they ship as TOML for a Go binary. Bundled,
 * secretlint adds about 80 KB, loaded only when something is about to be pushed. Its
 * `secretlint-disable` comment filter is left out: the agent writes the files it would filter.
 */
import { randomUUID } from 'node:crypto';
import { basename, extname, join } from 'node:path';
import { createSecretFinder } from '../log/secret-masker.js';
import type { SecretEncoding } from '../log/secret-masker.js';
import type { Git } from './git.js';

/** One place that holds a secret. `line` is 1-based; 0 means the file's name itself. */
export interface AddedLineFinding {
  file: string;
  line: number;
  /** "a secret of this run (base64)", or the secretlint rule and message id; never the value. */
  rule: string;
}

export interface AddedLinesScan {
  findings: AddedLineFinding[];
  /** The texts found, so that the patch and the report can redact them too. */
  values: string[];
}

export interface ScanOptions {
  /** The run's secret values (the masker's list). */
  secrets: readonly string[];
}

/** `patch`: `git diff --text` output (any context size). */
export async function scanAddedLines(patch: string, options: ScanOptions): Promise<AddedLinesScan> {
  const files = addedLines(patch);
  const known = knownSecretSearch(options.secrets);
  const findings: AddedLineFinding[] = [];
  const values: string[] = [];
  for (const file of files) {
    for (const hit of known(file.path)) {
      findings.push({ file: file.path, line: 0, rule: hit.rule });
      values.push(hit.text);
    }
    for (const run of consecutiveRuns(file.lines)) {
      const joined = run.map((entry) => entry.text).join('');
      for (const hit of known(joined)) {
        const line = lineAt(run, hit.index);
        findings.push({ file: file.path, line, rule: hit.rule });
        values.push(...fragments(run, hit.index, hit.text.length));
      }
    }
  }
  const linted = await lintAddedLines(files);
  findings.push(...linted.findings);
  values.push(...linted.values);
  return { findings: firstPerLine(findings, files), values };
}

export interface PushScan {
  /** Each place, described for the headline ("src/a.js line 3: …"), in patch order. */
  findings: string[];
  values: string[];
  /** `git diff --text base head`: the artifact's patch when the push is refused. */
  patch: string;
}

/**
 * Every diff ci-agent reads for the scan: each file as text whatever its attributes, no textconv,
 * no external diff, no colour, and fixed prefixes whatever `diff.noprefix` says.
 */
const TEXT_DIFF = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--text',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

/**
 * Scans what pushing `head` (as `branch`) would publish beyond `base`: every commit of the range,
 * each against each of its parents (`-m`), since a secret the agent committed and then removed is
 * still in the history that is pushed.
 */
export async function scanPush(
  git: Git,
  options: ScanOptions & { base: string; head: string; branch: string },
): Promise<PushScan> {
  const range = `${options.base}..${options.head}`;
  const quoting = ['-c', 'core.quotePath=false'];
  // A header line no file can hold by chance (a NUL would not do: binary content has them).
  const marker = `ci-agent-commit-${randomUUID()}`;
  const [patch, history, log] = await Promise.all([
    git.run([...quoting, 'diff', ...TEXT_DIFF, options.base, options.head]),
    git.run([...quoting, 'log', '-p', '-m', ...TEXT_DIFF, `--format=${marker} %h`, range]),
    git.run(['log', `--format=${marker} %h%n%B`, range]),
  ]);
  const commits = byCommit(history, marker);
  const several = new Set(commits.map((commit) => commit.sha)).size > 1;
  const findings: string[] = [];
  const values: string[] = [];
  for (const commit of commits) {
    const scan = await scanAddedLines(commit.patch, options);
    values.push(...scan.values);
    for (const finding of scan.findings) {
      const place =
        finding.line === 0 ? `the name of ${finding.file}` : `${finding.file} line ${finding.line}`;
      const described = `${place}${several ? ` in commit ${commit.sha}` : ''}: ${finding.rule}`;
      if (!findings.includes(described)) findings.push(described);
    }
  }
  const known = knownSecretSearch(options.secrets);
  for (const hit of known(options.branch)) {
    findings.push(`the branch name: ${hit.rule}`);
    values.push(hit.text);
  }
  for (const { sha, patch: message } of byCommit(log, marker)) {
    for (const hit of known(message)) {
      findings.push(`the message of commit ${sha}: ${hit.rule}`);
      values.push(hit.text);
    }
  }
  return { findings, values, patch };
}

/** `git log --format='<marker> %h…'` output, cut at each marker line: each commit's text. */
function byCommit(output: string, marker: string): Array<{ sha: string; patch: string }> {
  return output
    .split(new RegExp(`^${marker} `, 'm'))
    .filter(Boolean)
    .map((part) => {
      const newline = part.indexOf('\n');
      return newline === -1
        ? { sha: part.trim(), patch: '' }
        : { sha: part.slice(0, newline), patch: part.slice(newline + 1) };
    });
}

/** The headline's reason for a refused push: the first places, never a value. */
export function refusalReason(findings: readonly string[]): string {
  const shown = findings.slice(0, 3).join('; ');
  const more = findings.length > 3 ? `; and ${findings.length - 3} more` : '';
  return `nothing was pushed: what would be pushed holds a secret (${shown}${more}); the patch, with it redacted, is in the artifact`;
}

interface AddedLine {
  line: number;
  text: string;
}

interface FileAdditions {
  path: string;
  lines: AddedLine[];
}

/**
 * The added lines of each file of a patch, numbered in the new file. Hunks are read by their
 * header's counts, so an added line that itself starts with `++` is never taken for a header.
 */
export function addedLines(patch: string): FileAdditions[] {
  const files: FileAdditions[] = [];
  const rows = patch.split('\n');
  let current: FileAdditions | undefined;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    if (row.startsWith('diff --git ')) {
      current = undefined;
    } else if (row.startsWith('+++ ')) {
      const target = row.slice(4).replace(/\t$/, '');
      current =
        target === '/dev/null' ? undefined : { path: stripPrefix(unquote(target)), lines: [] };
      if (current) files.push(current);
    } else if (row.startsWith('@@ ') && current) {
      const header = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(row);
      if (!header) continue;
      let oldLeft = Number(header[1] ?? 1);
      let newLeft = Number(header[3] ?? 1);
      let line = Number(header[2]);
      while ((oldLeft > 0 || newLeft > 0) && index + 1 < rows.length) {
        const body = rows[++index]!;
        if (body.startsWith('\\')) continue;
        if (body.startsWith('+')) {
          current.lines.push({ line: line++, text: body.slice(1).replace(/\r$/, '') });
          newLeft--;
        } else if (body.startsWith('-')) {
          oldLeft--;
        } else {
          line++;
          oldLeft--;
          newLeft--;
        }
      }
    }
  }
  return files;
}

/** `b/path` → `path`; the diff is made with explicit prefixes. */
function stripPrefix(path: string): string {
  return path.startsWith('b/') ? path.slice(2) : path;
}

/** git's C-style quoting of an unusual path (`"a\"b\tc"`, octal bytes), undone. */
function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  const escapes: Record<string, number> = {
    n: 10,
    t: 9,
    r: 13,
    '"': 34,
    '\\': 92,
    a: 7,
    b: 8,
    f: 12,
    v: 11,
  };
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      index += 3;
    } else {
      const next = body[++index] ?? '';
      bytes.push(escapes[next] ?? next.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

interface KnownHit {
  index: number;
  text: string;
  rule: string;
}

/** A search of text for the run's secrets, by the masker's own finder. */
function knownSecretSearch(secrets: readonly string[]): (text: string) => KnownHit[] {
  const find = createSecretFinder(secrets);
  return (text) =>
    find(text).map((match) => ({
      index: match.index,
      text: text.slice(match.index, match.index + match.length),
      rule: ofThisRun(match.encoding, match.whole),
    }));
}

function ofThisRun(encoding: SecretEncoding, whole: boolean): string {
  const what = whole ? 'a secret of this run' : 'the start of a secret of this run';
  return encoding === 'raw' ? what : `${what} (${encoding})`;
}

/** Runs of added lines with consecutive numbers: text that reads on from line to line. */
function consecutiveRuns(lines: readonly AddedLine[]): AddedLine[][] {
  const runs: AddedLine[][] = [];
  for (const entry of lines) {
    const last = runs.at(-1);
    if (last && last.at(-1)!.line + 1 === entry.line) last.push(entry);
    else runs.push([entry]);
  }
  return runs;
}

/** The line of `run` on which offset `index` of the run's joined text falls. */
function lineAt(run: readonly AddedLine[], index: number): number {
  let offset = 0;
  for (const entry of run) {
    offset += entry.text.length;
    if (index < offset) return entry.line;
  }
  return run.at(-1)!.line;
}

/** The pieces of a match that spans lines, one per line, for redaction line by line. */
function fragments(run: readonly AddedLine[], index: number, length: number): string[] {
  const pieces: string[] = [];
  let offset = 0;
  for (const entry of run) {
    const start = Math.max(index - offset, 0);
    const end = Math.min(index + length - offset, entry.text.length);
    if (start < end) pieces.push(entry.text.slice(start, end));
    offset += entry.text.length;
  }
  return pieces;
}

/** One finding per place, the run's own secrets before patterns; files in patch order. */
function firstPerLine(
  findings: readonly AddedLineFinding[],
  files: readonly FileAdditions[],
): AddedLineFinding[] {
  const order = new Map(files.map((file, index) => [file.path, index]));
  const seen = new Set<string>();
  return findings
    .filter((finding) => {
      const key = `${finding.file}\0${finding.line}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.line - b.line);
}

const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments';
/** Below a device, so never a directory (ENOTDIR): nothing under it can be read. */
const NO_DIRECTORY = '/dev/null/ci-agent-push-scan';
const RULE_PREFIX = '@secretlint/secretlint-rule-';

/**
 * secretlint over each file's added lines, placed at their own line numbers (the lines between
 * left empty), so that what it reports is where the line is in the file.
 */
async function lintAddedLines(
  files: readonly FileAdditions[],
): Promise<{ findings: AddedLineFinding[]; values: string[] }> {
  const findings: AddedLineFinding[] = [];
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
