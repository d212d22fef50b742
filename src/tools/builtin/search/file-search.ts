/**
 * Searching one file's text the way ripgrep does, and printing what ripgrep would print.
 *
 * Line mode (the default): a line matches when the pattern matches inside it. Multiline mode:
 * the pattern runs over the whole text; each match covers the lines from the one it starts on
 * to the one it ends on, and matches whose lines touch are merged into one group. Counts are
 * matching lines, except in multiline mode with a pattern that can match a line break, where
 * ripgrep counts the matches inside each group.
 *
 * Output follows ripgrep's standard printer: `path:line:text` for matching lines, `path-line-text`
 * for context lines, `--` between groups that are not adjacent, long lines cut to a preview.
 */
import { translateRegex } from './regex.js';
import { LONG_LINE_SUFFIX, MAX_COLUMNS } from './types.js';
import type { SearchQuery } from './types.js';

export interface TextMatcher {
  multiline: boolean;
  mayMatchNewline: boolean;
  /** Line mode: tests one line (no line break inside). */
  line: RegExp;
  /** Line mode: a cheap test over the whole text that finds every line match and maybe more. */
  prefilter: RegExp;
  /** Multiline mode: global, over the whole text. */
  whole: RegExp;
}

/** Throws RegexTranslationError or SyntaxError for a pattern that cannot be used. */
export function compileMatcher(query: Pick<SearchQuery, 'pattern' | 'ignoreCase' | 'multiline'>) {
  const translated = translateRegex(query.pattern, {
    ignoreCase: query.ignoreCase,
    multiline: query.multiline,
  });
  if (!query.multiline && translated.hasLiteralNewline) {
    throw new SyntaxError(
      'the literal "\\n" is not allowed in a regex; set multiline: true to match across lines',
    );
  }
  const flags = translated.ignoreCase ? 'isu' : 'su';
  const matcher: TextMatcher = {
    multiline: query.multiline,
    mayMatchNewline: translated.mayMatchNewline,
    line: new RegExp(translated.source, flags),
    prefilter: new RegExp(translated.source, `m${flags}`),
    whole: new RegExp(translated.source, `g${flags}`),
  };
  return matcher;
}

export interface PrintOptions {
  /** Shown before each line; undefined when a single file is searched (ripgrep omits it). */
  path: string | undefined;
  lineNumbers: boolean;
  before: number;
  after: number;
}

/** A run of matching lines, 0-based and inclusive, with how many matches it counts for. */
interface Group {
  first: number;
  last: number;
  count: number;
}

export interface FileSearch {
  text: string;
  lineStarts: number[];
  groups: Group[];
}

/** Finds the matching groups of `text`; `firstOnly` stops at the first (for file listings). */
export function searchText(text: string, matcher: TextMatcher, firstOnly: boolean): FileSearch {
  matcher.whole.lastIndex = 0;
  const probe = matcher.multiline ? matcher.whole : matcher.prefilter;
  // Most files do not match at all: reject them before indexing their lines.
  if (!probe.test(text)) return { text, lineStarts: [], groups: [] };
  const lineStarts = computeLineStarts(text);
  const groups = matcher.multiline
    ? multilineGroups(text, lineStarts, matcher, firstOnly)
    : lineGroups(text, lineStarts, matcher, firstOnly);
  return { text, lineStarts, groups };
}

export function countMatches(search: FileSearch): number {
  return search.groups.reduce((total, group) => total + group.count, 0);
}

/** The printed lines for one file's groups, with context. */
export function printGroups(search: FileSearch, options: PrintOptions): string[] {
  const { text, lineStarts, groups } = search;
  const lineCount = lineStarts.length;
  const contextEnabled = options.before > 0 || options.after > 0;
  const out: string[] = [];
  let lastPrinted = -1;
  const print = (index: number, separator: ':' | '-') => {
    const start = lineStarts[index]!;
    const next = lineStarts[index + 1];
    const end = next === undefined ? lineEnd(text) : next - 1;
    const terminated = next !== undefined || text.endsWith('\n');
    const line = previewLongLine(text.slice(start, end), terminated);
    const number = options.lineNumbers ? `${index + 1}${separator}` : '';
    const path = options.path === undefined ? '' : `${options.path}${separator}`;
    out.push(`${path}${number}${line}`);
    lastPrinted = index;
  };
  for (let index = 0; index < groups.length; index++) {
    const group = groups[index]!;
    const from = Math.max(group.first - options.before, lastPrinted + 1);
    if (contextEnabled && lastPrinted >= 0 && from > lastPrinted + 1) out.push('--');
    for (let line = from; line < group.first; line++) print(line, '-');
    for (let line = group.first; line <= group.last; line++) print(line, ':');
    const nextFirst = groups[index + 1]?.first ?? lineCount;
    const afterEnd = Math.min(group.last + options.after, lineCount - 1, nextFirst - 1);
    for (let line = group.last + 1; line <= afterEnd; line++) print(line, '-');
  }
  return out;
}

