/**
 * Untrusted text made safe to print on a terminal or into a workflow step's log: what the audit
 * prints from a log (audit/explain.ts) and what the CLI writes to stderr (cli/stderr-text.ts).
 */

/** C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Log text made safe to print: each control character (ESC of an ANSI sequence, BEL, CR, …)
 * as a visible `\xNN` or `\uNNNN`; newlines too unless `keepNewlines`, which keeps them and
 * indents what follows with `indent`.
 */
export function neutralise(
  text: string,
  options: { keepNewlines?: boolean; indent?: string } = {},
): string {
  const escaped = text.replace(CONTROL, (char) => {
    if (options.keepNewlines && char === '\n') return `\n${options.indent ?? ''}`;
    if (char === '\t' && options.keepNewlines) return '  ';
    const code = char.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return escaped;
}
