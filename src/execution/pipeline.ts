/**
 * One tool call, from the model's tool_use block to the tool_result block. Never throws: every
 * failure the model can act on becomes a result with is_error.
 *
 *   1. find the tool (own-property lookup)        → "No such tool available"
 *   2. aborted already?                           → cancellation result
 *   3. inputSchema.safeParse                      → InputValidationError
 *   4. validateInput                              → the tool's message
 *   5. PreToolUse hooks                           → decision, updatedInput (parsed again), context, stop
 *   6. permission decision                        → denial result naming the rule and reason
 *   7. call() with the abort signal and a timeout → progress events, then the structured output
 *   8. PostToolUse hooks                          → context or a block reason beside the result
 *   9. the tool_result block
 */
import { homedir } from 'node:os';
import type { EventSink, PermissionDenial } from '../agent/events.js';
import type { HookRunner, SessionHookRunner } from '../hooks/types.js';
import type { ToolResultBlock, ToolUseBlock } from '../model/types.js';
import type { DecisionRequest } from '../permissions/decide.js';
import { decide, decideByDenyRules } from '../permissions/decide.js';
import { adviseDenial, denialAdviceRecord } from '../permissions/denial-advice.js';
import type { PermissionDecision, PermissionPolicy } from '../permissions/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Tool, ToolContext } from '../tools/tool.js';
import { toolUseError } from '../tools/tool.js';
import { errorMessage } from '../util/errors.js';
import { formatInputValidationError } from './input-errors.js';

export type PipelineStage =
  | 'unknown-tool'
  | 'aborted'
  | 'schema'
  | 'validation'
  | 'hook'
  | 'permission'
  | 'call'
  | 'completed';

export interface ToolCallOutcome {
  toolUseId: string;
  toolName: string;
  /** The input the tool ran with (after a hook's updatedInput), or the model's input. */
  input: unknown;
  result: ToolResultBlock;
  /** The tool's structured output when call() completed. */
  structured?: unknown;
  stage: PipelineStage;
  decision?: PermissionDecision;
  denial?: PermissionDenial;
  /** A hook asked the run to stop after this call. */
  stopRun?: { reason: string };
  durationMs: number;
}

export interface PipelineDeps {
  registry: ToolRegistry;
  policy: PermissionPolicy;
  /** PreToolUse/PostToolUse, and PostToolUseFailure when the runner has it. */
  hooks: HookRunner & Partial<Pick<SessionHookRunner, 'postToolUseFailure'>>;
  /** Builds the context a call runs in; the signal is the call's own. */
  makeContext(toolUseId: string, signal: AbortSignal): ToolContext;
  events: EventSink;
  /** Ceiling for one call, whatever the tool's own timeout; default 15 minutes. */
  callTimeoutMs?: number;
  /**
   * The workspace's preparation (the action creates its branch once the first request is out),
   * started by the first call that needs it: every call waits for it, and none runs when it
   * failed.
   */
  ready?: () => Promise<void>;
}

const DEFAULT_CALL_TIMEOUT_MS = 15 * 60_000;

export async function executeSingleToolUse(
  block: ToolUseBlock,
  deps: PipelineDeps,
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  const report = outcomeReporter(block, deps);
  if (deps.ready) {
    try {
      await deps.ready();
    } catch (error) {
      return report.fail('aborted', errorMessage(error));
    }
  }
  const call = prepareCall(block, deps, signal, report);
  if (isOutcome(call)) return call;
  try {
    return (
      (await validateCall(call, report)) ??
      (await runPreToolUseHooks(call, report)) ??
      decidePermission(call, report) ??
      (await callTool(call, report))
    );
  } catch (error) {
    // A tool or hook bug must not take the loop down; the model sees what failed.
    return report.fail('call', `Error: ${errorMessage(error)}`);
  }
}

/** One call on its way through the steps; a hook's updatedInput changes its input and target. */
interface CallState {
  block: ToolUseBlock;
  deps: PipelineDeps;
  signal: AbortSignal;
  tool: Tool;
  input: unknown;
  /**
   * What hooks see as tool_input: the model's input as sent (it passed the schema), not the
   * parsed one with defaults filled in; after an updatedInput, the hook's input.
   */
  hookInput: unknown;
  context: ToolContext;
  /** What the policy decides on; computed once per input, the hook's decision added in step 6. */
  target: DecisionRequest;
  /** Set by step 5. */
  pre?: PreToolUseOutcome;
  /** Set by step 6. */
  permission?: { request: DecisionRequest; decision: PermissionDecision };
}

type PreToolUseOutcome = Awaited<ReturnType<HookRunner['preToolUse']>>;

