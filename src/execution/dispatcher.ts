/**
 * Batch dispatch: the tool_use blocks of one finished message. Consecutive concurrency-safe calls
 * form one group that runs in parallel (up to the gate's cap); each unsafe call is a group of its
 * own; groups run in order. The streaming executor applies the same rules through the same gate,
 * so running a batch is adding every block to it at once.
 */
import type { ToolUseBlock } from '../model/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { StreamingExecutorOptions } from './streaming-executor.js';
import { StreamingToolExecutor } from './streaming-executor.js';
import type { ToolCallOutcome } from './pipeline.js';

export interface ToolGroup {
  concurrent: boolean;
  blocks: ToolUseBlock[];
}

export function groupByConcurrencySafety(
  blocks: readonly ToolUseBlock[],
  isConcurrencySafe: (block: ToolUseBlock) => boolean,
): ToolGroup[] {
  const groups: ToolGroup[] = [];
  for (const block of blocks) {
    const safe = isConcurrencySafe(block);
    const last = groups[groups.length - 1];
    if (safe && last?.concurrent) last.blocks.push(block);
    else groups.push({ concurrent: safe, blocks: [block] });
  }
  return groups;
}

/**
 * A block is concurrency-safe when its tool exists, its input parses and the tool says so for
 * that input. Anything else is treated as a call that mutates.
 */
export function concurrencySafetyOf(registry: ToolRegistry) {
  return (block: ToolUseBlock): boolean => {
    const tool = registry.find(block.name);
    if (!tool) return false;
    const parsed = tool.inputSchema.safeParse(block.input);
    if (!parsed.success) return false;
    try {
      return tool.isConcurrencySafe(parsed.data);
    } catch {
      return false;
    }
  };
}

export async function runToolUses(
  blocks: readonly ToolUseBlock[],
  options: StreamingExecutorOptions,
): Promise<ToolCallOutcome[]> {
  const executor = new StreamingToolExecutor(options);
  for (const block of blocks) executor.addTool(block);
  return executor.results();
}
