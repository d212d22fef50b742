/**
 * Curly-quote tolerance for Edit. Models tend to type straight quotes where a file has typographic
 * ones; matching falls back to a comparison with both sides straightened, and the replacement is
 * then given the file's curly style so the edit does not mix styles.
 */
const OPENING_CONTEXT = /[\s([{<\u2014\u2013-]/;

/** Straightens ‘’“”. Each is one UTF-16 unit, so indexes stay valid in the original text. */
export function normalizeQuotes(text: string): string {
  return text.replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');
}

/** Converts straight quotes in `replacement` to curly ones where `matched` used curly ones. */
export function matchQuoteStyle(replacement: string, matched: string): string {
  const curlyDouble = /[\u201C\u201D]/.test(matched);
  const curlySingle = /[\u2018\u2019]/.test(matched);
  if (!curlyDouble && !curlySingle) return replacement;
  let result = '';
  for (let index = 0; index < replacement.length; index++) {
    const char = replacement.charAt(index);
    const opening = index === 0 || OPENING_CONTEXT.test(replacement.charAt(index - 1));
    if (char === '"' && curlyDouble) result += opening ? '\u201C' : '\u201D';
    else if (char === "'" && curlySingle) result += opening ? '\u2018' : '\u2019';
    else result += char;
  }
  return result;
}
