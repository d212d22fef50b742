/**
 * Unified-diff hunks between two texts, in the shape Write and Edit report as `structuredPatch`.
 *
 * 1. Split both texts into lines that keep their terminator, so a missing final newline differs.
 * 2. Drop the common head and tail; diff the middle with Myers' O((N+M)·D) algorithm. Past
 *    MAX_EDIT_DISTANCE the middle is reported as one removal plus one addition: still a correct
 *    patch, just not a minimal one, and memory stays bounded.
 * 3. Group changes into hunks with CONTEXT_LINES of context, merging hunks whose context touches.
 */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each line prefixed with ' ', '-' or '+', without its terminator. */
  lines: string[];
}

type Op = { kind: ' ' | '-' | '+'; line: string };

const CONTEXT_LINES = 3;
const MAX_EDIT_DISTANCE = 2000;
const NO_NEWLINE = '\\ No newline at end of file';

export function structuredPatch(oldText: string, newText: string): PatchHunk[] {
  return toHunks(diffLines(splitLines(oldText), splitLines(newText)));
}

export function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const same = (line: string): Op => ({ kind: ' ', line });
  const middle = myers(middleA, middleB) ?? [
    ...middleA.map((line): Op => ({ kind: '-', line })),
    ...middleB.map((line): Op => ({ kind: '+', line })),
  ];
  return [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)];
}

/** Shortest edit script, or undefined when it needs more than MAX_EDIT_DISTANCE steps. */
function myers(a: readonly string[], b: readonly string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, MAX_EDIT_DISTANCE);
  // v[k + offset] = furthest x reached on diagonal k. trace[d] keeps the diagonals -d-1..d+1 of v
  // as they were before step d, which is all the backtrack reads.
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace);
    }
  }
  return undefined;
}

function backtrack(a: readonly string[], b: readonly string[], trace: readonly Int32Array[]) {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const saved = trace[d]!;
    const at = (k: number) => saved[k + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = d === 0 ? 0 : at(previousK);
    const previousY = d === 0 ? 0 : previousX - previousK;
    while (x > previousX && y > previousY) {
      ops.push({ kind: ' ', line: a[--x]! });
      y--;
    }
    if (d === 0) break;
    if (down) ops.push({ kind: '+', line: b[--y]! });
    else ops.push({ kind: '-', line: a[--x]! });
  }
  return ops.reverse();
}

function toHunks(ops: readonly Op[]): PatchHunk[] {
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  const hunks: PatchHunk[] = [];
  let groupStart = 0;
  while (groupStart < changed.length) {
    // Extend the group while the next change is close enough for the contexts to touch.
    let groupEnd = groupStart;
    while (
      groupEnd + 1 < changed.length &&
      changed[groupEnd + 1]! - changed[groupEnd]! <= 2 * CONTEXT_LINES + 1
    ) {
      groupEnd++;
    }
    const from = Math.max(0, changed[groupStart]! - CONTEXT_LINES);
    const to = Math.min(ops.length, changed[groupEnd]! + CONTEXT_LINES + 1);
    hunks.push(makeHunk(ops, from, to));
    groupStart = groupEnd + 1;
  }
  return hunks;
}

function makeHunk(ops: readonly Op[], from: number, to: number): PatchHunk {
  let oldBefore = 0;
  let newBefore = 0;
  for (const op of ops.slice(0, from)) {
    if (op.kind !== '+') oldBefore++;
    if (op.kind !== '-') newBefore++;
  }
  const hunk: PatchHunk = { oldStart: 0, oldLines: 0, newStart: 0, newLines: 0, lines: [] };
  for (const op of ops.slice(from, to)) {
    if (op.kind !== '+') hunk.oldLines++;
    if (op.kind !== '-') hunk.newLines++;
    const terminated = op.line.endsWith('\n');
    hunk.lines.push(op.kind + op.line.replace(/\r?\n$/, ''));
    if (!terminated) hunk.lines.push(NO_NEWLINE);
  }
  // Unified-diff convention: an empty side is numbered by the line it comes after.
  hunk.oldStart = hunk.oldLines === 0 ? oldBefore : oldBefore + 1;
  hunk.newStart = hunk.newLines === 0 ? newBefore : newBefore + 1;
  return hunk;
}
