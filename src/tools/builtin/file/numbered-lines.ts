/**
 * The line-numbered view Read returns: `<n>\t<text>` per line, no padding (the compact form the
 * reference CLI prints, docs/DECISIONS.md #13). Over-long lines are cut and marked so the model knows;
 * `fullLengths` gives the length of lines that arrive cut already (by line number).
 */
export function formatNumberedLines(
  lines: readonly string[],
  firstLine: number,
  maxLineLength: number,
  fullLengths: ReadonlyMap<number, number> = new Map(),
): string {
  return lines
    .map((line, index) => {
      const number = firstLine + index;
      return `${number}\t${cutLine(line, maxLineLength, fullLengths.get(number) ?? line.length)}`;
    })
    .join('\n');
}

function cutLine(line: string, maxLength: number, length: number): string {
  if (length <= maxLength) return line;
  return `${line.slice(0, maxLength)}… [line cut at ${maxLength} of ${length} characters]`;
}
