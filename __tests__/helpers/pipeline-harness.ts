/**
 * A real pipeline around a registry, with a policy the test shapes and events collected.
 */
import type { AgentEvent } from '../../src/agent/events.js';
import type { PipelineDeps } from '../../src/execution/pipeline.js';
import type { PipelineDeps as Deps } from '../../src/execution/pipeline.js';
import { noHooks } from '../../src/hooks/types.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { FileStateCache } from '../../src/tools/file-state.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { Tool, ToolContext } from '../../src/tools/tool.js';

export interface PipelineHarness {
  deps: PipelineDeps;
  events: AgentEvent[];
}

export function makePipeline(
  tools: Tool[],
  options: { root?: string; policy?: Partial<PermissionPolicy>; hooks?: Deps['hooks'] } = {},
): PipelineHarness {
  const root = options.root ?? '/nonexistent-workspace';
  const events: AgentEvent[] = [];
  const shell = { cwd: root };
  const fileState = new FileStateCache();
  const deps: PipelineDeps = {
    registry: new ToolRegistry(tools),
    policy: {
      mode: 'bypassPermissions',
      allow: [],
      deny: [],
      ask: [],
      askDefault: 'deny',
      workspaceRoots: [root],
      ...options.policy,
    },
    hooks: options.hooks ?? noHooks,
    makeContext: (toolUseId: string, signal: AbortSignal): ToolContext => ({
      projectDir: root,
      workspaceRoots: [root],
      shell,
      fileState,
      signal,
      toolUseId,
      env: {},
      ripgrepPath: null,
    }),
    events: (event) => events.push(event),
  };
  return { deps, events };
}
