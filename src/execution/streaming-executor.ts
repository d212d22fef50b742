/**
 * Runs tool calls as the model streams them.
 *
 * A tool_use is added the moment its block is complete and starts at once when the gate allows
 * (nothing running → start; only safe calls running and this one safe → start; otherwise wait;
 * a waiting unsafe call holds back everything queued behind it). Results come back in call
 * order. When an unsafe call fails while running, the calls still waiting behind it are not run
 * and get a result saying so. When the stream is abandoned, running calls are aborted and every
 * call still gets a result.
 */
import type { ToolUseBlock } from '../model/types.js';
import { toolUseError } from '../tools/tool.js';
import type { ConcurrencyGate } from './concurrency-gate.js';
import type { ToolCallOutcome } from './pipeline.js';
import { errorResult } from './pipeline.js';

export interface StreamingExecutorOptions {
  gate: ConcurrencyGate;
  isConcurrencySafe(block: ToolUseBlock): boolean;
  run(block: ToolUseBlock, signal: AbortSignal): Promise<ToolCallOutcome>;
  /** The run's signal: aborting it aborts every call. */
  signal: AbortSignal;
  /** Called when a call finishes, in completion order. */
  onOutcome?(outcome: ToolCallOutcome): void;
}

interface TrackedCall {
  block: ToolUseBlock;
  safe: boolean;
  state: 'queued' | 'running' | 'done';
  outcome: Promise<ToolCallOutcome>;
}

export class StreamingToolExecutor {
  private readonly calls: TrackedCall[] = [];
  private readonly controller = new AbortController();
  private failedSibling: ToolUseBlock | undefined;
  private abandonReason: string | undefined;
  private readonly onRunAbort = () => this.controller.abort(this.options.signal.reason);

  constructor(private readonly options: StreamingExecutorOptions) {
    if (options.signal.aborted) this.onRunAbort();
    else options.signal.addEventListener('abort', this.onRunAbort, { once: true });
  }

  get size(): number {
    return this.calls.length;
  }

  /** Queues a complete tool_use block; it starts as soon as the gate lets it. */
  addTool(block: ToolUseBlock): void {
    const safe = this.safeFor(block);
    const tracked: TrackedCall = {
      block,
      safe,
      state: 'queued',
      outcome: Promise.resolve(undefined as never),
    };
    tracked.outcome = this.schedule(tracked);
    this.calls.push(tracked);
  }

  /** Every outcome, in the order the calls were added. */
  async results(): Promise<ToolCallOutcome[]> {
    const outcomes = await Promise.all(this.calls.map((call) => call.outcome));
    // The run signal outlives this message; do not leave a listener per message on it.
    this.options.signal.removeEventListener('abort', this.onRunAbort);
    return outcomes;
  }

  /**
   * The stream broke or the run is stopping: abort running calls, skip queued ones. Every call
   * added so far still gets a result.
   */
  abandon(reason: string): void {
    this.abandonReason ??= reason;
    this.controller.abort(new Error(reason));
  }

  private safeFor(block: ToolUseBlock): boolean {
    try {
      return this.options.isConcurrencySafe(block);
    } catch {
      return false; // if in doubt, the call mutates
    }
  }

  private async schedule(call: TrackedCall): Promise<ToolCallOutcome> {
    const signal = this.controller.signal;
    let release: (() => void) | undefined;
    try {
      release = await this.options.gate.acquire(!call.safe, signal);
    } catch {
      return this.settle(call, this.skipped(call.block));
    }
    try {
      if (this.failedSibling) return this.settle(call, this.siblingFailed(call.block));
      if (signal.aborted) return this.settle(call, this.skipped(call.block));
      call.state = 'running';
      const outcome = await this.options.run(call.block, signal);
      if (!call.safe && outcome.stage === 'call' && outcome.result.is_error) {
        this.failedSibling ??= call.block;
      }
      return this.settle(call, outcome);
    } finally {
      release();
    }
  }

  private settle(call: TrackedCall, outcome: ToolCallOutcome): ToolCallOutcome {
    call.state = 'done';
    this.options.onOutcome?.(outcome);
    return outcome;
  }

  private skipped(block: ToolUseBlock): ToolCallOutcome {
    const why = this.abandonReason ?? 'the run was interrupted';
    return syntheticOutcome(block, toolUseError(`Not run: ${why} before this call could start.`));
  }

  private siblingFailed(block: ToolUseBlock): ToolCallOutcome {
    const failed = this.failedSibling as ToolUseBlock;
    return syntheticOutcome(
      block,
      toolUseError(
        `Not run: the earlier ${failed.name} call (${failed.id}) in the same message failed, so the calls after it were skipped. Check that failure, then issue this call again if it is still needed.`,
      ),
    );
  }
}

function syntheticOutcome(block: ToolUseBlock, content: string): ToolCallOutcome {
  return {
    toolUseId: block.id,
    toolName: block.name,
    input: block.input,
    result: errorResult(block.id, content),
    stage: 'aborted',
    durationMs: 0,
  };
}
