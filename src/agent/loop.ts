/**
 * The agentic loop: stream a response, run its tool calls while it streams, send every result
 * back in one user message (in tool_use order), repeat until the model ends its turn or a limit
 * is reached.
 *
 * A turn is one model response. With maxTurns N, the tools of turn N still run, and the loop
 * stops before asking the model an (N+1)th time.
 *
 * Failures of a turn (the model client retries what can be retried first, model/retrying-client.ts):
 * - cut off after some tool_use blocks were complete: those tools may be running, so the response
 *   is not asked for again; its complete blocks are kept as the turn's message (a
 *   `partial-response` event says so), the tools finish and their results go back as usual;
 * - aborted (a signal, the time limit) or not retryable: running tools are aborted, every call
 *   that was handed out still gets its result in the transcript, and the run ends.
 */
import { randomUUID } from 'node:crypto';
import { ConcurrencyGate } from '../execution/concurrency-gate.js';
import { concurrencySafetyOf } from '../execution/dispatcher.js';
import type { PipelineDeps, ToolCallOutcome } from '../execution/pipeline.js';
import { executeSingleToolUse } from '../execution/pipeline.js';
import { StreamingToolExecutor } from '../execution/streaming-executor.js';
import type { ModelClient } from '../model/model-client.js';
import { isModelError } from '../model/model-client.js';
import { UsageTracker } from '../model/pricing.js';
import { fatalErrorMessage, retryErrorCategory } from '../model/retry-policy.js';
import { withRetries } from '../model/retrying-client.js';
import type { RetryingClientOptions } from '../model/retrying-client.js';
import type {
  AssistantMessage,
  Message,
  StopReason,
  ToolResultBlock,
  ToolUseBlock,
} from '../model/types.js';
import type { PermissionMode } from '../permissions/types.js';
import type { HookRunRecord, SessionHookRunner } from '../hooks/types.js';
import { noHooks } from '../hooks/types.js';
import { errorMessage } from '../util/errors.js';
import type { EventSink, PermissionDenial, ResultSubtype, RunResult } from './events.js';
import { BudgetGuard, TimeLimitError, startTimeLimit } from './limits.js';
import { createContextManager } from './context/context-manager.js';
import type { CompactTrigger } from './context/context-manager.js';
import type { ContextSettings } from './context/context-settings.js';
import { TurnStreamError, streamTurn } from './turn-stream.js';
import type { TurnResponse } from './turn-stream.js';

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
  /** Do not start a turn that would take the run's cost past this (USD; see limits.ts). */
  maxBudgetUsd?: number;
  /** The whole run's time limit: tools are aborted and the run ends as `error_max_duration`. */
  timeoutMs?: number;
  /**
   * How failed model requests are retried (each retry is reported as an `api-retry` event);
   * `false` when the model client retries on its own.
   */
  retry?: Omit<RetryingClientOptions, 'onRetry'> | false;
  /** What each request sends of the conversation (context/); `false` sends all of it. */
  contextManagement?: Partial<ContextSettings> | false;
  /**
   * Where the run's spend and denials are kept (default: its own). The session shares them with
   * its subagents, so their spend counts in this run's cost and budget, their denials in its result.
   */
  usage?: UsageTracker;
  permissionDenials?: PermissionDenial[];
}

/** How often a Stop hook may send the model back to work before the run gives up. */
export const MAX_STOP_HOOK_BLOCKS = 8;

const DEFAULT_MAX_TOKENS = 32_000;

/** How long SessionEnd hooks may run when the run was stopped (a signal, the time limit). */
const STOPPED_RUN_HOOK_MS = 2_000;