/** How a call ends: its outcome, reported once as a `tool-result` event. */
interface OutcomeReporter {
  finish(
    partial: Omit<ToolCallOutcome, 'toolUseId' | 'toolName' | 'durationMs' | 'input'> & {
      input?: unknown;
    },
  ): ToolCallOutcome;
  fail(stage: PipelineStage, content: string): ToolCallOutcome;
  deny(
    refusal: { decision: PermissionDecision; request: DecisionRequest; policy: PermissionPolicy },
    input: unknown,
    stopRun: { reason: string } | undefined,
  ): ToolCallOutcome;
}

function outcomeReporter(block: ToolUseBlock, deps: PipelineDeps): OutcomeReporter {
  const started = performance.now();
  const finish: OutcomeReporter['finish'] = (partial) => {
    const outcome: ToolCallOutcome = {
      toolUseId: block.id,
      toolName: block.name,
      input: block.input,
      ...partial,
      durationMs: performance.now() - started,
    };
    deps.events({
      type: 'tool-result',
      toolUseId: block.id,
      toolName: block.name,
      result: outcome.result,
      structured: outcome.structured,
      durationMs: outcome.durationMs,
      stage: outcome.stage,
    });
    return outcome;
  };
  return {
    finish,
    fail: (stage, content) => finish({ stage, result: errorResult(block.id, content) }),
    deny({ decision: refused, request, policy }, input, stopRun) {
      // How the policy's owner could allow it: for the log, the report and stderr, never for
      // the model, which Claude Code does not tell how to get around a refusal (DECISIONS.md #22).
      const advice = adviseDenial(request, policy, refused);
      const decision = advice ? { ...refused, advice } : refused;
      deps.events({
        type: 'permission-decision',
        toolUseId: block.id,
        toolName: block.name,
        input,
        decision,
      });
      const denial: PermissionDenial = {
        tool_name: block.name,
        tool_use_id: block.id,
        tool_input: input,
        reason: decision.reason,
        rules: decision.matchedRules.map((rule) => rule.text),
        ...(advice && { suggestion: denialAdviceRecord(advice) }),
      };
      return finish({
        stage: 'permission',
        input,
        decision,
        denial,
        stopRun,
        result: errorResult(block.id, denialText(block.name, decision)),
      });
    },
  };
}

function isOutcome(value: CallState | ToolCallOutcome): value is ToolCallOutcome {
  return 'stage' in value;
}

/** Steps 1–3: the tool, a call not aborted before it started, and an input its schema accepts. */
function prepareCall(
  block: ToolUseBlock,
  deps: PipelineDeps,
  signal: AbortSignal,
  report: OutcomeReporter,
): CallState | ToolCallOutcome {
  // 1. find
  const tool = deps.registry.find(block.name);
  if (!tool) {
    return report.fail(
      'unknown-tool',
      toolUseError(`Error: No such tool available: ${block.name}`),
    );
  }
  // 2. aborted before it started
  if (signal.aborted) return report.fail('aborted', cancelledText(signal));
  // 3. schema
  const parsed = tool.inputSchema.safeParse(block.input);
  if (!parsed.success) {
    return report.fail(
      'schema',
      toolUseError(formatInputValidationError(tool.name, parsed.error, block.input)),
    );
  }
  const input: unknown = parsed.data;
  const context = deps.makeContext(block.id, signal);
  return {
    block,
    deps,
    signal,
    tool,
    input,
    hookInput: block.input,
    context,
    // Computed in step 4, inside the call's try: a checkPermissions that throws fails the call.
    target: undefined as unknown as DecisionRequest,
  };
}

/** Step 4: deny rules, then the tool's business rules. */
async function validateCall(
  call: CallState,
  report: OutcomeReporter,
): Promise<ToolCallOutcome | undefined> {
  const { tool, deps } = call;
  // Deny rules before validateInput: a denied path must not reveal whether it exists.
  call.target = permissionRequestOf(tool, call.input, call.context);
  const early = decideByDenyRules(call.target, deps.policy);
  if (early) {
    return report.deny(
      { decision: early, request: call.target, policy: deps.policy },
      call.input,
      undefined,
    );
  }

  // An invalid call the policy refuses anyway gets the refusal: a missing file outside the
  // workspace must answer as an existing one does.
  const validation = await tool.validateInput(call.input, call.context);
  if (!validation.result) {
    const refused = decide(call.target, deps.policy);
    if (refused.behavior === 'deny') {
      const refusal = { decision: refused, request: call.target, policy: deps.policy };
      return report.deny(refusal, call.input, undefined);
    }
    return report.fail('validation', toolUseError(validation.message));
  }
  deps.events({
    type: 'tool-call-start',
    toolUseId: call.block.id,
    toolName: tool.name,
    input: call.input,
  });
  return undefined;
}

