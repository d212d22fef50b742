/**
 * Shapes a command's output for the model (docs/CC-COMPAT.md §3 Bash): each stream keeps its head up to
 * the output limit with a note counting the lines cut; the model text is stdout, then stderr,
 * under an `Exit code N` line for a failure; failure text above 10 000 characters keeps its head
 * and tail.
 */
import type { HeadBuffer } from '../../../process/head-buffer.js';

/** The structured result, as PostToolUse hooks receive it in `tool_response`. */
export interface BashOutput {
  stdout: string;
  stderr: string;
  /** Stopped by the timeout or an abort before it finished. */
  interrupted: boolean;
  isImage: false;
  /** Every command of the line is one that prints nothing on success (`mkdir`, `mv`, `cd`…). */
  noOutputExpected: boolean;
  /** The shell's exit status; null when the command was interrupted or could not start. */
  exitCode: number | null;
  /** Why a non-zero exit status is not a failure (`No matches found` for grep exit 1). */
  returnCodeInterpretation?: string;
  /** The directory the shell's cwd was set back to, when the command left the workspace. */
  cwdReset?: string;
}

export const ERROR_TEXT_LIMIT = 10_000;

// The buffer belongs to the process module, which fills it; the Bash tool shapes what it holds.
export { HeadBuffer } from '../../../process/head-buffer.js';

/** stdout for the model: leading blank lines and trailing whitespace removed. */
export function formatStdout(buffer: HeadBuffer): string {
  return withTruncationNote(buffer.text.replace(/^(?:[ \t\r]*\n)+/, '').trimEnd(), buffer);
}

export function formatStderr(buffer: HeadBuffer): string {
  return withTruncationNote(buffer.text.trim(), buffer);
}

function withTruncationNote(text: string, buffer: HeadBuffer): string {
  const lines = buffer.truncatedLines;
  return lines === 0 ? text : `${text}\n\n... [${lines} lines truncated] ...`;
}

export function isErrorOutput(output: BashOutput): boolean {
  if (output.interrupted) return true;
  return output.exitCode !== 0 && output.returnCodeInterpretation === undefined;
}

export function renderBashOutput(output: BashOutput): string {
  const isError = isErrorOutput(output);
  const body = [output.stdout, output.stderr].filter((part) => part !== '').join('\n');
  const lines: string[] = [];
  if (isError && output.exitCode !== null) lines.push(`Exit code ${output.exitCode}`);
  if (body !== '') lines.push(body);
  else if (output.returnCodeInterpretation) lines.push(output.returnCodeInterpretation);
  if (output.cwdReset !== undefined) lines.push(`Shell cwd was reset to ${output.cwdReset}`);
  const text = lines.join('\n');
  if (text === '') return '(no output)';
  return isError ? capErrorText(text) : text;
}

export function capErrorText(text: string): string {
  if (text.length <= ERROR_TEXT_LIMIT) return text;
  const half = ERROR_TEXT_LIMIT / 2;
  const cut = text.length - ERROR_TEXT_LIMIT;
  return `${text.slice(0, half)}\n\n... [${cut} characters truncated] ...\n\n${text.slice(-half)}`;
}
