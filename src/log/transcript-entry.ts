/**
 * The transcript's lines as Claude Code writes its session JSONL (observed in Claude Code 2.1.197,
 * `~/.claude/projects/<slug>/<session>.jsonl`), so that a hook reading `transcript_path` finds the
 * fields it was written against:
 *
 *   {parentUuid, isSidechain, promptId?, type, message, uuid, timestamp, cwd, sessionId, version,
 *    toolUseResult?, sourceToolAssistantUUID?}
 *
 * - `parentUuid` chains each entry to the one before it (null for the prompt);
 * - the prompt and the tool_result entries carry `promptId`; assistant entries do not;
 * - a tool_result entry carries the tool's structured output as `toolUseResult` and the uuid of
 *   the assistant entry that asked for it as `sourceToolAssistantUUID`.
 *
 * Claude Code's `userType`, `entrypoint` and `gitBranch` describe an interactive install and are
 * left out. A subagent's lines (Claude Code keeps them in a file of their own) are kept, marked
 * `isSidechain: true` and chained among themselves, so the main chain stays the main conversation.
 */
import { randomUUID } from 'node:crypto';
import type { StreamJsonLine } from './stream-json.js';

export interface TranscriptContext {
  sessionId: string;
  promptId: string;
  /** The session's working directory; the field is left out without one. */
  cwd?: string;
  /** ci-agent's version, in Claude Code's `version` field; left out without one. */
  version?: string;
  now?: () => Date;
}

export type TranscriptEntry = StreamJsonLine;

/** Turns the conversation's stream-json lines into transcript entries, in order. */
export class TranscriptShaper {
  /** The last entry of each chain: the main one (key null), and one per subagent's Agent call. */
  private readonly lastOf = new Map<string | null, string>();
  /** tool_use id → the uuid of the assistant entry that holds it. */
  private readonly askedBy = new Map<string, string>();

  constructor(private readonly context: TranscriptContext) {}

  prompt(text: string): TranscriptEntry {
    return this.entry(
      null,
      'user',
      { role: 'user', content: text },
      { promptId: this.context.promptId },
    );
  }

  /** The entry for a stream-json line, or undefined for a line that is not the conversation. */
  shape(line: StreamJsonLine): TranscriptEntry | undefined {
    if (line.type !== 'user' && line.type !== 'assistant') return undefined;
    const chain = typeof line.parent_tool_use_id === 'string' ? line.parent_tool_use_id : null;
    if (line.type === 'assistant') {
      const entry = this.entry(chain, 'assistant', line.message, {});
      for (const id of toolUseIds(line.message)) this.askedBy.set(id, entry.uuid as string);
      return entry;
    }
    const source = toolResultIds(line.message)
      .map((id) => this.askedBy.get(id))
      .find((uuid) => uuid !== undefined);
    return this.entry(chain, 'user', line.message, {
      promptId: this.context.promptId,
      ...(line.tool_use_result !== undefined && { toolUseResult: line.tool_use_result }),
      ...(source !== undefined && { sourceToolAssistantUUID: source }),
    });
  }

  private entry(
    chain: string | null,
    type: 'user' | 'assistant',
    message: unknown,
    extra: Record<string, unknown>,
  ): TranscriptEntry {
    const uuid = randomUUID();
    const { promptId, ...rest } = extra;
    const entry: TranscriptEntry = {
      parentUuid: this.lastOf.get(chain) ?? null,
      isSidechain: chain !== null,
      ...(promptId !== undefined && { promptId }),
      type,
      message,
      uuid,
      timestamp: (this.context.now?.() ?? new Date()).toISOString(),
      ...(this.context.cwd !== undefined && { cwd: this.context.cwd }),
      sessionId: this.context.sessionId,
      ...(this.context.version !== undefined && { version: this.context.version }),
      ...rest,
    };
    this.lastOf.set(chain, uuid);
    return entry;
  }
}

function contentBlocks(message: unknown): Record<string, unknown>[] {
  if (typeof message !== 'object' || message === null) return [];
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content)
    ? content.filter((block): block is Record<string, unknown> => typeof block === 'object')
    : [];
}

function toolUseIds(message: unknown): string[] {
  return contentBlocks(message)
    .filter((block) => block.type === 'tool_use' && typeof block.id === 'string')
    .map((block) => block.id as string);
}

function toolResultIds(message: unknown): string[] {
  return contentBlocks(message)
    .filter((block) => block.type === 'tool_result' && typeof block.tool_use_id === 'string')
    .map((block) => block.tool_use_id as string);
}
