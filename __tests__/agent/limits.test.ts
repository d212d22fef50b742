import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetGuard, TimeLimitError, startTimeLimit } from '../../src/agent/limits.js';
import type { AgentOptions } from '../../src/agent/loop.js';
import { runAgent } from '../../src/agent/loop.js';
import { runSession } from '../../src/agent/session.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { costUSD } from '../../src/model/pricing.js';
import type {
  ReplayScriptEntry,
  ReplayServer,
  ReplayServerOptions,
} from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { controlledTool, makeCallLog } from '../helpers/test-tools.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { killAllWith, survivorsWith, uniqueSleep } from '../helpers/processes.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

const MODEL = 'claude-sonnet-5-5'; // $2 in, $10 out, $2.50 cache write, $0.10 cache read per MTok
const usage = (input: number, output: number, cacheWrite = 0, cacheRead = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: cacheWrite,
  cache_read_input_tokens: cacheRead,
});

async function runLoop(
  turns: ReplayScriptEntry[],
  extra: Partial<AgentOptions> = {},
  serverOptions: Partial<ReplayServerOptions> = {},
) {
  server = await startReplayServer({ turns, ...serverOptions });
  const calls = makeCallLog();
  const { deps } = makePipeline([
    controlledTool('Read', true, calls),
    controlledTool('Edit', false, calls),
  ]);
  const result = await runAgent({
    prompt: 'fix it',
    model: MODEL,
    systemPrompt: 's',
    modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
    pipeline: deps,
    permissionMode: 'default',
    cwd: '/repo',
    events: () => undefined,
    retry: { clock: new ManualClock() },
    ...extra,
  });
  return { result, calls, requests: server.requests };
}

const readTurn = (id: string, turnUsage: ReturnType<typeof usage>): ReplayScriptEntry => ({
  content: [{ type: 'tool_use', id, name: 'Read', input: { id, auto: true } }],
  usage: turnUsage,
});

describe('BudgetGuard', () => {
  it('lets the first turn start: nothing is known yet', () => {
    expect(new BudgetGuard(0.01).refusal(0)).toBeUndefined();
  });

  it('estimates the next turn as the last prompt again, the last answer as input, and the longest answer', () => {
    const guard = new BudgetGuard(10);
    guard.record(MODEL, usage(10, 3_000));
    guard.record(MODEL, usage(100_000, 1_000, 20_000, 50_000));
    expect(guard.nextTurnEstimate()).toBeCloseTo(
      costUSD(MODEL, usage(101_000, 3_000, 20_000, 50_000)),
      10,
    );
    expect(guard.nextTurnEstimate()).toBeCloseTo(0.202 + 0.03 + 0.05 + 0.005, 10);
  });

  it('refuses once the spend reaches the limit', () => {
    expect(new BudgetGuard(1).refusal(1)).toBe(
      'Reached the budget: $1.0000 spent, the limit is $1',
    );
  });

  it('refuses a turn whose estimate would pass the limit, and says so', () => {
    const guard = new BudgetGuard(0.4);
    guard.record(MODEL, usage(100_000, 1_000));
    expect(guard.refusal(0.21)).toBe(
      'Reached the budget: $0.2100 spent, the limit is $0.4, and the next turn would cost about $0.2120',
    );
    expect(guard.refusal(0.18)).toBeUndefined();
  });

  it('never refuses without a limit', () => {
    const guard = new BudgetGuard(undefined);
    guard.record(MODEL, usage(1_000_000, 1_000_000));
    expect(guard.refusal(1_000)).toBeUndefined();
  });
});

describe('startTimeLimit', () => {
  it('aborts with a TimeLimitError naming the limit', async () => {
    const limit = startTimeLimit(20);
    await new Promise((resolve) => limit.signal.addEventListener('abort', resolve));
    expect(limit.signal.reason).toBeInstanceOf(TimeLimitError);
    expect((limit.signal.reason as Error).message).toBe('Reached the time limit of 0.02 s');
    expect(new TimeLimitError(30 * 60_000).message).toBe('Reached the time limit of 30 minutes');
  });

  it('never aborts once cleared, nor without a limit', async () => {
    const limit = startTimeLimit(5);
    limit.clear();
    const none = startTimeLimit(undefined);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(limit.signal.aborted).toBe(false);
    expect(none.signal.aborted).toBe(false);
  });
});

