/**
 * Text written by people the maintainers have not vouched for (issue bodies, PR descriptions, test
 * output a PR's code printed), prepared to reach the model as data:
 *
 * 1. stripHiddenText removes what GitHub does not show the maintainer who read it but a model would
 *    read: HTML comments, Unicode tag characters (invisible ASCII look-alikes), bidirectional
 *    overrides, zero-width spaces. What was removed is reported, not silently dropped.
 * 2. quoteUntrusted puts it inside a fence of backticks longer than any run of backticks in the text,
 *    so no text can contain the closing line (no tag or fence inside can end the quote).
 */

export interface StrippedText {
  text: string;
  /** What kinds of hidden content were removed, for a note beside the quote. */
  removed: string[];
}

const HIDDEN: readonly { what: string; pattern: RegExp }[] = [
  // GitHub hides an unclosed comment to the end of the text, so that much goes too.
  { what: 'HTML comments', pattern: /<!--[\s\S]*?(?:-->|$)/g },
  { what: 'invisible Unicode tag characters', pattern: /[\u{E0000}-\u{E007F}]/gu },
  { what: 'bidirectional control characters', pattern: /[\u202A-\u202E\u2066-\u2069]/g },
  { what: 'zero-width characters', pattern: /[\u200B\u2060\uFEFF]/g },
];

export function stripHiddenText(text: string): StrippedText {
  let result = text;
  const removed: string[] = [];
  for (const { what, pattern } of HIDDEN) {
    const next = result.replace(pattern, '');
    if (next !== result) removed.push(what);
    result = next;
  }
  return { text: result, removed };
}

/** A fence no line of `text` can close: one backtick more than its longest run, at least three. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `text` in a fence it cannot close, with `label` as the info string. */
export function fenced(label: string, text: string): string {
  const fence = fenceFor(text);
  return `${fence}${label}\n${text}\n${fence}`;
}

/**
 * `text` fenced, under a one-line `label` (e.g. `untrusted-issue`); hidden content stripped and
 * noted after the fence.
 */
export function quoteUntrusted(label: string, text: string): string {
  const { text: visible, removed } = stripHiddenText(text);
  const lines = [fenced(label, visible)];
  if (removed.length > 0) {
    lines.push(`(ci-agent removed hidden content from it: ${removed.join(', ')}.)`);
  }
  return lines.join('\n');
}
