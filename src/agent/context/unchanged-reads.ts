/**
 * Unchanged re-reads: a Read whose result repeats, byte for byte, an earlier Read of the same
 * file and lines is sent as a one-line reference to that earlier result, which stays whole
 * instead. The conversation only grows at its end, so the cached prefix holds: the re-read is the
 * newest turn (nothing earlier changes) and costs a line, where sending it whole and replacing the
 * earlier copy (stale-reads.ts) writes the file's text to the cache once more and rewrites every
 * turn after the earlier copy when the boundary passes it.
 *
 * A re-read refers to the chain's first read (its anchor) when:
 * - both are successful Reads of the same path with the same offset and limit, and their results
 *   are the same text (so the file's shown lines are what the anchor shows, however the file got
 *   there);
 * - no write of that path (Write, Edit, NotebookEdit that did not fail) came between them;
 * - the chain's previous read is at most `maxGapTurns` turns older. The anchor counts as being in
 *   the turn of its newest re-read, so it stays whole while it is re-read within the recent turns
 *   (prepare-request.ts); a longer gap starts a new chain, since the anchor may have been
 *   shortened by then and the re-read is the copy to keep.
 *
 * Derived from the messages alone, like the other reductions: a re-read judged a reference once is
 * judged so on every later request.
 */
import { fileAccessOf } from './tool-calls.js';
import type { ToolCall } from './tool-calls.js';
import type { Message, ToolResultBlock } from '../../model/types.js';

export interface UnchangedReads {
  /** Re-read call id → the anchor read whose result it repeats. */
  anchorOf: Map<string, ToolCall>;
  /** Anchor call id → the turn of its newest re-read. */
  lastTurnOf: Map<string, number>;
}

interface Chain {
  anchor: ToolCall;
  text: string;
  lastTurn: number;
}

export function findUnchangedReads(
  messages: readonly Message[],
  calls: ReadonlyMap<string, ToolCall>,
  cwd: string,
  maxGapTurns: number,
): UnchangedReads {
  const texts = resultTexts(messages);
  const anchorOf = new Map<string, ToolCall>();
  const lastTurnOf = new Map<string, number>();
  /** Path → (offset/limit key → the open chain). */
  const chains = new Map<string, Map<string, Chain>>();
  const ordered = [...calls.values()].sort((a, b) => a.order - b.order);
  for (const call of ordered) {
    const access = fileAccessOf(call, cwd);
    if (access === undefined || call.isError === true) continue;
    if (access.kind === 'write') {
      chains.delete(access.path);
      continue;
    }
    const text = texts.get(call.id);
    if (text === undefined || call.isError !== false) continue;
    const key = `${access.offset ?? ''}:${access.limit ?? ''}`;
    const byWindow = chains.get(access.path) ?? new Map<string, Chain>();
    chains.set(access.path, byWindow);
    const chain = byWindow.get(key);
    if (
      chain !== undefined &&
      chain.text === text &&
      call.turn > chain.anchor.turn &&
      call.turn - chain.lastTurn <= maxGapTurns
    ) {
      anchorOf.set(call.id, chain.anchor);
      chain.lastTurn = call.turn;
      lastTurnOf.set(chain.anchor.id, call.turn);
      continue;
    }
    byWindow.set(key, { anchor: call, text, lastTurn: call.turn });
  }
  return { anchorOf, lastTurnOf };
}

/** Tool use id → the result's text, for results that are text only. */
function resultTexts(messages: readonly Message[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const text = textOnly(block);
      if (text !== undefined) texts.set(block.tool_use_id, text);
    }
  }
  return texts;
}

function textOnly(result: ToolResultBlock): string | undefined {
  if (typeof result.content === 'string') return result.content;
  if (!result.content.every((block) => block.type === 'text')) return undefined;
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}