describe('runAgent limits', () => {
  describe('when a session is priced over its budget', () => {
    const turnUsage = usage(100_000, 1_000); // $0.21 a turn
    const turns = [readTurn('t1', turnUsage), readTurn('t2', turnUsage), readTurn('t3', turnUsage)];

    it('stops before the turn that would cross the budget', async () => {
      const { result, requests, calls } = await runLoop(turns, { maxBudgetUsd: 0.4 });
      expect(result.subtype).toBe('error_max_budget_usd');
      expect(result.errors[0]).toMatch(
        /^Reached the budget: \$0\.21\d\d spent, the limit is \$0\.4, and the next turn would cost about \$0\.21\d\d$/,
      );
      expect(requests).toHaveLength(1);
      expect(result.totalCostUsd).toBeLessThanOrEqual(0.4);
      expect(calls.events).toEqual(['start:t1', 'end:t1']);
    });

    it('starts the turns the estimate still fits', async () => {
      const { result, requests } = await runLoop(turns, { maxBudgetUsd: 0.45 });
      expect(result.subtype).toBe('error_max_budget_usd');
      expect(requests).toHaveLength(2);
      expect(result.totalCostUsd).toBeLessThanOrEqual(0.45);
    });

    it('counts cache reads and writes in the spend and in the estimate', async () => {
      const cached = usage(10, 1_000, 100_000, 1_000_000); // $0.25 writes + $0.10 reads
      const { result, requests } = await runLoop([readTurn('t1', cached), readTurn('t2', cached)], {
        maxBudgetUsd: 0.5,
      });
      expect(result.totalCostUsd).toBeCloseTo(0.25 + 0.1 + 0.01 + 0.00002, 8);
      expect(result.modelUsage[MODEL]).toMatchObject({
        cacheReadInputTokens: 1_000_000,
        cacheCreationInputTokens: 100_000,
      });
      expect(result.subtype).toBe('error_max_budget_usd');
      expect(requests).toHaveLength(1);
    });
  });

  describe('when the time limit passes', () => {
    it('aborts the running tool and ends as error_max_duration', async () => {
      const { result, calls } = await runLoop(
        [[{ type: 'tool_use', id: 'toolu_e', name: 'Edit', input: { id: 'e' } }]],
        // Long enough for the call to start even on a busy machine.
        { timeoutMs: 1_000 },
      );
      expect(result).toMatchObject({
        subtype: 'error_max_duration',
        isError: true,
        errors: ['Reached the time limit of 1 s'],
      });
      expect(calls.events).toEqual(['start:e', 'abort:e']);
    });

    it('also ends a run that is waiting to retry the model', async () => {
      const clock = new ManualClock();
      clock.holdSleeps = true;
      const { result, requests } = await runLoop(
        [[{ type: 'text', text: 'never' }]],
        { timeoutMs: 200, retry: { clock } },
        { faults: { 0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' } } },
      );
      expect(result.subtype).toBe('error_max_duration');
      expect(clock.sleeps).toHaveLength(1);
      expect(requests).toHaveLength(1);
    });
  });
});

describe('runSession with a per-tool timeout', () => {
  it('stops a Bash call that outlives it, kills its processes, and lets the model go on', async () => {
    workspace = makeWorkspace('ci-agent-limits-');
    const pidFile = workspace.path('sleep.pid');
    const sleep = uniqueSleep(30);
    server = await startReplayServer({
      turns: [
        [
          {
            type: 'tool_use',
            id: 'toolu_sleep',
            name: 'Bash',
            input: { command: `sleep ${sleep} & echo $! > ${pidFile}; wait` },
          },
        ],
        [{ type: 'text', text: 'It timed out.' }],
      ],
    });
    const started = performance.now();
    const result = await runSession({
      prompt: 'wait',
      cwd: workspace.root,
      model: MODEL,
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      permissionMode: 'bypassPermissions',
      rules: { allow: [], deny: [] },
      env: process.env,
      events: () => undefined,
      toolTimeoutMs: 1_000,
    });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ subtype: 'success', result: 'It timed out.' });
    const messages = (server.requests[1]?.body as { messages: Message[] }).messages;
    const last = messages[messages.length - 1]?.content as ToolResultBlock[];
    expect(last[0]).toMatchObject({ tool_use_id: 'toolu_sleep', is_error: true });
    expect(last[0]?.content).toMatch(
      /Bash did not finish within 1s and was stopped \(the time limit for one call\)\.$/,
    );
    expect(existsSync(pidFile)).toBe(true);
    const survivors = await survivorsWith(sleep);
    killAllWith(sleep);
    expect(survivors).toEqual([]);
  }, 20_000);
});
