/**
 * The line-numbered view Read returns: `<n>\t<text>` per line, no padding (the compact form the
 * reference CLI prints, DECISIONS #13). Over-long lines are cut and marked so the model knows.
 */
export function formatNumberedLines(
  lines: readonly string[],
  firstLine: number,
  maxLineLength: number,
): string {
  return lines
    .map((line, index) => `${firstLine + index}\t${cutLine(line, maxLineLength)}`)
    .join('\n');
}

function cutLine(line: string, maxLength: number): string {
  if (line.length <= maxLength) return line;
  return `${line.slice(0, maxLength)}… [line cut at ${maxLength} of ${line.length} characters]`;
}
