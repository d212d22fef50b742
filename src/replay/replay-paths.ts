/**
 * What is allowed to differ between a run and its replay without being a difference:
 * - where the checkout is: the recorded run's workspace path becomes the replay's in the
 *   model's tool inputs (`mapPaths`), and both become `<workspace>` in the results compared;
 * - timings: a test runner's `(1.57ms)`, `duration_ms 136.4`, `in 0.12s` (`VOLATILE`).
 * Everything else in a result is compared as it is.
 */

/** Each string in a JSON value with `from` replaced by `to` (a path prefix). */
export function mapPaths(value: unknown, from: string, to: string): unknown {
  if (from === to) return value;
  if (typeof value === 'string') return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((item) => mapPaths(item, from, to));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, mapPaths(item, from, to)]),
    );
  return value;
}

/** Timings, which no two runs share; each pattern with what stands in for it. */
export const VOLATILE: readonly (readonly [RegExp, string])[] = [
  // node --test: `ℹ duration_ms 136.4` (spec), `duration_ms: 1.81` (TAP).
  [/\b(duration_ms:?) \d+(?:\.\d+)?/g, '$1 <n>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|µs|ns)\b/g, '<time>'],
  // `in 0.12s)`, `Time: 1.234 s` at the end of a line.
  [/\b\d+(?:\.\d+)? ?s\b(?= *(?:\)|$))/gm, '<time>'],
];

/**
 * A tool_result's content as the text compared: text blocks joined, other blocks by their
 * type, the workspace path as `<workspace>`, timings as in VOLATILE.
 */
export function comparableText(content: unknown, workspace: string): string {
  let text = contentText(content).split(workspace).join('<workspace>');
  for (const [pattern, replacement] of VOLATILE) text = text.replace(pattern, replacement);
  return text;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((block: unknown) => {
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      return type === 'text' && typeof text === 'string' ? text : `[${String(type)} block]`;
    })
    .join('\n');
}