/** Step 5: PreToolUse hooks; an updatedInput is parsed, targeted and validated again. */
async function runPreToolUseHooks(
  call: CallState,
  report: OutcomeReporter,
): Promise<ToolCallOutcome | undefined> {
  const { tool, deps, block } = call;
  const pre = await deps.hooks.preToolUse({
    toolName: tool.name,
    toolInput: call.hookInput,
    toolUseId: block.id,
    target: call.target,
    signal: call.signal,
  });
  call.pre = pre;
  for (const run of pre.runs) deps.events({ type: 'hook-run', toolUseId: block.id, run });
  if (pre.updatedInput === undefined || pre.decision?.behavior === 'deny') return undefined;
  const reparsed = tool.inputSchema.safeParse(pre.updatedInput);
  if (!reparsed.success) {
    return report.fail(
      'hook',
      toolUseError(
        `A PreToolUse hook rewrote the input into an invalid one. ${formatInputValidationError(tool.name, reparsed.error, pre.updatedInput)}`,
      ),
    );
  }
  call.input = reparsed.data;
  call.hookInput = pre.updatedInput;
  call.target = permissionRequestOf(tool, call.input, call.context);
  const revalidation = await tool.validateInput(call.input, call.context);
  if (!revalidation.result) return report.fail('validation', toolUseError(revalidation.message));
  return undefined;
}

/** Step 6: the permission decision, with the hook's. */
function decidePermission(call: CallState, report: OutcomeReporter): ToolCallOutcome | undefined {
  const { deps, block } = call;
  const pre = call.pre as PreToolUseOutcome;
  const request: DecisionRequest = { ...call.target, hook: pre.decision };
  const decision = decide(request, deps.policy);
  if (decision.behavior === 'deny') {
    return report.deny({ decision, request, policy: deps.policy }, call.input, pre.stop);
  }
  deps.events({
    type: 'permission-decision',
    toolUseId: block.id,
    toolName: call.tool.name,
    input: call.input,
    decision,
  });
  call.permission = { request, decision };
  return undefined;
}

/** Steps 7–9: the call, the failure or PostToolUse hooks, and the tool_result block. */
async function callTool(call: CallState, report: OutcomeReporter): Promise<ToolCallOutcome> {
  const { tool, deps, block, signal } = call;
  const pre = call.pre as PreToolUseOutcome;
  const { decision } = call.permission as NonNullable<CallState['permission']>;
  // 7. call
  const callStarted = performance.now();
  const run = await runCall(tool, call.input, call.context, deps, signal);
  const callMs = Math.round(performance.now() - callStarted);
  if (!run.ok) {
    await runFailureHooks(call, run.message, callMs);
    return report.finish({
      stage: 'call',
      input: call.input,
      decision,
      stopRun: pre.stop,
      result: errorResult(block.id, run.message),
    });
  }
  const reported = tool.mapToolResultToToolResultBlockParam(run.data, block.id);
  // A call stopped at the time limit failed, whatever the tool made of being aborted.
  const mapped = run.stoppedNote === undefined ? reported : { ...reported, is_error: true };
  if (mapped.is_error) {
    const error = typeof mapped.content === 'string' ? mapped.content : 'the call failed';
    await runFailureHooks(call, error, callMs);
    return report.finish({
      stage: 'call',
      input: call.input,
      decision,
      structured: run.data,
      stopRun: pre.stop,
      result: appendContext(
        { ...mapped, tool_use_id: block.id },
        pre.additionalContext,
        run.stoppedNote,
      ),
    });
  }
  const post = await runPostToolUseHooks(call, run.data, callMs);
  // 9. the result block
  const result = appendContext(
    { ...mapped, tool_use_id: block.id },
    [...pre.additionalContext, ...post.additionalContext],
    post.block?.reason,
  );
  return report.finish({
    stage: 'completed',
    input: call.input,
    decision,
    structured: run.data,
    stopRun: pre.stop ?? post.stop,
    result,
  });
}

/** PostToolUseFailure hooks, when the runner has them: the call threw, timed out or failed. */
async function runFailureHooks(call: CallState, error: string, durationMs: number): Promise<void> {
  const { deps, block, signal } = call;
  if (!deps.hooks.postToolUseFailure) return;
  const failure = await deps.hooks.postToolUseFailure({
    toolName: call.tool.name,
    toolInput: call.hookInput,
    toolUseId: block.id,
    target: call.target,
    error,
    isInterrupt: signal.aborted,
    durationMs,
    signal,
  });
  for (const hookRun of failure.runs)
    deps.events({ type: 'hook-run', toolUseId: block.id, run: hookRun });
}

