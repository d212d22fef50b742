/**
 * Dispatch + pipeline overhead per call, with a no-op tool.
 *
 * Baseline: driving the tool's call() generator directly (what any tool system must do).
 * Measured: the same call through the streaming executor, the concurrency gate and every
 * pipeline stage (lookup, schema, validateInput, hooks port, permission decision, result block).
 * Target: median overhead under 0.2 ms per call.
 */
import { z } from 'zod';
import { ConcurrencyGate } from '../src/execution/concurrency-gate.js';
import { concurrencySafetyOf } from '../src/execution/dispatcher.js';
import { executeSingleToolUse } from '../src/execution/pipeline.js';
import type { PipelineDeps } from '../src/execution/pipeline.js';
import { StreamingToolExecutor } from '../src/execution/streaming-executor.js';
import { noHooks } from '../src/hooks/types.js';
import { FileStateCache } from '../src/tools/file-state.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { defineTool } from '../src/tools/tool.js';
import type { ToolContext } from '../src/tools/tool.js';
import { fmt, median, percentile, printTable } from './stats.js';

const noopTool = defineTool({
  name: 'Noop',
  description: 'does nothing',
  internalInputSchema: z.object({ value: z.string().describe('anything') }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  checkPermissions: () => ({ access: 'read' }),
  async *call(input) {
    return { data: input.value };
  },
  mapToolResultToToolResultBlockParam: (output, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: output,
  }),
});

const root = process.cwd();
const context = (toolUseId: string, signal: AbortSignal): ToolContext => ({
  projectDir: root,
  workspaceRoots: [root],
  shell: { cwd: root },
  fileState: new FileStateCache(),
  signal,
  toolUseId,
  env: {},
  ripgrepPath: null,
});
const deps: PipelineDeps = {
  registry: new ToolRegistry([noopTool]),
  policy: {
    mode: 'default',
    allow: [],
    deny: [],
    ask: [],
    askDefault: 'deny',
    workspaceRoots: [root],
  },
  hooks: noHooks,
  makeContext: context,
  events: () => undefined,
};
const gate = new ConcurrencyGate(10);
const isSafe = concurrencySafetyOf(deps.registry);
const signal = new AbortController().signal;

async function direct(index: number): Promise<void> {
  const generator = noopTool.call({ value: `v${index}` }, context(`t${index}`, signal));
  for (;;) if ((await generator.next()).done) return;
}

async function throughPipeline(index: number): Promise<void> {
  const executor = new StreamingToolExecutor({
    gate,
    isConcurrencySafe: isSafe,
    run: (block, callSignal) => executeSingleToolUse(block, deps, callSignal),
    signal,
  });
  executor.addTool({
    type: 'tool_use',
    id: `t${index}`,
    name: 'Noop',
    input: { value: `v${index}` },
  });
  await executor.results();
}

async function measure(fn: (index: number) => Promise<void>, calls: number): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < calls; index++) {
    const start = performance.now();
    await fn(index);
    samples.push(performance.now() - start);
  }
  return samples;
}

export async function runDispatchBench(): Promise<{ medianOverheadMs: number }> {
  const calls = 20_000;
  await measure(direct, 2_000); // warm-up
  await measure(throughPipeline, 2_000);
  const base = await measure(direct, calls);
  const piped = await measure(throughPipeline, calls);
  const medianBase = median(base);
  const medianPiped = median(piped);
  printTable('Dispatch + pipeline overhead, no-op tool (ms per call)', [
    {
      run: 'direct call() (baseline)',
      median: fmt(medianBase, 4),
      p95: fmt(percentile(base, 95), 4),
    },
    {
      run: 'executor + gate + pipeline',
      median: fmt(medianPiped, 4),
      p95: fmt(percentile(piped, 95), 4),
    },
  ]);
  const overhead = medianPiped - medianBase;
  console.log(
    `median overhead: ${fmt(overhead, 4)} ms per call (target < 0.2 ms); ratio to baseline ${fmt(medianPiped / medianBase, 1)}×`,
  );
  return { medianOverheadMs: overhead };
}

if (import.meta.url === `file://${process.argv[1]}`) await runDispatchBench();