/** ripgrep's --max-columns with --max-columns-preview: bytes decide, graphemes are kept. */
export function previewLongLine(line: string, terminated: boolean): string {
  const terminator = terminated ? 1 : 0;
  // Three bytes per UTF-16 unit at most: a short enough line cannot be too long.
  if (line.length * 3 + terminator <= MAX_COLUMNS) return line;
  if (Buffer.byteLength(line) + terminator <= MAX_COLUMNS) return line;
  return `${firstGraphemes(line, MAX_COLUMNS)}${LONG_LINE_SUFFIX}`;
}

function firstGraphemes(line: string, count: number): string {
  // Below U+0300 every character is a grapheme of its own.
  if (!/[^ -\u02ff\t\r]/u.test(line.slice(0, count * 2))) return line.slice(0, count);
  let end = 0;
  let taken = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(
    line,
  )) {
    if (taken === count) break;
    end += segment.length;
    taken++;
  }
  return line.slice(0, end);
}

function computeLineStarts(text: string): number[] {
  if (text === '') return [];
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index + 1 < text.length) starts.push(index + 1);
  }
  return starts;
}

function lineGroups(
  text: string,
  lineStarts: number[],
  matcher: TextMatcher,
  firstOnly: boolean,
): Group[] {
  const candidate = matcher.prefilter.exec(text);
  if (!candidate) return [];
  const groups: Group[] = [];
  for (let index = lineIndexAt(lineStarts, candidate.index); index < lineStarts.length; index++) {
    const start = lineStarts[index]!;
    const next = lineStarts[index + 1];
    const line = text.slice(start, next === undefined ? lineEnd(text) : next - 1);
    if (!matcher.line.test(line)) continue;
    groups.push({ first: index, last: index, count: 1 });
    if (firstOnly) break;
  }
  return groups;
}

function lineEnd(text: string): number {
  return text.endsWith('\n') ? text.length - 1 : text.length;
}

function multilineGroups(
  text: string,
  lineStarts: number[],
  matcher: TextMatcher,
  firstOnly: boolean,
): Group[] {
  const regex = matcher.whole;
  const spans: Array<{ start: number; end: number }> = [];
  let position = 0;
  while (position < text.length) {
    regex.lastIndex = position;
    const match = regex.exec(text);
    if (!match) break;
    const start = match.index;
    // After the last line break there is no line left to hold a match.
    if (start === text.length && text.endsWith('\n')) break;
    const end = start + match[0].length;
    position = end > start ? end : end + ((text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1);
    // The lines a match covers: from the start of its first line to the end of its last one;
    // a match ending in a line break ends that line.
    const lineStart = start === 0 ? 0 : text.lastIndexOf('\n', start - 1) + 1;
    const nextBreak = text.indexOf('\n', end);
    const lineStop =
      end > lineStart && text[end - 1] === '\n'
        ? end
        : nextBreak === -1
          ? text.length
          : nextBreak + 1;
    const last = spans[spans.length - 1];
    if (last && last.end > lineStart) last.end = lineStop;
    else spans.push({ start: lineStart, end: lineStop });
    if (firstOnly) break;
  }
  return spans.map((span) => ({
    first: lineIndexAt(lineStarts, span.start),
    last: lineIndexAt(lineStarts, Math.max(span.start, span.end - 1)),
    count: matcher.mayMatchNewline ? matchesWithin(text, span, regex) : 1,
  }));
}

function matchesWithin(text: string, span: { start: number; end: number }, regex: RegExp): number {
  const window = text.slice(0, span.end);
  let count = 0;
  let position = span.start;
  while (position <= window.length) {
    regex.lastIndex = position;
    const match = regex.exec(window);
    if (!match) break;
    count++;
    const end = match.index + match[0].length;
    position = end > match.index ? end : end + 1;
  }
  return count;
}

/** The 0-based index of the line holding `offset`. */
function lineIndexAt(lineStarts: number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
