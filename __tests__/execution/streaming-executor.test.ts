import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from '../../src/execution/concurrency-gate.js';
import { concurrencySafetyOf } from '../../src/execution/dispatcher.js';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { StreamingToolExecutor } from '../../src/execution/streaming-executor.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { controlledTool, makeCallLog, toolUse } from '../helpers/test-tools.js';

function setup(maxShared = 10) {
  const log = makeCallLog();
  const { deps } = makePipeline([
    controlledTool('Read', true, log),
    controlledTool('Edit', false, log),
  ]);
  const controller = new AbortController();
  const executor = new StreamingToolExecutor({
    gate: new ConcurrencyGate(maxShared),
    isConcurrencySafe: concurrencySafetyOf(deps.registry),
    run: (block, signal) => executeSingleToolUse(block, deps, signal),
    signal: controller.signal,
  });
  return { log, executor, controller };
}

describe('StreamingToolExecutor', () => {
  it('starts a safe call as soon as it is added, before any later block arrives', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    await log.started('r1');
    expect(log.events).toEqual(['start:r1']);
    log.release('r1');
    const [outcome] = await executor.results();
    expect(outcome?.result.content).toBe('done r1');
  });

  it('runs consecutive safe calls in parallel', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    executor.addTool(toolUse('Read', 'r2'));
    await Promise.all([log.started('r1'), log.started('r2')]);
    expect(log.running.size).toBe(2);
    log.release('r2');
    log.release('r1');
    await executor.results();
  });

  it('makes an unsafe call wait until the running safe calls finish', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    executor.addTool(toolUse('Edit', 'e1', { auto: true }));
    await log.started('r1');
    await Promise.resolve();
    expect(log.events).toEqual(['start:r1']);
    log.release('r1');
    await executor.results();
    expect(log.events).toEqual(['start:r1', 'end:r1', 'start:e1', 'end:e1']);
  });

  it('holds back safe calls queued behind a waiting unsafe call', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    executor.addTool(toolUse('Edit', 'e1'));
    executor.addTool(toolUse('Read', 'r2', { auto: true }));
    await log.started('r1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.events).toEqual(['start:r1']);
    log.release('r1');
    await log.started('e1');
    expect(log.events).not.toContain('start:r2');
    log.release('e1');
    await executor.results();
    expect(log.events).toEqual(['start:r1', 'end:r1', 'start:e1', 'end:e1', 'start:r2', 'end:r2']);
  });

  it('returns results in call order, whatever order the calls finish in', async () => {
    const { log, executor } = setup();
    for (const id of ['r1', 'r2', 'r3']) executor.addTool(toolUse('Read', id));
    await log.started('r3');
    log.release('r3');
    log.release('r2');
    log.release('r1');
    const outcomes = await executor.results();
    expect(outcomes.map((outcome) => outcome.toolUseId)).toEqual(['r1', 'r2', 'r3']);
  });

  it('never runs more safe calls at once than the cap', async () => {
    const { log, executor } = setup(2);
    for (const id of ['r1', 'r2', 'r3', 'r4'])
      executor.addTool(toolUse('Read', id, { auto: true }));
    await executor.results();
    expect(log.maxRunning).toBeLessThanOrEqual(2);
    expect(log.events.filter((event) => event.startsWith('end:'))).toHaveLength(4);
  });

  it('skips the calls queued behind an unsafe call that failed, with a result saying why', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Edit', 'e1', { fail: true, auto: true }));
    executor.addTool(toolUse('Read', 'r1', { auto: true }));
    executor.addTool(toolUse('Edit', 'e2', { auto: true }));
    const outcomes = await executor.results();
    expect(log.events).toEqual(['start:e1', 'end:e1']);
    expect(outcomes.map((outcome) => outcome.result.is_error)).toEqual([true, true, true]);
    expect(outcomes[1]?.result.content).toContain('earlier Edit call (e1)');
  });

  it('gives every call a result when the stream is abandoned', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    executor.addTool(toolUse('Edit', 'e1'));
    await log.started('r1');
    executor.abandon('the model stream broke');
    const outcomes = await executor.results();
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]?.result).toMatchObject({ is_error: true, content: 'aborted r1' });
    expect(outcomes[1]?.result.content).toContain('Not run: the model stream broke');
    expect(log.events).not.toContain('start:e1');
  });

  it('aborts running calls when the run signal aborts', async () => {
    const { log, executor, controller } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    await log.started('r1');
    controller.abort(new Error('SIGTERM'));
    const [outcome] = await executor.results();
    expect(outcome?.result.is_error).toBe(true);
    expect(log.events).toEqual(['start:r1', 'abort:r1']);
  });

  it('treats a block whose input does not parse as unsafe, and still answers it', async () => {
    const { log, executor } = setup();
    executor.addTool(toolUse('Read', 'r1'));
    executor.addTool({ type: 'tool_use', id: 'bad', name: 'Read', input: { id: 42 } });
    executor.addTool(toolUse('Read', 'r2', { auto: true }));
    await log.started('r1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.events).toEqual(['start:r1']);
    log.release('r1');
    const outcomes = await executor.results();
    expect(outcomes[1]?.stage).toBe('schema');
    expect(outcomes[2]?.result.content).toBe('done r2');
  });
});
