/**
 * The one error a bad policy or settings file raises: every problem found, one line each, naming
 * the file, the position, the path inside the file, the bad value and the expected form.
 */

export type PathSegment = string | number;

export interface PolicyIssue {
  file: string;
  /** Where inside the file, as segments: `['hooks', 'PreToolUse', 0, 'hooks', 1, 'timeout']`. */
  path: readonly PathSegment[];
  line?: number;
  column?: number;
  /** What is wrong and what was expected, e.g. `expected a positive number of seconds, got "10s"`. */
  message: string;
}

const MAX_LINES = 10;

export class PolicyError extends Error {
  override readonly name = 'PolicyError';

  constructor(readonly issues: readonly PolicyIssue[]) {
    const lines = issues.slice(0, MAX_LINES).map(formatIssue);
    if (issues.length > MAX_LINES) lines.push(`… and ${issues.length - MAX_LINES} more problems`);
    super(lines.join('\n'));
  }
}

/** `hooks.PreToolUse[0].hooks[1].timeout`; keys that are not plain names are quoted. */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) text += text ? `.${segment}` : segment;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

export function formatIssue(issue: PolicyIssue): string {
  const position = issue.line === undefined ? '' : `:${issue.line}:${issue.column ?? 1}`;
  const where = issue.path.length > 0 ? ` ${formatPath(issue.path)}:` : '';
  return `${issue.file}${position}:${where} ${issue.message}`;
}

/** A value as the reader wrote it, short enough for one line. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  // JSON would print YAML's .inf and .nan as null.
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return String(value);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // YAML aliases can point at an ancestor.
    return 'a value that contains itself';
  }
  if (text === undefined) return `a ${typeof value}`;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
