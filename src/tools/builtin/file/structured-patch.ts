/**
 * Unified-diff hunks between two texts, in the shape Write and Edit report as `structuredPatch`
 * (Claude Code's shape: `diff`'s structuredPatch hunks, three lines of context).
 *
 * 1. `diff` compares the texts line by line, terminators included, so a missing final newline or
 *    a changed line ending is a change; a line is shown without its `\r\n` or `\n`.
 * 2. Past MAX_EDIT_DISTANCE `diff` gives up (its Myers search costs O((N+M)·D)); the lines
 *    between the common head and tail are then reported as one removal plus one addition: still
 *    a correct patch, just not a minimal one, and time and memory stay bounded.
 */
import { structuredPatch as diffStructuredPatch } from 'diff';

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each line prefixed with ' ', '-' or '+', without its terminator. */
  lines: string[];
}

const CONTEXT_LINES = 3;
const MAX_EDIT_DISTANCE = 2000;
const NO_NEWLINE = '\\ No newline at end of file';

export function structuredPatch(oldText: string, newText: string): PatchHunk[] {
  const patch = diffStructuredPatch('', '', oldText, newText, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_DISTANCE,
  });
  if (!patch) return [wholesaleHunk(splitLines(oldText), splitLines(newText))];
  return patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({
    // Unified-diff convention: an empty side is numbered by the line it comes after (`diff`
    // numbers it by the line that follows, and corrects that only when it formats the patch).
    oldStart: oldLines === 0 ? oldStart - 1 : oldStart,
    oldLines,
    newStart: newLines === 0 ? newStart - 1 : newStart,
    newLines,
    lines: lines.map((line, index) =>
      // `diff` drops the `\n` only; a `\r` before it is part of the terminator too.
      lines[index + 1] === NO_NEWLINE ? line : line.replace(/\r$/, ''),
    ),
  }));
}

export function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

/** One hunk: the differing middle removed and added, with the context around it. */
function wholesaleHunk(a: readonly string[], b: readonly string[]): PatchHunk {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a.at(-1 - tail) === b.at(-1 - tail))
    tail++;
  const from = Math.max(0, head - CONTEXT_LINES);
  const after = Math.min(tail, CONTEXT_LINES);
  const shown = (prefix: string, part: readonly string[]) =>
    part.flatMap((line) =>
      line.endsWith('\n') ? [prefix + line.replace(/\r?\n$/, '')] : [prefix + line, NO_NEWLINE],
    );
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const oldLines = head - from + removed.length + after;
  const newLines = head - from + added.length + after;
  return {
    // Unified-diff convention: an empty side is numbered by the line it comes after.
    oldStart: oldLines === 0 ? from : from + 1,
    oldLines,
    newStart: newLines === 0 ? from : from + 1,
    newLines,
    lines: [
      ...shown(' ', a.slice(from, head)),
      ...shown('-', removed),
      ...shown('+', added),
      ...shown(' ', a.slice(a.length - tail, a.length - tail + after)),
    ],
  };
}
