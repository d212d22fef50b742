/**
 * Content replacement: which file reads a later call made stale. A successful Read of a path is
 * superseded by a later successful Write or Edit of the same path (the text it showed is no longer
 * the file), or by a later successful Read that shows at least the same lines. Failed calls change
 * nothing: a failed Edit leaves the file as it was read.
 *
 * Staleness only grows as the conversation grows (later calls are only ever appended), so a read
 * judged stale on one request is judged stale on every later one.
 */
import { fileAccessOf } from './tool-calls.js';
import type { FileAccess, ToolCall } from './tool-calls.js';

interface Access {
  call: ToolCall;
  access: FileAccess;
}

/** Read call id → the call that made its result stale. */
export function findSupersededReads(
  calls: ReadonlyMap<string, ToolCall>,
  cwd: string,
): Map<string, ToolCall> {
  const byPath = new Map<string, Access[]>();
  for (const call of calls.values()) {
    const access = fileAccessOf(call, cwd);
    if (access === undefined) continue;
    const list = byPath.get(access.path) ?? [];
    list.push({ call, access });
    byPath.set(access.path, list);
  }
  const superseded = new Map<string, ToolCall>();
  for (const accesses of byPath.values()) {
    accesses.forEach((earlier, index) => {
      if (earlier.access.kind !== 'read' || earlier.call.isError !== false) return;
      const later = accesses
        .slice(index + 1)
        .find((candidate) => candidate.call.isError === false && supersedes(candidate, earlier));
      if (later) superseded.set(earlier.call.id, later.call);
    });
  }
  return superseded;
}

function supersedes(later: Access, earlier: Access): boolean {
  if (later.access.kind === 'write') return true;
  if (earlier.access.kind !== 'read') return false;
  const { offset, limit } = later.access;
  if (offset === undefined && limit === undefined) return fromTop(earlier.access.offset);
  return offset === earlier.access.offset && limit === earlier.access.limit;
}

/** Read's offset is 1-based; 0 and 1 both start at the first line. */
function fromTop(offset: number | undefined): boolean {
  return offset === undefined || offset <= 1;
}
