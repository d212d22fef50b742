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
 *
 * The steps (AgentRun):
 *   1. announce          the session-start event
 *   2. openingMessage    the prompt, with what SessionStart and UserPromptSubmit hooks add
 *   3. prepareRequests   the tool specs and the context manager every request goes through
 *   4. turnRefusal       stopped, out of turns or out of budget → the run ends
 *   5. requestTurn       one streamed response, its tools starting as their blocks complete
 *   6. afterTurn         tool results back (or Stop hooks when there were no calls); repeat from 4
 *   7. finish            SessionEnd hooks, then the result
 */
import { randomUUID } from 'node:crypto';
import { ConcurrencyGate } from '../execution/concurrency-gate.js';
import { concurrencySafetyOf } from '../execution/dispatcher.js';
import type { PipelineDeps, ToolCallOutcome } from '../execution/pipeline.js';
import { executeSingleToolUse } from '../execution/pipeline.js';
import { StreamingToolExecutor } from '../execution/streaming-executor.js';
import type { ModelClient } from '../model/model-client.js';
import { isModelError } from '../model/model-client.js';
import { fatalErrorMessage, retryErrorCategory } from '../model/retry-policy.js';
import { withRetries } from '../model/retrying-client.js';
import type { RetryingClientOptions } from '../model/retrying-client.js';
import { withServerTools } from '../model/server-tools.js';
import { SpendMeter, isBudgetExceeded } from '../model/spend-meter.js';
import type { SpendPart } from '../model/spend-meter.js';
import type {
  AssistantMessage,
  Message,
  ServerToolSpec,
  StopReason,
  ToolResultBlock,
  ToolSpec,
  ToolUseBlock,
} from '../model/types.js';
import type { PermissionMode } from '../permissions/types.js';
import type { HookRunRecord, SessionHookRunner } from '../hooks/types.js';
import { noHooks } from '../hooks/types.js';
import { errorMessage } from '../util/errors.js';
import type { EventSink, PermissionDenial, ResultSubtype, RunResult } from './events.js';
import { BudgetGuard, TimeLimitError, startTimeLimit } from './limits.js';
import { createContextManager } from './context/context-manager.js';
import type { CompactTrigger, ContextManager } from './context/context-manager.js';
import type { ContextSettings } from './context/context-settings.js';
import { TurnStreamError, streamTurn } from './turn-stream.js';
import type { TurnResponse } from './turn-stream.js';

export interface AgentOptions {
  prompt: string;
  /** The repository's HEAD the run starts on, for the session-start event (the tool log). */
  commit?: string;
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
  /**
   * The run's budget in USD, for a loop without a `meter`: no request is sent that could take
   * the run's cost past it (model/spend-meter.ts), and no turn is started that is expected to
   * (limits.ts).
   */
  maxBudgetUsd?: number;
  /**
   * The run's spend meter: every request of this loop (each retried attempt, its compactions)
   * goes through it, and the result's cost is read from it. Default: the loop's own, with
   * `maxBudgetUsd`. The session shares one with its subagents and side queries, so the budget
   * is the run's.
   */
  meter?: SpendMeter;
  /** The subagent this loop is, for the cost by part and its own result; absent: the main agent. */
  agent?: { type: string; id: string };
  /** Tools the provider runs itself (web search), added to every turn's request. */
  serverTools?: readonly ServerToolSpec[];
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
   * Where the run's denials are kept (default: its own). The session shares them with its
   * subagents, so their denials count in its result.
   */
  permissionDenials?: PermissionDenial[];
}

/** How often a Stop hook may send the model back to work before the run gives up. */
export const MAX_STOP_HOOK_BLOCKS = 8;

const DEFAULT_MAX_TOKENS = 32_000;

/** How long SessionEnd hooks may run when the run was stopped (a signal, the time limit). */
const STOPPED_RUN_HOOK_MS = 2_000;

export async function runAgent(options: AgentOptions): Promise<RunResult> {
  const run = new AgentRun(options);
  run.announce();
  const prompt = await run.openingMessage();
  if ('blocked' in prompt) return run.finish('error_during_execution', [prompt.blocked]);
  run.messages.push(prompt.message);
  run.prepareRequests();
  for (;;) {
    const refusal = run.turnRefusal();
    if (refusal) return refusal;
    const executor = run.newExecutor();
    const turn = await run.requestTurn(executor);
    if ('result' in turn) return turn.result;
    const next = await run.afterTurn(turn.response, executor);
    if (next !== 'continue') return next;
  }
}

