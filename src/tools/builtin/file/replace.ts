/**
 * Finding and replacing Edit's old_string. Matches never overlap, replacements are literal (no `$&`
 * patterns), and the text is expected with LF line endings.
 */
import { matchQuoteStyle, normalizeQuotes } from './quotes.js';

export interface Match {
  index: number;
  /** The file's own text at the match; differs from the needle only after the quote fallback. */
  text: string;
}

/** Exact occurrences first; only when there are none, occurrences with quotes straightened. */
export function findMatches(haystack: string, needle: string): Match[] {
  const exact = indexesOf(haystack, needle);
  if (exact.length > 0) return exact.map((index) => ({ index, text: needle }));
  const loose = indexesOf(normalizeQuotes(haystack), normalizeQuotes(needle));
  return loose.map((index) => ({ index, text: haystack.slice(index, index + needle.length) }));
}

function indexesOf(haystack: string, needle: string): number[] {
  const indexes: number[] = [];
  if (needle === '') return indexes;
  for (let index = haystack.indexOf(needle); index !== -1;) {
    indexes.push(index);
    index = haystack.indexOf(needle, index + needle.length);
  }
  return indexes;
}

/** The 1-based line range a match covers; a newline that ends the match starts no new line. */
export function lineSpan(haystack: string, match: Match): [number, number] {
  const start = 1 + countNewlines(haystack.slice(0, match.index));
  const body = match.text.endsWith('\n') ? match.text.slice(0, -1) : match.text;
  return [start, start + countNewlines(body)];
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/**
 * Replaces each match of `needle` (sorted, non-overlapping) with `replacement`. Deleting a match
 * also deletes the newline right after it, so removing a line leaves no blank line behind. A match
 * found by the quote fallback gets the replacement in the file's quote style.
 */
export function replaceMatches(
  haystack: string,
  matches: readonly Match[],
  needle: string,
  replacement: string,
): string {
  let result = '';
  let cursor = 0;
  for (const match of matches) {
    let end = match.index + match.text.length;
    if (replacement === '' && !match.text.endsWith('\n') && haystack[end] === '\n') end++;
    const styled = match.text === needle ? replacement : matchQuoteStyle(replacement, match.text);
    result += haystack.slice(cursor, match.index) + styled;
    cursor = end;
  }
  return result + haystack.slice(cursor);
}
