/**
 * Text that someone else wrote (a command, a path, a branch name, a hook's stderr, a reason that
 * names them), put into the report's Markdown so that it renders as exactly that text: no HTML
 * tag or comment, no table pipe, no emphasis or code span, no link, no `@mention`, no issue
 * reference and no emoji shortcode (issue 12, item 1).
 *
 * Checked against GitHub's own parser (cmark-gfm) and remark (__tests__/github/report-attacks.test.ts):
 *
 * - Code is a code span: its text is never parsed, and GitHub's mention, reference and emoji
 *   filters skip `code`. In a table cell, where a long path or command must be able to wrap
 *   (a code span cannot hold a break opportunity), it is `<code>` with the characters that would
 *   form something escaped, and a `<wbr>` where an autolinker would start and after separators
 *   in a long word. Escaping alone is not enough there: cmark-gfm decodes `a&#64;b.com` before
 *   its email autolinker runs (it is linked), remark its URLs; the `<wbr>` splits the text those
 *   autolinkers see.
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
/** The same, and where a long name in a table cell may wrap (`mcp__server__tool`). */
const WRAP_POINTS = /(?<=@|#(?=\d)|:(?=\S)|(?<=www)(?=\.)|[/_](?=[^/_\s]))/gi;

/**
 * `text` on one line as literal inline Markdown, safe in a table cell too: runs of white space
 * (newlines included) become one space.
 */
export function escapeText(text: string, options: { wrap?: boolean } = {}): string {
  const flat = text.replace(/\s+/g, ' ');
  // Split first: the break positions are found in the raw text, then each piece is escaped.
  return flat
    .split(options.wrap ? WRAP_POINTS : LINK_STARTS)
    .map((piece) => piece.replace(SIGNIFICANT, (char) => `\\${char}`))
    .join(BREAK);
}

/**
 * Our own sentences that quote names in backticks (a headline, a reason: "no rule allows
 * `curl x`"): each backticked part becomes a code span, the rest escaped text. Whatever the
 * quoted names hold, every piece is made safe on its own.
 */
export function escapeProse(text: string): string {
  return text
    .split(/`([^`\n]+)`/)
    .map((piece, index) => (index % 2 === 1 ? codeSpan(piece) : escapeText(piece)))
    .join('');
}

/**
 * `text` as inline code, exactly: one code span per line, joined by `<br>` so newlines stay
 * visible (a code span cannot hold a line break). Not for table cells: see cellCode. Empty text
 * gives ''.
 */
export function codeSpan(text: string): string {
  if (text === '') return '';
  return text
    .split(/\r\n|\r|\n/)
    .map(spanOf)
    .join('<br>');
}

function spanOf(line: string): string {
  if (line === '') return '';
  const fence = '`'.repeat(longestRun(line, '`') + 1);
  // A space on each side is taken off again by the parser: it lets the code start or end with
  // a backtick, and keeps a line that starts and ends with a space as it is.
  const pad = /^[` ]|[` ]$/.test(line) && !/^ +$/.test(line) ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** Characters after which a long path, URL or command may wrap. */
const SEPARATORS = new Set(['/', '.', ':', '@', '-', '_', '=', ',', ';', '&', '?', '#', '\\']);
/** A word (between spaces) longer than this gets break opportunities: it could widen its column. */
const LONG_WORD = 20;
/** In a long word, a run this long with no separator gets one anyway (a hash, a long name). */
const LONGEST_RUN = 24;

/**
 * Inside `<code>` in a table cell: an entity where the character would end the cell or the
 * element or start another (`|`, `<`, `&`, a backtick), a backslash where it would be Markdown
 * (emphasis, strikethrough, a link, math, an escape). The rest stays readable as it is.
 */
const CELL_ESCAPES: Record<string, string> = {
  '|': '&#124;',
  '<': '&lt;',
  '&': '&amp;',
  '`': '&#96;',
  '\\': '\\\\',
  '*': '\\*',
  _: '\\_',
  '~': '\\~',
  '[': '\\[',
  ']': '\\]',
  $: '\\$',
};

/**
 * `text` as inline code for a table cell, exactly, able to wrap: `<code>` with the characters
 * that would form something escaped (no pipe splits the row), `<wbr>` where an autolinker would
 * start and, in a long word, after separators; `<br>` for newlines. Empty text gives ''.
 */
export function cellCode(text: string): string {
  if (text === '') return '';
  const lines = text.split(/\r\n|\r|\n/).map((line) =>
    line
      .split(/( +)/)
      .map((word) => cellWord(word))
      .join(''),
  );
  return `<code>${lines.join('<br>')}</code>`;
}

function cellWord(word: string): string {
  const long = word.length > LONG_WORD;
  let out = '';
  let run = 0;
  const chars = [...word];
  chars.forEach((char, index) => {
    // remark links a text that ends in `www.`: the break goes before that dot.
    if (char === '.' && /www$/i.test(chars.slice(0, index).join(''))) out += BREAK;
    out += CELL_ESCAPES[char] ?? char;
    run = SEPARATORS.has(char) ? 0 : run + 1;
    const next = chars[index + 1] ?? '';
    // An email address, a mention or a URL's `://` is split where its autolinker would start.
    const linkStart = char === '@' || (char === ':' && next === '/');
    if (linkStart || (long && (SEPARATORS.has(char) || run >= LONGEST_RUN) && next !== '')) {
      out += BREAK;
      run = 0;
    }
  });
  return out;
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
