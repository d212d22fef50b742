/**
 * What one request sends, derived from the full conversation the loop keeps. Pure: the same
 * messages and compaction state always give the same request, which keeps the cached prefix valid.
 *
 * 1. Compaction: when the older part was summarised, the request is the task (first message) with
 *    the summary appended, then the messages kept from `keptFrom` on.
 * 2. A Read that repeats an earlier Read's result word for word, with no write of the file
 *    between, is sent as a reference to it (unchanged-reads.ts), from the first request that
 *    carries it; the earlier read then counts as being in the turn of its newest re-read.
 * 3. Results of turns older than the boundary are reduced, in this order:
 *    - errors and the results of file writes (their diffs) stay whole;
 *    - a read that a later call (itself behind the boundary) made stale becomes a note (content
 *      replacement);
 *    - a result longer than `shortenAboveChars` becomes one line (microcompact).
 *    The boundary keeps the last `keepRecentTurns` turns whole and moves in steps of
 *    `boundaryStep` turns, so the prefix changes once per step, not on every request; the
 *    context manager may hold it further back (cache-edits.ts), or, when even that request
 *    nears the limit, put it further on, up to the newest turn (which always stays whole).
 */
import type { Message, ToolResultBlock, UserContentBlock, UserMessage } from '../../model/types.js';
import type { ContextSettings } from './context-settings.js';
import { shortenedNote, supersededNote, unchangedNote } from './result-notes.js';
import { findSupersededReads } from './stale-reads.js';
import { fileAccessOf, indexToolCalls, resultChars } from './tool-calls.js';
import type { ToolCall } from './tool-calls.js';
import { findUnchangedReads } from './unchanged-reads.js';

export interface CompactionState {
  /** Index in the full conversation of the first message sent verbatim (an assistant message). */
  keptFrom: number;
  summary: string;
}

export type PrepareSettings = Pick<
  ContextSettings,
  'keepRecentTurns' | 'boundaryStep' | 'shortenAboveChars'
> & { cwd: string };

/**
 * `reduceBefore` puts the boundary where the context manager chose: held where an earlier request
 * had it (while moving it would cost more in cache writes than it saves), or past where the turn
 * count puts it (when the request would otherwise near the limit). By default it is where the turn
 * count puts it; it is never past the newest turn, whose results the model has not yet seen.
 */
export function prepareRequest(
  messages: readonly Message[],
  settings: PrepareSettings,
  compaction?: CompactionState,
  reduceBefore?: number,
): Message[] {
  const [task, ...rest] = messages;
  if (task === undefined) return [];
  const tail = compaction === undefined ? rest : messages.slice(compaction.keptFrom);
  const calls = indexToolCalls(messages);
  const boundary =
    reduceBefore === undefined
      ? shortenBeforeTurn(turnsIn(messages), settings)
      : Math.min(reduceBefore, lastReducibleTurn(turnsIn(messages)));
  // Anchors only from what is sent: a read summarised away by compaction is no longer there to
  // refer to, so its re-read goes whole.
  const unchanged = findUnchangedReads(tail, calls, settings.cwd, settings.keepRecentTurns);
  const turnOf = (call: ToolCall): number =>
    Math.max(call.turn, unchanged.lastTurnOf.get(call.id) ?? call.turn);
  // Only calls behind the boundary count as superseding: a re-read in a recent turn would otherwise
  // rewrite an old note on any request, not just when the boundary moves, and break the cache.
  // A reference to an earlier read supersedes nothing: it is that read.
  const settled = new Map(
    [...calls].filter(([id, call]) => call.turn < boundary && !unchanged.anchorOf.has(id)),
  );
  const superseded = findSupersededReads(settled, settings.cwd);
  const reduce = (result: ToolResultBlock): ToolResultBlock => {
    const call = calls.get(result.tool_use_id);
    if (call === undefined || result.is_error === true) return result;
    const anchor = unchanged.anchorOf.get(call.id);
    const access = fileAccessOf(call, settings.cwd);
    if (anchor !== undefined && access !== undefined)
      return replaced(result, unchangedNote(access.path, anchor));
    if (turnOf(call) >= boundary || access?.kind === 'write') return result;
    const by = superseded.get(call.id);
    const note =
      by !== undefined && access !== undefined
        ? supersededNote(call, access.path, by)
        : resultChars(result) > settings.shortenAboveChars
          ? shortenedNote(call, result)
          : undefined;
    return note === undefined ? result : replaced(result, note);
  };
  // The API requires a user message first, so the task is one; the check only narrows the type.
  const head =
    compaction === undefined || task.role !== 'user' ? task : withSummary(task, compaction.summary);
  return [head, ...tail.map((message) => reduceMessage(message, reduce))];
}

/** The note in place of the result, unless the note is no shorter. */
function replaced(result: ToolResultBlock, note: string): ToolResultBlock {
  if (note.length >= resultChars(result)) return result;
  return { type: 'tool_result', tool_use_id: result.tool_use_id, content: note };
}

/** Turns before this index may be reduced: a multiple of the step, behind the recent turns. */
export function shortenBeforeTurn(
  turns: number,
  settings: Pick<ContextSettings, 'keepRecentTurns' | 'boundaryStep'>,
): number {
  const eligible = Math.max(0, turns - settings.keepRecentTurns);
  return Math.floor(eligible / settings.boundaryStep) * settings.boundaryStep;
}

/** The furthest the boundary may go: every turn but the newest may be reduced. */
export function lastReducibleTurn(turns: number): number {
  return Math.max(0, turns - 1);
}

export function turnsIn(messages: readonly Message[]): number {
  return messages.filter((message) => message.role === 'assistant').length;
}

/** The task message with the summary of the compacted part after it. */
export function withSummary(task: UserMessage, summary: string): UserMessage {
  const blocks: UserContentBlock[] =
    typeof task.content === 'string' ? [{ type: 'text', text: task.content }] : task.content;
  return {
    role: 'user',
    content: [
      ...blocks,
      {
        type: 'text',
        text: `<conversation-summary>\nThe earlier part of this session was compacted to save context. What happened in it:\n\n${summary}\n</conversation-summary>`,
      },
    ],
  };
}

function reduceMessage(
  message: Message,
  reduce: (result: ToolResultBlock) => ToolResultBlock,
): Message {
  if (message.role !== 'user' || typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== 'tool_result') return block;
    const reduced = reduce(block);
    if (reduced !== block) changed = true;
    return reduced;
  });
  return changed ? { role: 'user', content } : message;
}
