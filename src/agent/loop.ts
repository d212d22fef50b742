/**
 * The agentic loop: stream a response, run its tool calls while it streams, send every result
 * back in one user message (in tool_use order), repeat until the model ends its turn or a limit
 * is reached.
 *
 * A turn is one model response. With maxTurns N, the tools of turn N still run, and the loop
 * stops before asking the model an (N+1)th time.
 */
import { randomUUID } from 'node:crypto';
import { ConcurrencyGate } from '../execution/concurrency-gate.js';
import { concurrencySafetyOf } from '../execution/dispatcher.js';
import type { PipelineDeps, ToolCallOutcome } from '../execution/pipeline.js';
import { executeSingleToolUse } from '../execution/pipeline.js';
import { StreamingToolExecutor } from '../execution/streaming-executor.js';
import type { ModelClient } from '../model/model-client.js';
import { UsageTracker } from '../model/pricing.js';
import type {
  AssistantMessage,
  Message,
  StopReason,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from '../model/types.js';
import type { PermissionMode } from '../permissions/types.js';
import type { HookRunRecord, SessionHookRunner } from '../hooks/types.js';
import { noHooks } from '../hooks/types.js';
import { errorMessage } from '../util/errors.js';
import type { EventSink, PermissionDenial, ResultSubtype, RunResult } from './events.js';

export interface AgentOptions {
  prompt: string;
  model: string;
  systemPrompt: string;
  modelClient: ModelClient;
  pipeline: PipelineDeps;
  permissionMode: PermissionMode;
  cwd: string;
  maxTurns?: number;
  maxTokens?: number;
  maxConcurrency?: number;
  signal?: AbortSignal;
  sessionId?: string;
  events: EventSink;
  /**
   * Start each tool as soon as its block is complete (default). When false, tools start only after
   * the whole message has arrived: the baseline the streaming benchmark compares against.
   */
  streamingToolExecution?: boolean;
  /** Session-level hooks: SessionStart, UserPromptSubmit, Stop, SessionEnd. */
  sessionHooks?: SessionHookRunner;
  /** Stop before the next request once the run has cost this much (USD). */
  maxBudgetUsd?: number;
}

/** How often a Stop hook may send the model back to work before the run gives up. */
export const MAX_STOP_HOOK_BLOCKS = 8;

const DEFAULT_MAX_TOKENS = 32_000;

export async function runAgent(options: AgentOptions): Promise<RunResult> {
  const started = performance.now();
  const sessionId = options.sessionId ?? randomUUID();
  const signal = options.signal ?? new AbortController().signal;
  const registry = options.pipeline.registry;
  const usage = new UsageTracker();
  const gate = new ConcurrencyGate(options.maxConcurrency ?? 10);
  const isSafe = concurrencySafetyOf(registry);
  const denials: PermissionDenial[] = [];
  const hooks = options.sessionHooks ?? noHooks;
  const messages: Message[] = [];
  let apiMs = 0;
  let turns = 0;
  let lastText = '';
  let stopReason: StopReason | null = null;

  options.events({
    type: 'session-start',
    sessionId,
    cwd: options.cwd,
    model: options.model,
    tools: registry.names(),
    permissionMode: options.permissionMode,
  });

  const logRuns = (runs: readonly HookRunRecord[]) => {
    for (const run of runs) options.events({ type: 'hook-run', run });
  };

  const finish = async (subtype: ResultSubtype, errors: string[] = []): Promise<RunResult> => {
    if (hooks.has('SessionEnd')) logRuns((await hooks.sessionEnd({ reason: 'other' })).runs);
    const result: RunResult = {
      subtype,
      isError: subtype !== 'success',
      result: lastText,
      numTurns: turns,
      durationMs: Math.round(performance.now() - started),
      durationApiMs: Math.round(apiMs),
      stopReason,
      totalCostUsd: usage.totalCostUSD,
      usage: usage.usage,
      modelUsage: usage.modelUsage,
      permissionDenials: denials,
      errors,
    };
    options.events({ type: 'result', result });
    return result;
  };

  // The prompt, with what SessionStart and UserPromptSubmit hooks add to it.
  const context: string[] = [];
  if (hooks.has('SessionStart')) {
    const start = await hooks.sessionStart({ source: 'startup', signal });
    logRuns(start.runs);
    context.push(...start.additionalContext);
  }
  if (hooks.has('UserPromptSubmit')) {
    const submit = await hooks.userPromptSubmit({ prompt: options.prompt, signal });
    logRuns(submit.runs);
    if (submit.block) {
      return finish('error_during_execution', [
        `a UserPromptSubmit hook blocked the prompt: ${submit.block.reason}`,
      ]);
    }
    context.push(...submit.additionalContext);
  }
  messages.push({
    role: 'user',
    content:
      context.length === 0
        ? options.prompt
        : [
            { type: 'text', text: options.prompt },
            ...context.map((text) => ({
              type: 'text' as const,
              text: `<system-reminder>${text}</system-reminder>`,
            })),
          ],
  });

  const tools = registry.toSpecs();
  let stopHookActive = false;
  let stopHookBlocks = 0;
  for (;;) {
    if (signal.aborted) return finish('error_during_execution', [interruption(signal)]);
    if (options.maxTurns !== undefined && turns >= options.maxTurns) {
      return finish('error_max_turns', [`Reached max turns (${options.maxTurns})`]);
    }
    if (options.maxBudgetUsd !== undefined && usage.totalCostUSD >= options.maxBudgetUsd) {
      return finish('error_max_budget_usd', [
        `Reached the budget: $${usage.totalCostUSD.toFixed(4)} spent, the limit is $${options.maxBudgetUsd}`,
      ]);
    }
    turns++;

    const executor = new StreamingToolExecutor({
      gate,
      isConcurrencySafe: isSafe,
      run: (block, callSignal) => executeSingleToolUse(block, options.pipeline, callSignal),
      signal,
    });
    const requestStarted = performance.now();
    let assistant: AssistantMessage;
    try {
      const response = await streamTurn(options, messages, tools, executor, signal);
      assistant = { role: 'assistant', content: response.content };
      stopReason = response.stopReason;
      usage.add(response.model, response.usage);
      options.events({
        type: 'assistant-message',
        messageId: response.id,
        model: response.model,
        message: assistant,
        stopReason: response.stopReason,
        usage: response.usage,
      });
    } catch (error) {
      executor.abandon('the model response failed');
      await executor.results();
      apiMs += performance.now() - requestStarted;
      return finish('error_during_execution', [errorMessage(error)]);
    }
    apiMs += performance.now() - requestStarted;

    const text = assistant.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('');
    if (text) lastText = text;
    messages.push(assistant);

    const toolUses = assistant.content.filter(
      (block): block is ToolUseBlock => block.type === 'tool_use',
    );
    if (toolUses.length === 0) {
      if (!hooks.has('Stop')) return finish('success');
      // "You are not done until …": a Stop hook may send the model back to work.
      const stop = await hooks.stop({ stopHookActive, lastAssistantMessage: text, signal });
      logRuns(stop.runs);
      if (stop.stop) return finish('success');
      if (!stop.continueWith) return finish('success');
      if (stopHookBlocks >= MAX_STOP_HOOK_BLOCKS) {
        return finish('error_during_execution', [
          `a Stop hook still refused to let the run end after ${MAX_STOP_HOOK_BLOCKS} attempts: ${stop.continueWith.reason}`,
        ]);
      }
      stopHookBlocks++;
      stopHookActive = true;
      messages.push({ role: 'user', content: stop.continueWith.reason });
      continue;
    }

    const outcomes = await executor.results();
    for (const outcome of outcomes) if (outcome.denial) denials.push(outcome.denial);
    const results = orderResults(toolUses, outcomes);
    messages.push({ role: 'user', content: results });
    options.events({
      type: 'tool-results-message',
      results,
      structured: toolUses.map(
        (use) => outcomes.find((outcome) => outcome.toolUseId === use.id)?.structured,
      ),
    });

    const stop = outcomes.find((outcome) => outcome.stopRun)?.stopRun;
    if (stop) {
      lastText = stop.reason;
      return finish('success');
    }
  }
}

interface TurnResponse {
  id: string;
  model: string;
  content: AssistantMessage['content'];
  stopReason: StopReason | null;
  usage: Usage;
}

async function streamTurn(
  options: AgentOptions,
  messages: Message[],
  tools: ReturnType<PipelineDeps['registry']['toSpecs']>,
  executor: StreamingToolExecutor,
  signal: AbortSignal,
): Promise<TurnResponse> {
  const stream = options.modelClient.stream({
    model: options.model,
    system: options.systemPrompt,
    messages,
    tools,
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    signal,
  });
  const streaming = options.streamingToolExecution ?? true;
  for await (const event of stream) {
    if (streaming && event.type === 'block-complete' && event.block.type === 'tool_use') {
      // Start the call now, while the model is still streaming the rest of its message.
      executor.addTool(event.block);
    }
    if (event.type === 'message-complete') {
      if (!streaming) {
        for (const block of event.message.content)
          if (block.type === 'tool_use') executor.addTool(block);
      }
      return {
        id: event.message.id,
        model: event.message.model,
        content: event.message.content,
        stopReason: event.message.stopReason,
        usage: event.message.usage,
      };
    }
  }
  throw new Error('the model stream ended without a complete message');
}

/**
 * One tool_result per tool_use, in tool_use order (DECISIONS #15). A tool_use the executor never
 * saw (it cannot happen unless the stream and the final message disagree) still gets a result.
 */
function orderResults(
  toolUses: readonly ToolUseBlock[],
  outcomes: readonly ToolCallOutcome[],
): ToolResultBlock[] {
  const byId = new Map(outcomes.map((outcome) => [outcome.toolUseId, outcome.result]));
  return toolUses.map(
    (use) =>
      byId.get(use.id) ?? {
        type: 'tool_result',
        tool_use_id: use.id,
        content:
          '<tool_use_error>Not run: the call was missing from the streamed response.</tool_use_error>',
        is_error: true,
      },
  );
}

function interruption(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return `the run was stopped: ${reason.message}`;
  return 'the run was interrupted';
}
