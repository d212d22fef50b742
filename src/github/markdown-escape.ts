/**
 * Text that someone else wrote (a command, a path, a branch name, a hook's stderr, a reason that
 * names them), put into the report's Markdown so that it renders as exactly that text: no HTML
 * tag or comment, no table pipe, no emphasis or code span, no link, no `@mention`, no issue
 * reference and no emoji shortcode (issue 12, item 1).
 *
 * Checked against GitHub's own parser (cmark-gfm) and remark (__tests__/github/report-attacks.test.ts):
 *
 * - Code is a code span, never `<code>` with entities: inside `<code>…</code>` cmark-gfm still
 *   autolinks `a&#64;b.com` (entities are decoded before its email autolinker runs); a code span's
 *   text is never parsed, and GitHub's mention, reference and emoji filters skip `code`.
 * - Plain text has the characters that start inline Markdown, HTML, an entity, a table cell or
 *   math backslash-escaped (only those, so the Markdown stays readable in a terminal and the job
 *   summary). That stops the parser but not GitHub's filters: they run on the HTML text
 *   afterwards, where `\@x` is `@x` again. So a `<wbr>` (no width, nothing on copy) goes after
 *   each `@`, `#` before a digit, `:` before a non-space, and between `www` and `.`: each filter
 *   and autolinker matches within one text node, and the element splits it.
 */

/** A word-break opportunity: invisible, copied as nothing, and splits the text node. */
const BREAK = '<wbr>';

/**
 * Escape, code, emphasis, links and images, HTML and autolinks, entities, table cells,
 * strikethrough, math. Text put at the start of a line by the caller always follows a prefix.
 */
const SIGNIFICANT = /[\\`*_[\]<>&|~!$]/g;

/** Where GitHub would start a mention, reference, emoji, or autolink in plain text. */
const LINK_STARTS = /(?<=@|#(?=\d)|:(?=\S)|(?<=www)(?=\.))/gi;

/**
 * `text` on one line as literal inline Markdown, safe in a table cell too: runs of white space
 * (newlines included) become one space.
 */
export function escapeText(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  // Split first: the break positions are found in the raw text, then each piece is escaped.
  return flat
    .split(LINK_STARTS)
    .map((piece) => piece.replace(SIGNIFICANT, (char) => `\\${char}`))
    .join(BREAK);
}

/**
 * Our own sentences that quote names in backticks (a headline, a reason: "no rule allows
 * `curl x`"): each backticked part becomes a code span, the rest escaped text. Whatever the
 * quoted names hold, every piece is made safe on its own.
 */
export function escapeProse(text: string, options: CodeSpanOptions = {}): string {
  return text
    .split(/`([^`\n]+)`/)
    .map((piece, index) => (index % 2 === 1 ? codeSpan(piece, options) : escapeText(piece)))
    .join('');
}

export interface CodeSpanOptions {
  /** Inside a GFM table row: pipes must not split the cell. */
  table?: boolean;
}

/**
 * `text` as inline code, exactly: one code span per line, joined by `<br>` so newlines stay
 * visible (a code span cannot hold a line break, nor can a table row). Empty text gives ''.
 */
export function codeSpan(text: string, options: CodeSpanOptions = {}): string {
  if (text === '') return '';
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => (options.table ? tableCodeLine(line) : spanOf(line)))
    .join('<br>');
}

/**
 * In a table, GFM splits the row before parsing code spans, so a pipe is written `\|`. A
 * backslash right before the pipe makes `\\|`, which cmark-gfm keeps in the cell and micromark
 * splits on: such a pipe gets a `<code>` of its own, as an entity the row splitter never sees.
 */
function tableCodeLine(line: string): string {
  return line
    .split(/(?<=\\)\|/)
    .map((part) => spanOf(part, (code) => code.replace(/\|/g, '\\|')))
    .join('<code>&#124;</code>');
}

function spanOf(line: string, escape: (code: string) => string = (code) => code): string {
  if (line === '') return '';
  const fence = '`'.repeat(longestRun(line, '`') + 1);
  // A space on each side is taken off again by the parser: it lets the code start or end with
  // a backtick, and keeps a line that starts and ends with a space as it is.
  const pad = /^[` ]|[` ]$/.test(line) && !/^ +$/.test(line) ? ' ' : '';
  return `${fence}${pad}${escape(line)}${pad}${fence}`;
}

/** `text` in a fenced code block no line of it can close, newlines and all. */
export function codeBlock(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}${info}\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    longest = Math.max(longest, current);
  }
  return longest;
}
