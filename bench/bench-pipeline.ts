/** The pipeline the benchmarks drive: the given tools in `root`, every call allowed, no hooks. */
import type { PipelineDeps } from '../src/execution/pipeline.js';
import { noHooks } from '../src/hooks/types.js';
import { FileStateCache } from '../src/tools/file-state.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { Tool } from '../src/tools/tool.js';

export function benchPipeline(
  tools: readonly Tool[],
  root: string,
  options: { env?: Record<string, string>; fileState?: FileStateCache } = {},
): PipelineDeps {
  const fileState = options.fileState;
  return {
    registry: new ToolRegistry([...tools]),
    policy: {
      mode: 'bypassPermissions',
      allow: [],
      deny: [],
      ask: [],
      askDefault: 'deny',
      workspaceRoots: [root],
    },
    hooks: noHooks,
    makeContext: (toolUseId, signal) => ({
      projectDir: root,
      workspaceRoots: [root],
      shell: { cwd: root },
      // Shared when given (a session reads then edits); otherwise one per call, as in isolation.
      fileState: fileState ?? new FileStateCache(),
      signal,
      toolUseId,
      env: options.env ?? {},
      ripgrepPath: null,
    }),
    events: () => undefined,
  };
}
