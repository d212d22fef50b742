/**
 * What a lenient parse of one settings file found: warnings (something ignored) and errors
 * (something that must not be ignored), each located in the file.
 */
import type { ParsedDocument } from './document.js';
import type { PathSegment, PolicyIssue } from './policy-error.js';
import { describeValue, formatIssue, PolicyError } from './policy-error.js';

export class Findings {
  readonly warnings: string[] = [];
  /** The same warnings with their positions, for annotations on the file (warnings[i] is the text of warningIssues[i]). */
  readonly warningIssues: PolicyIssue[] = [];
  private readonly errors: PolicyIssue[] = [];

  constructor(
    private readonly file: string,
    private readonly document: ParsedDocument,
  ) {}

  /** `onKey`: point at the key rather than its value (for keys that are themselves the problem). */
  warn(path: readonly PathSegment[], message: string, onKey = false): void {
    const issue = this.issue(path, message, onKey);
    this.warnings.push(formatIssue(issue));
    this.warningIssues.push(issue);
  }

  fail(path: readonly PathSegment[], expected: string, value: unknown): void {
    this.errors.push(this.issue(path, `${expected}, got ${describeValue(value)}`, false));
  }

  /** Throws every error at once, so one run shows all there is to fix. */
  throwIfFailed(): void {
    if (this.errors.length > 0) throw new PolicyError(this.errors);
  }

  private issue(path: readonly PathSegment[], message: string, key: boolean): PolicyIssue {
    return { file: this.file, path, ...this.document.locate(path, { key }), message };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
