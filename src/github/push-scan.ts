/**
 * What is about to be pushed, checked for secrets (issue 12, item 4). Before a push:
 *   1. the added lines of each commit to push (every file read as text, whatever its
 *      attributes; no textconv, no external diff) and the new files' names are searched for the
 *      run's secrets in every form the masker knows (raw, URL-encoded, reversed, hex, base64,
 *      cut short), also across the line breaks of a run of added lines (`base64` wraps at 76);
 *   2. the same added lines are linted for credentials the run never knew (credential-rules.ts:
 *      a cloud key, a private key, a database URL with its password);
 *   3. the branch name and the messages of the commits to push are searched for the run's secrets.
 * Any finding refuses the push; the caller keeps the work as a patch with every value found
 * redacted.
 */
import { randomUUID } from 'node:crypto';
import { createSecretFinder } from '../log/secret-masker.js';
import type { SecretEncoding } from '../log/secret-masker.js';
import { addedLines } from './added-lines.js';
import type { AddedLine, FileAdditions } from './added-lines.js';
import { findCredentials } from './credential-rules.js';
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
  const linted = await findCredentials(files);
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
