/**
 * How much of a command's globs the permission check expands on disk. The check matches each
 * glob as a backtracking regular expression on the main thread, before the command runs: `*`
 * after `*` in one segment multiplies the work by the length of every name it is tried on
 * (`*a*a*a*a*a*b` against an 80-character name takes seconds). The model writes the command, so a
 * segment with more stars than this is not expanded; what that leaves unknown fails closed where
 * it is used (read-paths.ts: not read-only; file-operands.ts: compared by name only).
 */
const MAX_STARS_PER_SEGMENT = 3;

/** Whether some segment of the pattern has too many stars to be matched against names. */
export function tooManyStars(pattern: string): boolean {
  return pattern
    .split('/')
    .some((segment) => (segment.match(/\*+/g) ?? []).length > MAX_STARS_PER_SEGMENT);
}
