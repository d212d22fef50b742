import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from '../../src/execution/concurrency-gate.js';
import {
  concurrencySafetyOf,
  groupByConcurrencySafety,
  runToolUses,
} from '../../src/execution/dispatcher.js';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { controlledTool, makeCallLog, toolUse } from '../helpers/test-tools.js';

const registry = new ToolRegistry(builtinTools);
const isSafe = concurrencySafetyOf(registry);
let counter = 0;
const block = (name: string, input: unknown): ToolUseBlock => ({
  type: 'tool_use',
  id: `toolu_${++counter}`,
  name,
  input,
});

describe('groupByConcurrencySafety', () => {
  it('groups [Read, Grep, Read, Edit, Read, Glob] into three groups', () => {
    const blocks = [
      block('Read', { file_path: '/r/a' }),
      block('Grep', { pattern: 'x' }),
      block('Read', { file_path: '/r/b' }),
      block('Edit', { file_path: '/r/a', old_string: 'a', new_string: 'b' }),
      block('Read', { file_path: '/r/c' }),
      block('Glob', { pattern: '*.ts' }),
    ];
    const groups = groupByConcurrencySafety(blocks, isSafe);
    expect(groups.map((group) => [group.concurrent, group.blocks.map((b) => b.name)])).toEqual([
      [true, ['Read', 'Grep', 'Read']],
      [false, ['Edit']],
      [true, ['Read', 'Glob']],
    ]);
  });

  it('puts every unsafe call in a group of its own', () => {
    const blocks = [
      block('Write', { file_path: '/r/a', content: '' }),
      block('Edit', { file_path: '/r/a', old_string: 'a', new_string: 'b' }),
    ];
    expect(groupByConcurrencySafety(blocks, isSafe).map((group) => group.blocks.length)).toEqual([
      1, 1,
    ]);
  });

  it('treats read-only Bash as safe and other Bash as unsafe', () => {
    expect(isSafe(block('Bash', { command: 'git status' }))).toBe(true);
    expect(isSafe(block('Bash', { command: 'rm -rf build' }))).toBe(false);
  });

  it('treats a call whose input does not parse, or an unknown tool, as unsafe', () => {
    expect(isSafe(block('Read', { file_path: 42 }))).toBe(false);
    expect(isSafe(block('Read', { file_path: '/x', bogus: true }))).toBe(false);
    expect(isSafe(block('constructor', {}))).toBe(false);
  });
});

describe('runToolUses', () => {
  it('runs the groups in order, each safe group in parallel, and returns results in call order', async () => {
    const log = makeCallLog();
    const { deps } = makePipeline([
      controlledTool('Read', true, log),
      controlledTool('Edit', false, log),
    ]);
    const blocks = [
      toolUse('Read', 'r1'),
      toolUse('Read', 'r2'),
      toolUse('Edit', 'e1', { auto: true }),
      toolUse('Read', 'r3', { auto: true }),
    ];
    const both = Promise.all([log.started('r1'), log.started('r2')]).then(() => {
      expect(log.running).toEqual(new Set(['r1', 'r2']));
      log.release('r2');
      log.release('r1');
    });
    const outcomes = await runToolUses(blocks, {
      gate: new ConcurrencyGate(10),
      isConcurrencySafe: concurrencySafetyOf(deps.registry),
      run: (use, signal) => executeSingleToolUse(use, deps, signal),
      signal: new AbortController().signal,
    });
    await both;
    expect(outcomes.map((outcome) => outcome.toolUseId)).toEqual(['r1', 'r2', 'e1', 'r3']);
    const position = (event: string) => log.events.indexOf(event);
    expect(position('start:r2')).toBeLessThan(position('end:r1'));
    expect(position('start:e1')).toBeGreaterThan(Math.max(position('end:r1'), position('end:r2')));
    expect(position('start:r3')).toBeGreaterThan(position('end:e1'));
  });
});