/** The steps of runAgent and what they share: the transcript, the counters, the last text. */
class AgentRun {
  readonly messages: Message[] = [];
  private readonly started = performance.now();
  private readonly sessionId: string;
  private readonly timeLimit: ReturnType<typeof startTimeLimit>;
  private readonly signal: AbortSignal;
  private readonly modelClient: ModelClient;
  private readonly budget: BudgetGuard;
  private readonly meter: SpendMeter;
  private readonly gate: ConcurrencyGate;
  private readonly isSafe: (block: ToolUseBlock) => boolean;
  private readonly denials: PermissionDenial[];
  private readonly hooks: SessionHookRunner;
  private readonly streaming: boolean;
  /** Set by prepareRequests, once the prompt is known. */
  private tools: ToolSpec[] = [];
  private contextManager!: ContextManager;
  private apiMs = 0;
  private turns = 0;
  private lastText = '';
  private stopReason: StopReason | null = null;
  private stopHookActive = false;
  private stopHookBlocks = 0;

  constructor(private readonly options: AgentOptions) {
    this.sessionId = options.sessionId ?? randomUUID();
    this.timeLimit = startTimeLimit(options.timeoutMs);
    this.signal = options.signal
      ? AbortSignal.any([options.signal, this.timeLimit.signal])
      : this.timeLimit.signal;
    this.meter = options.meter ?? new SpendMeter({ limitUsd: options.maxBudgetUsd });
    // Beneath the retries, so that each attempt is bounded and counted; beneath the server
    // tools, so that the meter sees the searches a request may make.
    this.modelClient = retryingClient(
      options,
      withServerTools(this.meteredClient('turn'), options.serverTools ?? []),
    );
    this.budget = new BudgetGuard(this.meter.limitUsd);
    this.gate = new ConcurrencyGate(options.maxConcurrency ?? 10);
    this.isSafe = concurrencySafetyOf(options.pipeline.registry);
    this.denials = options.permissionDenials ?? [];
    this.hooks = options.sessionHooks ?? noHooks;
    this.streaming = options.streamingToolExecution ?? true;
  }

  /** 1. The session starts: what it runs with. */
  announce(): void {
    const { options } = this;
    options.events({
      type: 'session-start',
      sessionId: this.sessionId,
      cwd: options.cwd,
      model: options.model,
      tools: options.pipeline.registry.names(),
      permissionMode: options.permissionMode,
      ...(options.commit !== undefined && { commit: options.commit }),
    });
  }

  /** 2. The prompt, with what SessionStart and UserPromptSubmit hooks add to it. */
  async openingMessage(): Promise<{ message: Message } | { blocked: string }> {
    const { hooks, options, signal } = this;
    const context: string[] = [];
    if (hooks.has('SessionStart')) {
      const start = await hooks.sessionStart({ source: 'startup', signal });
      this.logRuns(start.runs);
      context.push(...start.additionalContext);
    }
    if (hooks.has('UserPromptSubmit')) {
      const submit = await hooks.userPromptSubmit({ prompt: options.prompt, signal });
      this.logRuns(submit.runs);
      if (submit.block) {
        return { blocked: `a UserPromptSubmit hook blocked the prompt: ${submit.block.reason}` };
      }
      context.push(...submit.additionalContext);
    }
    return {
      message: {
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
      },
    };
  }

  /** 3. What every request sends besides the conversation: the tools, the context manager. */
  prepareRequests(): void {
    this.tools = this.options.pipeline.registry.toSpecs();
    this.contextManager = this.newContextManager();
  }

  /** 4. Before each turn: the run ends when stopped, out of turns or out of budget. */
  turnRefusal(): Promise<RunResult> | undefined {
    const { options } = this;
    if (this.signal.aborted) return this.ended();
    if (options.maxTurns !== undefined && this.turns >= options.maxTurns) {
      return this.finish('error_max_turns', [`Reached max turns (${options.maxTurns})`]);
    }
    const overBudget = this.budget.refusal(this.meter.spentUsd);
    if (overBudget !== undefined) return this.finish('error_max_budget_usd', [overBudget]);
    this.turns++;
    return undefined;
  }

  newExecutor(): StreamingToolExecutor {
    const { options } = this;
    return new StreamingToolExecutor({
      gate: this.gate,
      isConcurrencySafe: this.isSafe,
      run: (block, callSignal) => executeSingleToolUse(block, options.pipeline, callSignal),
      signal: this.signal,
    });
  }

