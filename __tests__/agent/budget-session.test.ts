/**
 * The run's budget through whole sessions: the real SDK client against the replay server, the
 * real tools in a temp workspace. Every spend is checked against the server's own record of the
 * usage it sent (RecordedRequest.usage), not the meter's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import type { SessionOptions } from '../../src/agent/session.js';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/agent/context/compaction.js';
import { ReportCollector } from '../../src/github/report.js';
import { StreamJsonMapper } from '../../src/log/stream-json.js';
import { renderReport } from '../../src/github/report-markdown.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { costUSD } from '../../src/model/pricing.js';
import { SpendMeter } from '../../src/model/spend-meter.js';
import type {
  RecordedRequest,
  ReplayScriptEntry,
  ReplayServer,
  ReplayTurnInput,
} from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import {
  SESSION_MODEL,
  runTestSession,
  startSessionServer,
  usage,
} from '../helpers/session-harness.js';
import type { SessionRun } from '../helpers/session-harness.js';
import { controlledTool, makeCallLog } from '../helpers/test-tools.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

const MODEL = SESSION_MODEL;

/** What the server says it reported for every request, priced. */
function serverSpend(requests: readonly RecordedRequest[]): number {
  return requests.reduce(
    (total, recorded) => total + (recorded.usage ? costUSD(MODEL, recorded.usage) : 0),
    0,
  );
}

interface Body {
  system?: Array<{ text: string }> | string;
  tools?: Array<{ name: string }>;
  max_tokens: number;
  messages: unknown[];
}
const bodyOf = (request: RecordedRequest) => request.body as Body;
const systemOf = (request: RecordedRequest): string => {
  const system = bodyOf(request).system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
};
const isSummary = (request: RecordedRequest) => systemOf(request).includes(SUMMARY_SYSTEM_PROMPT);
const isMain = (request: RecordedRequest) =>
  (bodyOf(request).tools ?? []).some((tool) => tool.name === 'Agent');

async function session(
  turns: ReplayScriptEntry[],
  options: Partial<SessionOptions>,
): Promise<SessionRun & { collector: ReportCollector }> {
  workspace ??= makeWorkspace('ci-agent-budget-');
  server = await startSessionServer(turns);
  const collector = new ReportCollector();
  const run = await runTestSession(server, workspace, options, (event) => collector.handle(event));
  return { ...run, collector };
}

const agentCall = (id: string, subagentType = 'general-purpose', prompt = 'Find the config.') => ({
  type: 'tool_use' as const,
  id,
  name: 'Agent',
  input: { description: 'Look around', prompt, subagent_type: subagentType },
});