export async function runAgent(options: AgentOptions): Promise<RunResult> {
  const started = performance.now();
  const sessionId = options.sessionId ?? randomUUID();
  const timeLimit = startTimeLimit(options.timeoutMs);
  const signal = options.signal
    ? AbortSignal.any([options.signal, timeLimit.signal])
    : timeLimit.signal;
  const modelClient =
    options.retry === false
      ? options.modelClient
      : withRetries(options.modelClient, {
          ...options.retry,
          onRetry: ({ attempt, maxRetries, delayMs, error }) =>
            options.events({
              type: 'api-retry',
              attempt,
              maxRetries,
              delayMs,
              status: error.status,
              error: retryErrorCategory(error),
              message: error.message,
              url: error.url,
              cause: error.detail ?? error.message,
            }),
        });
  const budget = new BudgetGuard(options.maxBudgetUsd);
  const registry = options.pipeline.registry;
  const usage = options.usage ?? new UsageTracker();
  const gate = new ConcurrencyGate(options.maxConcurrency ?? 10);
  const isSafe = concurrencySafetyOf(registry);
  const denials: PermissionDenial[] = options.permissionDenials ?? [];
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
    timeLimit.clear();
    if (hooks.has('SessionEnd')) {
      // A stopped run still tells its hooks, but briefly: the runner kills the job soon after.
      const hookSignal = signal.aborted ? AbortSignal.timeout(STOPPED_RUN_HOOK_MS) : undefined;
      const end = await hooks.sessionEnd({
        reason: 'other',
        ...(hookSignal && { signal: hookSignal }),
      });
      logRuns(end.runs);
    }
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
  const contextManager = createContextManager({
    model: options.model,
    modelClient,
    cwd: options.cwd,
    systemPrompt: options.systemPrompt,
    tools,
    events: options.events,
    settings: options.contextManagement,
    ...(hooks.has('PreCompact') && {
      mayCompact: async (trigger: CompactTrigger, compactSignal?: AbortSignal) => {
        const outcome = await hooks.preCompact({
          trigger,
          ...(compactSignal && { signal: compactSignal }),
        });
        logRuns(outcome.runs);
        return outcome.block === undefined;
      },
    }),
  });
  let stopHookActive = false;
  let stopHookBlocks = 0;
  const record = (response: TurnResponse): AssistantMessage => {
    const assistant: AssistantMessage = { role: 'assistant', content: response.content };
    stopReason = response.stopReason;
    usage.add(response.model, response.usage);
    budget.record(response.model, response.usage);
    options.events({
      type: 'assistant-message',
      messageId: response.id,
      model: response.model,
      message: assistant,
      stopReason: response.stopReason,
      usage: response.usage,
    });
    return assistant;
  };
  const sendResults = (toolUses: readonly ToolUseBlock[], outcomes: readonly ToolCallOutcome[]) => {
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
  };
  const ended = () => {
    const [subtype, message] = stopped(signal);
    return finish(subtype, [message]);
  };

  const streaming = options.streamingToolExecution ?? true;
  for (;;) {
    if (signal.aborted) return ended();
    if (options.maxTurns !== undefined && turns >= options.maxTurns) {
      return finish('error_max_turns', [`Reached max turns (${options.maxTurns})`]);
    }
    const overBudget = budget.refusal(usage.totalCostUSD);
    if (overBudget !== undefined) return finish('error_max_budget_usd', [overBudget]);
    turns++;

    const executor = new StreamingToolExecutor({
      gate,
      isConcurrencySafe: isSafe,
      run: (block, callSignal) => executeSingleToolUse(block, options.pipeline, callSignal),
      signal,
    });
    const requestStarted = performance.now();
    let response: TurnResponse;
    try {
      response = await streamTurn(
        modelClient,
        {
          model: options.model,
          system: options.systemPrompt,
          messages: await contextManager.prepare(messages, signal),
          tools,
          maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
          signal,
        },
        executor,
        streaming,
      );
      apiMs += performance.now() - requestStarted;
      contextManager.recordUsage(response.usage);
    } catch (error) {
      apiMs += performance.now() - requestStarted;
      const partial = error instanceof TurnStreamError ? error.partial : undefined;
      const cause = error instanceof TurnStreamError ? error.cause : error;
      const uses =
        partial?.content.filter((block): block is ToolUseBlock => block.type === 'tool_use') ?? [];
      if (partial === undefined || uses.length === 0 || signal.aborted || !isRetryable(cause)) {
        executor.abandon(signal.aborted ? interruption(signal) : 'the model response failed');
        const outcomes = await executor.results();
        // Every call that was handed out gets its result in the transcript, run or not.
        if (partial !== undefined && outcomes.length > 0) {
          messages.push(record(partial));
          sendResults(uses, outcomes);
        }
        if (signal.aborted) return ended();
        return finish('error_during_execution', [
          fatalErrorMessage(cause, options.model) ?? errorMessage(cause),
        ]);
      }
      options.events({
        type: 'partial-response',
        messageId: partial.id,
        keptBlocks: partial.content.length,
        toolUseIds: uses.map((use) => use.id),
        status: isModelError(cause) ? cause.status : undefined,
        error: isModelError(cause) ? retryErrorCategory(cause) : 'unknown',
        message: errorMessage(cause),
      });
      if (!streaming) for (const use of uses) executor.addTool(use);
      contextManager.recordUsage(partial.usage);
      response = partial;
    }
    const assistant = record(response);

    const text = assistant.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('');
    if (text) lastText = text;
    messages.push(assistant);

    const toolUses = assistant.content.filter(
      (block): block is ToolUseBlock => block.type === 'tool_use',
    );
    // A server tool (web search) paused a long turn: sent back as it is, the response goes on.
    if (toolUses.length === 0 && response.stopReason === 'pause_turn') continue;
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
    sendResults(toolUses, outcomes);

    const stop = outcomes.find((outcome) => outcome.stopRun)?.stopRun;
    if (stop) {
      lastText = stop.reason;
      return finish('success');
    }
  }
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

function isRetryable(error: unknown): boolean {
  return isModelError(error) && error.retryable;
}

/** How a run whose signal aborted ends: the time limit has its own subtype. */
function stopped(signal: AbortSignal): [ResultSubtype, string] {
  const reason: unknown = signal.reason;
  if (reason instanceof TimeLimitError) return ['error_max_duration', reason.message];
  return ['error_during_execution', interruption(signal)];
}

function interruption(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return `the run was stopped: ${reason.message}`;
  return 'the run was interrupted';
}
