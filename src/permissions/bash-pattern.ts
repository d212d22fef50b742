/**
 * The text of a Bash rule, compiled (docs/CC-COMPAT.md §2.3, current syntax):
 *
 *   - no `*`: an exact match against the whitespace-normalised command;
 *   - `*` anywhere matches any run of characters, spaces included (`git * main`);
 *   - a trailing ` *` also matches the bare command and enforces a word boundary: `ls *` matches
 *     `ls` and `ls -la` but not `lsof` (`ls*` matches all three);
 *   - a trailing `:*` is the classic spelling of the same (`npm test:*`); `:` elsewhere is literal;
 *   - `\*` is a literal star.
 *
 * Patterns are compared with one simple command at a time, so a wildcard never spans an operator.
 */

export interface BashPattern {
  /** The specifier, whitespace-normalised. */
  text: string;
  /** Whether the pattern has a wildcard (a prefix rule): such rules never allow what cannot be parsed. */
  wildcard: boolean;
  /** Every match starts with this literal text: a cheap test before the regular expression. */
  literalPrefix: string;
  regex: RegExp;
}

export function normalizeSpaces(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

export function compileBashPattern(specifier: string): BashPattern {
  const text = normalizeSpaces(specifier);
  let body = text;
  let optionalTail = false;
  if (text.endsWith(':*') || text.endsWith(' *')) {
    body = text.slice(0, -2);
    optionalTail = true;
  }
  let source = '';
  let literalPrefix = '';
  let seenStar = false;
  for (let index = 0; index < body.length; index++) {
    const char = body[index] as string;
    if (char === '\\' && body[index + 1] === '*') {
      source += '\\*';
      if (!seenStar) literalPrefix += '*';
      index++;
    } else if (char === '*') {
      source += '[\\s\\S]*';
      seenStar = true;
    } else {
      source += escapeRegExp(char);
      if (!seenStar) literalPrefix += char;
    }
  }
  if (optionalTail) source += '(?: [\\s\\S]*)?';
  const wildcard = optionalTail || seenStar;
  return { text, wildcard, literalPrefix, regex: new RegExp(`^${source}$`) };
}

/** Whether one normalised command line matches the pattern. */
export function patternMatches(pattern: BashPattern, command: string): boolean {
  return command.startsWith(pattern.literalPrefix) && pattern.regex.test(command);
}

/** Whether a command matches a Bash rule specifier: exact, prefix (`:*`, ` *`) or wildcard. */
export function bashSpecifierMatches(specifier: string, command: string): boolean {
  return patternMatches(compileBashPattern(specifier), normalizeSpaces(command));
}

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}