/** Step 8: PostToolUse hooks. */
async function runPostToolUseHooks(call: CallState, toolResponse: unknown, durationMs: number) {
  const { deps, block } = call;
  const post = await deps.hooks.postToolUse({
    toolName: call.tool.name,
    toolInput: call.hookInput,
    toolUseId: block.id,
    target: call.target,
    toolResponse,
    durationMs,
    signal: call.signal,
  });
  for (const hookRun of post.runs)
    deps.events({ type: 'hook-run', toolUseId: block.id, run: hookRun });
  const request = call.permission?.request;
  if (post.runs.length > 0 && request?.request.access === 'edit') {
    // A formatter hook may have rewritten the file: take its content as known, so the next
    // edit is not refused as stale (docs/DECISIONS.md #3).
    for (const path of request.request.paths ?? []) await call.context.fileState.refresh(path);
  }
  return post;
}

/**
 * What the policy decides on for this input; computed once per input, the hook added later.
 * `ci-agent audit judge` replays recorded calls through it (src/audit/judge.ts).
 */
export function permissionRequestOf(
  tool: Tool,
  input: unknown,
  context: ToolContext,
): DecisionRequest {
  const request = tool.checkPermissions(input, context);
  return {
    toolName: tool.name,
    aliases: tool.aliases,
    request,
    projectDir: context.projectDir,
    homeDir: homedir(),
    readOnly: tool.isReadOnly(input),
    requiresUserInteraction: tool.requiresUserInteraction(),
  };
}

type CallRun =
  /** `stoppedNote`: the call hit its time limit and reported this result as it stopped. */
  { ok: true; data: unknown; stoppedNote?: string } | { ok: false; message: string };

async function runCall(
  tool: Tool,
  input: unknown,
  context: ToolContext,
  deps: PipelineDeps,
  signal: AbortSignal,
): Promise<CallRun> {
  const timeoutMs = deps.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  // One controller for both the run's abort and the ceiling; cleaned up when the call ends.
  const controller = new AbortController();
  let timedOut = false;
  let wake: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => (wake = () => resolve('aborted')));
  const abort = (reason: unknown) => {
    controller.abort(reason);
    wake?.();
  };
  const onRunAbort = () => abort(signal.reason);
  if (signal.aborted) onRunAbort();
  else signal.addEventListener('abort', onRunAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    abort(new Error(`${tool.name} timed out`));
  }, timeoutMs);
  timer.unref();
  try {
    const generator = tool.call(input, { ...context, signal: controller.signal });
    for (;;) {
      // A tool that ignores its signal still cannot hold the loop past the ceiling.
      const next = generator.next();
      const step = await Promise.race([next, aborted]);
      if (step === 'aborted') {
        // Give a cooperative tool a moment to report its own interrupted result.
        const grace = delay(Math.min(2_000, timeoutMs)).then(() => 'late' as const);
        const late = await Promise.race([next, grace]);
        const timeoutText = `Error: ${tool.name} did not finish within ${Math.round(timeoutMs / 1000)}s and was stopped`;
        if (late !== 'late' && late.done) {
          return timedOut
            ? {
                ok: true,
                data: late.value.data,
                stoppedNote: `${timeoutText} (the time limit for one call).`,
              }
            : { ok: true, data: late.value.data };
        }
        void generator.return(undefined as never).catch(() => undefined);
        return { ok: false, message: timedOut ? timeoutText : cancelledText(signal) };
      }
      if (step.done) return { ok: true, data: step.value.data };
      deps.events({
        type: 'tool-progress',
        toolUseId: context.toolUseId,
        toolName: tool.name,
        message: step.value.message,
      });
    }
  } catch (error) {
    // A tool that throws: the model sees what failed, and the failure hooks fire.
    return { ok: false, message: `Error: ${errorMessage(error)}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onRunAbort);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export function errorResult(toolUseId: string, content: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true };
}

function cancelledText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const why =
    reason instanceof Error
      ? reason.message
      : typeof reason === 'string'
        ? reason
        : 'the run was interrupted';
  return toolUseError(`Cancelled: ${why}. The call did not run to completion.`);
}

export function denialText(toolName: string, decision: PermissionDecision): string {
  return `Permission to use ${toolName} was denied: ${decision.reason}. Do not retry the same call; try another way or explain what you needed.`;
}

function appendContext(
  result: ToolResultBlock,
  context: string[],
  blockReason?: string,
): ToolResultBlock {
  const notes = [...context.map((text) => `<system-reminder>${text}</system-reminder>`)];
  if (blockReason) notes.push(blockReason);
  if (notes.length === 0) return result;
  const extra = notes.join('\n');
  if (typeof result.content === 'string') {
    return { ...result, content: result.content ? `${result.content}\n${extra}` : extra };
  }
  return { ...result, content: [...result.content, { type: 'text', text: extra }] };
}