  /**
   * 5. One model response, its tool calls starting as their blocks complete. A response cut off
   * after complete tool_use blocks is kept (recoverTurn); any other failure ends the run.
   */
  async requestTurn(
    executor: StreamingToolExecutor,
  ): Promise<{ response: TurnResponse } | { result: RunResult }> {
    const { options, signal } = this;
    const { contextManager } = this;
    const requestStarted = performance.now();
    try {
      const prepared = await contextManager.prepare(this.messages, signal);
      const response = await streamTurn(
        this.modelClient,
        {
          model: options.model,
          system: options.systemPrompt,
          messages: prepared.messages,
          ...(prepared.changedFrom && { changedFrom: prepared.changedFrom }),
          tools: this.tools,
          maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
          signal,
        },
        executor,
        this.streaming,
      );
      this.apiMs += performance.now() - requestStarted;
      contextManager.recordUsage(response.usage);
      return { response };
    } catch (error) {
      this.apiMs += performance.now() - requestStarted;
      return this.recoverTurn(error, executor);
    }
  }

  private async recoverTurn(
    error: unknown,
    executor: StreamingToolExecutor,
  ): Promise<{ response: TurnResponse } | { result: RunResult }> {
    const { contextManager, options, signal } = this;
    const partial = error instanceof TurnStreamError ? error.partial : undefined;
    const cause = error instanceof TurnStreamError ? error.cause : error;
    const uses =
      partial?.content.filter((block): block is ToolUseBlock => block.type === 'tool_use') ?? [];
    if (partial === undefined || uses.length === 0 || signal.aborted || !isRetryable(cause)) {
      executor.abandon(signal.aborted ? interruption(signal) : 'the model response failed');
      const outcomes = await executor.results();
      // Every call that was handed out gets its result in the transcript, run or not.
      if (partial !== undefined && outcomes.length > 0) {
        this.messages.push(this.record(partial));
        this.sendResults(uses, outcomes);
      }
      if (signal.aborted) return { result: await this.ended() };
      // The meter refused to send a request (this turn's, or its compaction's).
      if (isBudgetExceeded(cause)) {
        return { result: await this.finish('error_max_budget_usd', [cause.message]) };
      }
      return {
        result: await this.finish('error_during_execution', [
          fatalErrorMessage(cause, options.model) ?? errorMessage(cause),
        ]),
      };
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
    if (!this.streaming) for (const use of uses) executor.addTool(use);
    contextManager.recordUsage(partial.usage);
    return { response: partial };
  }

  /**
   * 6. After the response: its tools' results go back (a hook may stop the run after a call); a
   * response without tool calls ends the run unless a Stop hook sends the model back to work.
   */
  async afterTurn(
    response: TurnResponse,
    executor: StreamingToolExecutor,
  ): Promise<RunResult | 'continue'> {
    const assistant = this.record(response);
    const text = assistant.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('');
    if (text) this.lastText = text;
    this.messages.push(assistant);

    const toolUses = assistant.content.filter(
      (block): block is ToolUseBlock => block.type === 'tool_use',
    );
    // A server tool (web search) paused a long turn: sent back as it is, the response goes on.
    if (toolUses.length === 0 && response.stopReason === 'pause_turn') return 'continue';
    // An answer cut short by the max_tokens the budget left is not a finished one.
    if (
      toolUses.length === 0 &&
      response.stopReason === 'max_tokens' &&
      this.meter.wasCapped(response.id)
    ) {
      return this.finish('error_max_budget_usd', [
        `Reached the budget: $${this.meter.spentUsd.toFixed(4)} spent, the limit is $${this.meter.limitUsd}; the last answer was cut short to stay within it`,
      ]);
    }
    if (toolUses.length === 0) return this.stopHooks(text);

    const outcomes = await executor.results();
    this.sendResults(toolUses, outcomes);
    const stop = outcomes.find((outcome) => outcome.stopRun)?.stopRun;
    if (stop) {
      this.lastText = stop.reason;
      return this.finish('success');
    }
    return 'continue';
  }

  /** "You are not done until …": a Stop hook may send the model back to work. */
  private async stopHooks(text: string): Promise<RunResult | 'continue'> {
    const { hooks } = this;
    if (!hooks.has('Stop')) return this.finish('success');
    const stop = await hooks.stop({
      stopHookActive: this.stopHookActive,
      lastAssistantMessage: text,
      signal: this.signal,
    });
    this.logRuns(stop.runs);
    // Stopped while they ran (a signal, the time limit, a workspace that could not be prepared).
    if (this.signal.aborted) return this.ended();
    if (stop.stop) return this.finish('success');
    if (!stop.continueWith) return this.finish('success');
    if (this.stopHookBlocks >= MAX_STOP_HOOK_BLOCKS) {
      return this.finish('error_during_execution', [
        `a Stop hook still refused to let the run end after ${MAX_STOP_HOOK_BLOCKS} attempts: ${stop.continueWith.reason}`,
      ]);
    }
    this.stopHookBlocks++;
    this.stopHookActive = true;
    this.messages.push({ role: 'user', content: stop.continueWith.reason });
    return 'continue';
  }

  /** 7. The end: SessionEnd hooks, then the result. */
  async finish(subtype: ResultSubtype, errors: string[] = []): Promise<RunResult> {
    const { hooks, options, signal, meter } = this;
    this.timeLimit.clear();
    if (hooks.has('SessionEnd')) {
      // A stopped run still tells its hooks, but briefly: the runner kills the job soon after.
      const hookSignal = signal.aborted ? AbortSignal.timeout(STOPPED_RUN_HOOK_MS) : undefined;
      const end = await hooks.sessionEnd({
        reason: 'other',
        ...(hookSignal && { signal: hookSignal }),
      });
      this.logRuns(end.runs);
    }
    // The main agent's result is the run's: every part's spend. A subagent's is its own.
    const spend = meter.summary(options.agent?.id);
    const result: RunResult = {
      subtype,
      isError: subtype !== 'success',
      result: this.lastText,
      numTurns: this.turns,
      durationMs: Math.round(performance.now() - this.started),
      durationApiMs: Math.round(this.apiMs),
      stopReason: this.stopReason,
      totalCostUsd: spend.total_cost_usd,
      usage: spend.usage,
      modelUsage: spend.modelUsage,
      permissionDenials: this.denials,
      errors,
      ...(options.agent === undefined && { costParts: meter.rows() }),
    };
    options.events({ type: 'result', result });
    return result;
  }

  private ended(): Promise<RunResult> {
    const [subtype, message] = stopped(this.signal);
    return this.finish(subtype, [message]);
  }

  private newContextManager(): ContextManager {
    const { hooks, options } = this;
    return createContextManager({
      model: options.model,
      // Summaries go out with the run's retries, as compaction in the cost by part, and without
      // server tools: a summary has nothing to search for.
      modelClient: retryingClient(options, this.meteredClient('compaction')),
      cwd: options.cwd,
      systemPrompt: options.systemPrompt,
      tools: this.tools,
      events: options.events,
      settings: options.contextManagement,
      ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
      ...(hooks.has('PreCompact') && {
        mayCompact: async (trigger: CompactTrigger, compactSignal?: AbortSignal) => {
          const outcome = await hooks.preCompact({
            trigger,
            ...(compactSignal && { signal: compactSignal }),
          });
          this.logRuns(outcome.runs);
          return outcome.block === undefined;
        },
      }),
    });
  }

  private record(response: TurnResponse): AssistantMessage {
    const assistant: AssistantMessage = { role: 'assistant', content: response.content };
    this.stopReason = response.stopReason;
    // The meter counted this response's usage as it arrived; the guard estimates from it.
    this.budget.record(response.model, response.usage);
    this.options.events({
      type: 'assistant-message',
      messageId: response.id,
      model: response.model,
      message: assistant,
      stopReason: response.stopReason,
      usage: response.usage,
    });
    return assistant;
  }

  private sendResults(toolUses: readonly ToolUseBlock[], outcomes: readonly ToolCallOutcome[]) {
    for (const outcome of outcomes) if (outcome.denial) this.denials.push(outcome.denial);
    const results = orderResults(toolUses, outcomes);
    this.messages.push({ role: 'user', content: results });
    this.options.events({
      type: 'tool-results-message',
      results,
      structured: toolUses.map(
        (use) => outcomes.find((outcome) => outcome.toolUseId === use.id)?.structured,
      ),
    });
  }

  private logRuns(runs: readonly HookRunRecord[]): void {
    for (const run of runs) this.options.events({ type: 'hook-run', run });
  }

  /** The provider's client for one part of this loop, through the run's meter. */
  private meteredClient(role: SpendPart['role']): ModelClient {
    const { agent } = this.options;
    return this.meter.client(this.options.modelClient, { role, ...(agent && { agent }) });
  }
}

/** The model client with the run's retries, each reported as an `api-retry` event. */
function retryingClient(options: AgentOptions, client: ModelClient): ModelClient {
  if (options.retry === false) return client;
  return withRetries(client, {
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
}

/**
 * One tool_result per tool_use, in tool_use order (docs/DECISIONS.md #15). A tool_use the executor never
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
