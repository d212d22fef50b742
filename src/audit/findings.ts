/**
 * What `ci-agent audit explain` and `audit judge` find in a run, each under a stable code
 * (docs/AUDIT.md): scripts match on `code`, never on the message, which may be reworded.
 */

export const FINDING_CODES = {
  /** The run's policy (or a PreToolUse hook) denied a call. */
  'call-denied': 'a call was denied',
  /** A hook did not do its job: never started, timed out, crashed, printed bad output. */
  'hook-failed': 'a hook failed',
  /** The judged policy would have denied a call the run made. */
  'judge-would-deny': 'the judged policy would deny a call',
  /** The judged policy would have asked about a call (nobody can answer in CI). */
  'judge-would-ask': 'the judged policy would ask about a call',
  /** The judged policy cannot decide a call: its tool is unknown or its input does not parse. */
  'judge-undecidable': 'the judged policy cannot decide a call',
  /** A line of the log is not what its kind should be; what it said is missing from the account. */
  'log-line-malformed': 'a log line is malformed',
} as const;

export type FindingCode = keyof typeof FINDING_CODES;

export interface Finding {
  code: FindingCode;
  /** One sentence for a person; log text in it is as the log had it (views neutralise it). */
  message: string;
  /** The call it concerns, by its 1-based index and tool_use id. */
  call?: { index: number; toolUseId: string; tool: string };
  /** The rule behind it and the file it came from. */
  rules?: readonly { rule: string; source: string }[];
  /** The log line it was found on (1-based). */
  line?: number;
}
