/**
 * The model of a replay: a ModelClient that answers the n-th request with the n-th recorded
 * assistant message, as the provider streamed it (message-start, each block complete, the
 * message), so the loop runs its tools exactly as it did. No network at all.
 *
 * A compaction's summary request (agent/context/compaction.ts: the summary system prompt, no
 * tools) is answered with the recorded summary, when the log compacted at that very point.
 *
 * It refuses, and records why (`divergence`), what it cannot answer faithfully:
 * 1. a request past the last recorded message (a Stop hook sent the model back to work, a
 *    limit fell later than recorded);
 * 2. a request that does not answer the previous message's calls, id for id and in order (a
 *    hook's extra message);
 * 3. the first request carrying tool results;
 * 4. a summary request where the log did not compact, and a turn's request where it did.
 * The refusal is a ModelError that is not retried, so the run ends there.
 */
import { ModelError } from '../model/model-client.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from '../model/model-client.js';
import type { AssistantContentBlock } from '../model/types.js';
import { emptyUsage } from '../model/types.js';
import { SUMMARY_SYSTEM_PROMPT } from '../agent/context/compaction.js';
import type { RecordedCompaction, RecordedTurn } from './recorded-run.js';

export class ReplayModelClient implements ModelClient {
  private served = 0;
  private summariesServed = 0;
  /** Why the replay could not go on, once it could not. */
  divergence: string | undefined;

  /** `mapInput` rewrites a recorded tool input for the replay (its paths: replay-paths.ts). */
  constructor(
    private readonly turns: readonly RecordedTurn[],
    private readonly mapInput: (input: unknown) => unknown = (input) => input,
    private readonly compactions: readonly RecordedCompaction[] = [],
  ) {}

  /** How many recorded messages the run has asked for. */
  get turnsServed(): number {
    return this.served;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    if (isSummaryRequest(request)) {
      yield* this.summary();
      return;
    }
    const index = this.served;
    const problem = this.problemWith(request, index);
    if (problem !== undefined) {
      this.divergence ??= problem;
      throw new ModelError(`replay: ${problem}`, { kind: 'invalid-request', retryable: false });
    }
    const turn = this.turns[index]!;
    this.served += 1;
    const content = turn.content.map((block) => this.mapped(block));
    yield { type: 'message-start', messageId: turn.id, model: turn.model, usage: turn.usage };
    for (const [blockIndex, block] of content.entries()) {
      if (block.type === 'tool_use')
        yield { type: 'tool-use-start', index: blockIndex, id: block.id, name: block.name };
      yield { type: 'block-complete', index: blockIndex, block };
    }
    yield {
      type: 'message-complete',
      message: {
        id: turn.id,
        model: turn.model,
        content,
        stopReason: turn.stopReason,
        usage: turn.usage,
      },
    };
  }

  /** The recorded summary of the compaction due before the next turn. */
  private *summary(): Iterable<ModelStreamEvent> {
    const compaction = this.compactions[this.summariesServed];
    if (compaction?.beforeTurn !== this.served) {
      const problem =
        compaction === undefined
          ? `the run compacted its context before model turn ${this.served + 1}, but the log has no compaction there`
          : `the run compacted its context before model turn ${this.served + 1}, but the log's next compaction came before turn ${compaction.beforeTurn + 1}`;
      this.divergence ??= problem;
      throw new ModelError(`replay: ${problem}`, { kind: 'invalid-request', retryable: false });
    }
    this.summariesServed += 1;
    const model = this.turns[Math.max(0, this.served - 1)]?.model ?? 'replay';
    // The log keeps the summary's text, not its usage: it is served as costing nothing.
    const usage = emptyUsage();
    const id = `replay_summary_${this.summariesServed}`;
    const block = { type: 'text' as const, text: compaction.summary };
    yield { type: 'message-start', messageId: id, model, usage };
    yield { type: 'block-complete', index: 0, block };
    yield {
      type: 'message-complete',
      message: { id, model, content: [block], stopReason: 'end_turn', usage },
    };
  }

  private mapped(block: AssistantContentBlock): AssistantContentBlock {
    return block.type === 'tool_use' ? { ...block, input: this.mapInput(block.input) } : block;
  }

  private problemWith(request: ModelRequest, index: number): string | undefined {
    if (index >= this.turns.length)
      return `the run asked for model turn ${index + 1}, but the log records ${this.turns.length}`;
    const due = this.compactions[this.summariesServed];
    if (due?.beforeTurn === index)
      return `the log compacted the context before model turn ${index + 1}, but the run did not`;
    const answered = resultIdsOf(request);
    const expected = index === 0 ? [] : callIdsOf(this.turns[index - 1]!);
    if (answered.join(',') !== expected.join(','))
      return `request ${index + 1} answers the calls [${answered.join(', ')}], but the log's turn ${index} made [${expected.join(', ')}]: the run went another way than recorded`;
    return undefined;
  }
}

/** A compaction's summary request: the summary system prompt and no tools (compaction.ts). */
function isSummaryRequest(request: ModelRequest): boolean {
  return request.system === SUMMARY_SYSTEM_PROMPT && request.tools.length === 0;
}

function callIdsOf(turn: RecordedTurn): string[] {
  return turn.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
}

/** The tool_use ids the request's last message answers (none when it is not tool results). */
function resultIdsOf(request: ModelRequest): string[] {
  const last = request.messages.at(-1);
  if (last?.role !== 'user' || typeof last.content === 'string') return [];
  return last.content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
}
