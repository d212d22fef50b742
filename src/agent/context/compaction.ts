/**
 * Compaction: the older part of the conversation becomes a summary written by the model.
 *
 * 1. `chooseKeptFrom` picks the recent turns that stay verbatim: the last `keepTurns`, fewer when
 *    they would take more than the tail budget, never fewer than one (a turn's tool results must
 *    follow its tool_use blocks, so the tail starts at an assistant message).
 * 2. `summarizeConversation` sends the older part, as a transcript, to the same model with no
 *    tools and takes the text it answers.
 */
import type { ModelClient } from '../../model/model-client.js';
import type { Message } from '../../model/types.js';
import { renderTranscript } from './transcript.js';

export interface KeptTailLimits {
  keepTurns: number;
  /** Characters (JSON) the kept turns may take together; the last turn is kept regardless. */
  budgetChars: number;
  /** The new tail must start after this index, or there is nothing new to summarise. */
  after: number;
}

/** Index of the first kept message (an assistant message), or undefined when nothing can go. */
export function chooseKeptFrom(
  messages: readonly Message[],
  limits: KeptTailLimits,
): number | undefined {
  let keptFrom: number | undefined;
  let chars = 0;
  let turns = 0;
  for (let index = messages.length - 1; index > limits.after; index--) {
    const message = messages[index] as Message;
    chars += JSON.stringify(message).length;
    if (message.role !== 'assistant') continue;
    if (turns > 0 && chars > limits.budgetChars) break;
    keptFrom = index;
    turns++;
    if (turns >= limits.keepTurns) break;
  }
  return keptFrom;
}

export const SUMMARY_SYSTEM_PROMPT =
  'You summarise the earlier part of a coding agent session so that the agent can continue ' +
  'the task without it. You never call tools; you answer with the summary only.';

const SUMMARY_INSTRUCTIONS = `Summarise the session above for the agent that will continue it. Keep:
- the task and every constraint the user or the repository gave;
- the plan, which steps are done and which remain;
- the files read or changed, with what was learned or changed in each (exact names, functions, commands);
- errors met and how they were resolved, or that they were not;
- what to do next.
Be concrete and brief. Plain text, no preamble.`;

export interface SummaryRequest {
  client: ModelClient;
  model: string;
  /** The part to summarise, as it would be sent (already reduced). */
  messages: readonly Message[];
  maxTokens: number;
  signal?: AbortSignal;
}

export async function summarizeConversation(request: SummaryRequest): Promise<string> {
  const transcript = renderTranscript(request.messages);
  const stream = request.client.stream({
    model: request.model,
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [
      {
        role: 'user',
        content: `<transcript>\n${transcript}\n</transcript>\n\n${SUMMARY_INSTRUCTIONS}`,
      },
    ],
    tools: [],
    maxTokens: request.maxTokens,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  for await (const event of stream) {
    if (event.type !== 'message-complete') continue;
    const summary = event.message.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('')
      .trim();
    if (summary === '') {
      throw new Error('compacting the conversation failed: the model answered with no summary');
    }
    return summary;
  }
  throw new Error('compacting the conversation failed: the summary stream ended without a message');
}