describe('a session with a budget', () => {
  it('does not send a subagent request that could spend past it; the run ends on the budget', async () => {
    const { result, events } = await session(
      [
        // $0.29 of a $0.30 budget: what is left cannot cover any request with 1,024 tokens of answer.
        { content: [agentCall('toolu_agent')], usage: usage(145_000, 10) },
        [{ type: 'text', text: 'never asked' }],
      ],
      { maxBudgetUsd: 0.3 },
    );
    expect(server?.requests).toHaveLength(1);
    const subagentEnd = events.find(
      (event) => event.type === 'subagent-event' && event.event.type === 'result',
    );
    expect(subagentEnd?.type === 'subagent-event' && subagentEnd.event).toMatchObject({
      type: 'result',
      result: { subtype: 'error_max_budget_usd', numTurns: 1 },
    });
    const subagentResult =
      subagentEnd?.type === 'subagent-event' && subagentEnd.event.type === 'result'
        ? subagentEnd.event.result
        : undefined;
    expect(subagentResult?.errors[0]).toMatch(
      /the next request \(subagent general-purpose a[0-9a-f]{16}\) was not sent/,
    );
    expect(result.subtype).toBe('error_max_budget_usd');
    expect(serverSpend(server?.requests ?? [])).toBeLessThanOrEqual(0.3);
    expect(result.totalCostUsd).toBeCloseTo(serverSpend(server?.requests ?? []), 10);
  });

  it("counts its subagents' and side parts in the result and shows each part in the report", async () => {
    const { result, events, collector } = await session(
      [
        { content: [agentCall('toolu_agent', 'Explore')], usage: usage(10_000, 100) },
        { content: [{ type: 'text', text: 'config.yml' }], usage: usage(3_000, 20) },
        { content: [{ type: 'text', text: 'Done: config.yml.' }], usage: usage(11_000, 30) },
      ],
      { maxBudgetUsd: 5 },
    );
    expect(result.subtype).toBe('success');
    const parts = result.costParts ?? [];
    expect(parts.map((part) => [part.kind, part.agentType, part.requests])).toEqual([
      ['main', undefined, 2],
      ['subagent', 'Explore', 1],
    ]);
    expect(parts[1]?.usage).toEqual(usage(3_000, 20));
    const sum = parts.reduce((total, part) => total + part.costUsd, 0);
    expect(result.totalCostUsd).toBeCloseTo(sum, 12);
    expect(result.totalCostUsd).toBeCloseTo(serverSpend(server?.requests ?? []), 12);
    expect(result.modelUsage[MODEL]?.inputTokens).toBe(24_000);
    // The result line (Claude Code's shape) carries the whole run's total and modelUsage.
    const mapper = new StreamJsonMapper({ version: 'test' });
    const line = events.flatMap((event) => mapper.map(event)).find((l) => l.type === 'result');
    expect(line?.['total_cost_usd']).toBeCloseTo(serverSpend(server?.requests ?? []), 12);
    expect(line?.['modelUsage']).toEqual(result.modelUsage);

    const markdown = await renderReport(collector.report, {
      conclusion: 'success',
      headline: 'the agent answered',
      files: [],
      diff: '',
    });
    const agentId = parts[1]?.agentId ?? '';
    expect(markdown).toContain(`**Cost by part ($${result.totalCostUsd.toFixed(4)})**`);
    expect(markdown).toContain('| part | requests | tokens | cost |');
    expect(markdown).toContain(`| main agent | 2 | 21,130 | $${parts[0]?.costUsd.toFixed(4)} |`);
    expect(markdown).toContain(
      `| subagent \`Explore\` \`${agentId}\` | 1 | 3,020 | $${parts[1]?.costUsd.toFixed(4)} |`,
    );
  });
});

describe('an answer cut short by the max_tokens the budget left', () => {
  async function answer(stopReason: string) {
    server = await startReplayServer({
      turns: [{ content: [{ type: 'text', text: 'The fix is to' }], stopReason }],
    });
    const { deps } = makePipeline([]);
    return runAgent({
      prompt: 'fix it',
      model: MODEL,
      systemPrompt: 's',
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      pipeline: deps,
      permissionMode: 'default',
      cwd: '/repo',
      retry: false,
      events: () => undefined,
      maxBudgetUsd: 0.05,
    });
  }

  it('ends the run on the budget, not as a success', async () => {
    const result = await answer('max_tokens');
    expect((server?.requests[0]?.body as Body).max_tokens).toBeLessThan(32_000);
    expect(result.subtype).toBe('error_max_budget_usd');
    expect(result.errors[0]).toMatch(
      /^Reached the budget: \$0\.\d{4} spent, the limit is \$0\.05; the last answer was cut short to stay within it$/,
    );
  });

  it('is a success when the model ended its turn within it', async () => {
    expect((await answer('end_turn')).subtype).toBe('success');
  });
});

describe('compaction under the meter', () => {
  it('counts the summary request as compaction, at the usage the server sent', async () => {
    let turn = 0;
    const respond = (request: RecordedRequest): ReplayTurnInput => {
      if (isSummary(request))
        return { content: [{ type: 'text', text: 'Summary.' }], usage: usage(700, 90) };
      turn++;
      if (turn > 6) return [{ type: 'text', text: 'Done.' }];
      return [
        {
          type: 'text',
          text: `Step ${turn}: ${'checking the build output carefully. '.repeat(4)}`,
        },
        {
          type: 'tool_use',
          id: `toolu_${turn}`,
          name: 'Check',
          input: { id: `c${turn}`, auto: true },
        },
      ];
    };
    server = await startReplayServer({ turns: Array.from({ length: 20 }, () => respond) });
    const { deps } = makePipeline([controlledTool('Check', true, makeCallLog())]);
    const meter = new SpendMeter({ limitUsd: 5 });
    const result = await runAgent({
      prompt: 'make the build pass',
      model: MODEL,
      systemPrompt: 'you are a test',
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      pipeline: deps,
      permissionMode: 'default',
      cwd: '/repo',
      retry: false,
      events: () => undefined,
      contextManagement: { contextWindow: 600, keepRecentTurns: 1 },
      meter,
    });
    expect(result.subtype).toBe('success');
    const summaries = server.requests.filter(isSummary);
    expect(summaries.length).toBeGreaterThan(0);
    const compaction = result.costParts?.find((part) => part.kind === 'compaction');
    expect(compaction?.requests).toBe(summaries.length);
    expect(compaction?.usage).toEqual(usage(700 * summaries.length, 90 * summaries.length));
    expect(result.totalCostUsd).toBeCloseTo(serverSpend(server.requests), 12);
  });
});

describe('a model that tries to spend past the budget', () => {
  it('cannot, forcing a compaction and then starting ten subagents at once, every answer billing its max_tokens', async () => {
    workspace = makeWorkspace('ci-agent-budget-attack-');
    await workspace.write('big.txt', 'the quick brown fox jumps over the lazy dog.\n'.repeat(400));
    const big = workspace.path('big.txt');
    let calls = 0;
    let mainTurns = 0;
    // Every answer reports the most the API could bill for it: all of max_tokens (32,000:
    // $0.32 at $10 per MTok), and the prompt as cache writes (the dearest input) at 2.5
    // characters a token.
    const billed = (request: RecordedRequest, content: ReplayTurnInput): ReplayTurnInput => ({
      content: Array.isArray(content) ? content : content.content,
      usage: {
        input_tokens: 0,
        cache_creation_input_tokens: Math.ceil(JSON.stringify(request.body).length / 2.5),
        output_tokens: bodyOf(request).max_tokens,
      },
    });
    // 1. The main agent starts one subagent, which reads the big file until its context
    //    compacts (about $2 in all). 2. Then it starts ten read-only subagents at once: a
    //    fresh subagent has no answer of its own to estimate its next turn from, so a check
    //    between turns would let all ten go ($3.30) with about $1 left.
    const reads = new Map<string, number>();
    const attacker = (request: RecordedRequest): ReplayTurnInput => {
      calls++;
      if (isSummary(request)) return billed(request, [{ type: 'text', text: 'Summary.' }]);
      if (isMain(request)) {
        mainTurns++;
        if (mainTurns === 1) {
          return billed(request, [agentCall('toolu_reader', 'general-purpose', 'Read. [job A]')]);
        }
        return billed(
          request,
          Array.from({ length: 10 }, (_, index) =>
            agentCall(`toolu_agent_${calls}_${index}`, 'Explore', `Look. [job ${calls}.${index}]`),
          ),
        );
      }
      const job = /\[job ([^\]]+)\]/.exec(JSON.stringify(bodyOf(request).messages))?.[1] ?? '?';
      const done = reads.get(job) ?? 0;
      reads.set(job, done + 1);
      if (job !== 'A' || done >= 4) return billed(request, [{ type: 'text', text: 'Nothing.' }]);
      return billed(request, [
        { type: 'tool_use', id: `toolu_read_${calls}`, name: 'Read', input: { file_path: big } },
      ]);
    };
    const budget = 3.4;
    const { result, events } = await session(
      Array.from({ length: 100 }, () => attacker),
      {
        maxBudgetUsd: budget,
        contextManagement: { contextWindow: 8_000, keepRecentTurns: 1 },
      },
    );
    const requests = server?.requests ?? [];
    // What the server itself says it billed stays within the budget; the meter counted all of it.
    const spent = serverSpend(requests);
    expect(spent).toBeLessThanOrEqual(budget);
    expect(result.totalCostUsd).toBeLessThanOrEqual(budget);
    expect(result.totalCostUsd).toBeGreaterThanOrEqual(spent - 1e-9);
    expect(result.subtype).toBe('error_max_budget_usd');
    // The attack got where it meant to: a subagent compacted, and the ten were started.
    expect(requests.filter(isSummary).length).toBeGreaterThan(0);
    expect(
      events.some(
        (event) => event.type === 'subagent-event' && event.event.type === 'compact-boundary',
      ),
    ).toBe(true);
    expect(mainTurns).toBe(2);
    const refused = events.filter(
      (event) =>
        event.type === 'subagent-event' &&
        event.event.type === 'result' &&
        event.event.result.subtype === 'error_max_budget_usd',
    );
    expect(refused.length).toBeGreaterThan(0);
    const parts = result.costParts ?? [];
    expect(parts.some((part) => part.kind === 'compaction')).toBe(true);
    expect(parts.filter((part) => part.kind === 'subagent').length).toBeGreaterThan(1);
    expect(parts.reduce((total, part) => total + part.costUsd, 0)).toBeCloseTo(
      result.totalCostUsd,
      10,
    );
  }, 60_000);
});
