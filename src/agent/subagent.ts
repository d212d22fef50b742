/**
 * Subagents: the nested loop behind the Agent tool (ToolContext.runSubagent). The session makes
 * one runner; each Agent call starts one subagent run:
 *
 *   1. its tools: the session's (MCP tools included, bare-denied ones already gone) without
 *      Agent, ExitPlanMode and TodoWrite — no agent starts another, leaves the parent's plan mode
 *      or rewrites the parent's task list. A read-only type (Explore) also goes without the
 *      tools that are never read-only, and any other call that is not is refused before it runs;
 *   2. a fresh conversation: a subagent system prompt and the task, nothing of the parent's;
 *   3. the session's model client, permission policy (deny wins, an ask resolves as for the
 *      parent) and hook commands, with `agent_id` / `agent_type` in every hook payload; its own
 *      Bash cwd (starting where the parent's is) and its own record of what it has read, so the
 *      parent's read-before-write and staleness guards still speak for the parent alone;
 *   4. runAgent under the Agent call's signal (the run's abort, the time limit and the call's
 *      ceiling all reach it) and a turn cap. Of the session hooks only SubagentStop fires for
 *      it, when it would end (a block sends it back to work, as Stop does for the session);
 *   5. its events go to the session's sink as `subagent-event`s under the Agent call's id; its
 *      requests go through the session's spend meter as its own part (the run's cost and budget
 *      include them, and no request of it is sent that could pass the run's budget), and its
 *      permission denials join the session's when it ends.
 */
import { randomBytes } from 'node:crypto';
import type { PipelineDeps } from '../execution/pipeline.js';
import { noHooks } from '../hooks/types.js';
import type { SessionHookRunner } from '../hooks/types.js';
import type { ModelClient } from '../model/model-client.js';
import type { SpendMeter } from '../model/spend-meter.js';
import { emptyUsage } from '../model/types.js';
import type { ServerToolSpec } from '../model/types.js';
import type { PermissionPolicy } from '../permissions/types.js';
import { findSubagentType } from '../tools/builtin/agent.js';
import type { SubagentType } from '../tools/builtin/agent.js';
import { FileStateCache } from '../tools/file-state.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ShellState, SubagentRequest, SubagentRun, Tool, ToolContext } from '../tools/tool.js';
import type { EventSink, PermissionDenial } from './events.js';
import { runAgent } from './loop.js';
import type { AgentOptions } from './loop.js';

/** Turns one subagent may take unless the session says otherwise. */
export const SUBAGENT_MAX_TURNS = 50;

/** Tools no subagent is given, whatever its type. */
export const NEVER_IN_SUBAGENTS: readonly string[] = ['Agent', 'ExitPlanMode', 'TodoWrite'];
/**
 * Tools none of whose calls is read-only (they edit files, or send a URL out): a read-only type
 * is not offered them at all.
 */
export const NEVER_READ_ONLY: readonly string[] = ['Edit', 'Write', 'NotebookEdit', 'WebFetch'];

/** The state a subagent's calls share among themselves, apart from the parent's. */
export interface SubagentWorkspace {
  shell: ShellState;
  fileState: FileStateCache;
}

export interface SubagentRunnerOptions {
  model: string;
  modelClient: ModelClient;
  retry?: AgentOptions['retry'];
  /** The session's context management, for the subagent's conversation too. */
  contextManagement?: AgentOptions['contextManagement'];
  policy: PermissionPolicy;
  /** The session's tools; read when each subagent starts (MCP tools register late). */
  registry: ToolRegistry;
  /** The session's hooks for one subagent: its agent fields in every payload, run in its cwd. */
  hooksFor(agent: { id: string; type: string }, cwd: () => string): SessionHookRunner;
  /** The context of one of the subagent's calls; whatever port it carries, runSubagent is dropped. */
  makeContext(toolUseId: string, signal: AbortSignal, workspace: SubagentWorkspace): ToolContext;
  /** The subagent's system prompt, from its tool names and its type's instructions. */
  systemPrompt(toolNames: string[], instructions: string): string;
  /** The parent's Bash cwd now: where the subagent's starts. */
  shellCwd(): string;
  /** The project directory (the subagent's session-start `cwd`). */
  cwd: string;
  sessionId?: string;
  /** The session's sink. */
  events: EventSink;
  /** The session's spend meter and denial list (runAgent's `meter` and `permissionDenials`). */
  meter: SpendMeter;
  permissionDenials: PermissionDenial[];
  /** The session's server tools (web search), in the subagent's requests too. */
  serverTools?: readonly ServerToolSpec[];
  maxTurns?: number;
  toolTimeoutMs?: number;
}

export function createSubagentRunner(
  options: SubagentRunnerOptions,
): (request: SubagentRequest) => Promise<SubagentRun> {
  return async (request) => {
    const type = findSubagentType(request.subagentType);
    // The Agent tool validated the type; a port used directly gets the same answer.
    if (!type) throw new Error(`unknown subagent type ${JSON.stringify(request.subagentType)}`);
    const agentId = `a${randomBytes(8).toString('hex')}`;
    const agent = { id: agentId, type: type.name };

    const { meter } = options;
    if (meter.limitUsd !== undefined && meter.spentUsd >= meter.limitUsd) {
      return refused(agentId, 'error_max_budget_usd', [
        `the run's budget ($${meter.limitUsd}) is spent; no subagent can start`,
      ]);
    }

    const registry = new ToolRegistry(toolsFor(type, options.registry.list()));
    const workspace: SubagentWorkspace = {
      shell: { cwd: options.shellCwd() },
      fileState: new FileStateCache(),
    };
    let toolUseCount = 0;
    const events: EventSink = (event) => {
      if (event.type === 'assistant-message') {
        toolUseCount += event.message.content.filter((block) => block.type === 'tool_use').length;
      }
      options.events({
        type: 'subagent-event',
        parentToolUseId: request.toolUseId,
        agentId,
        agentType: type.name,
        event,
      });
    };
    const hooks = options.hooksFor(agent, () => workspace.shell.cwd);
    const pipeline: PipelineDeps = {
      registry,
      policy: options.policy,
      hooks,
      makeContext: (toolUseId, signal) => {
        const { runSubagent: _noNesting, ...context } = options.makeContext(
          toolUseId,
          signal,
          workspace,
        );
        return context;
      },
      events,
      ...(options.toolTimeoutMs !== undefined && { callTimeoutMs: options.toolTimeoutMs }),
    };

    const result = await runAgent({
      prompt: request.prompt,
      model: options.model,
      systemPrompt: options.systemPrompt(registry.names(), type.instructions),
      modelClient: options.modelClient,
      pipeline,
      permissionMode: options.policy.mode,
      cwd: options.cwd,
      maxTurns: options.maxTurns ?? SUBAGENT_MAX_TURNS,
      signal: request.signal,
      ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
      events,
      sessionHooks: asSubagentStop(hooks),
      meter,
      agent,
      ...(options.serverTools !== undefined && { serverTools: options.serverTools }),
      ...(options.retry !== undefined && { retry: options.retry }),
      ...(options.contextManagement !== undefined && {
        contextManagement: options.contextManagement,
      }),
    });
    options.permissionDenials.push(...result.permissionDenials);
    return {
      agentId,
      subtype: result.subtype,
      isError: result.isError,
      text: result.result,
      errors: result.errors,
      numTurns: result.numTurns,
      durationMs: result.durationMs,
      toolUseCount,
      usage: result.usage,
      totalCostUsd: result.totalCostUsd,
    };
  };
}

/**
 * A subagent's session hooks: only its end, as SubagentStop, which may send it back to work like
 * Stop does for the session (the loop's Stop handling, its cap included). The session's other
 * events (SessionStart, UserPromptSubmit, SessionEnd) belong to the session, not to its subagents.
 */
export function asSubagentStop(hooks: SessionHookRunner): SessionHookRunner {
  return {
    ...noHooks,
    has: (event) => event === 'Stop' && hooks.has('SubagentStop'),
    stop: (request) => hooks.subagentStop(request),
  };
}

/** The tools one type of subagent is given, in the session's order. */
export function toolsFor(type: SubagentType, tools: readonly Tool[]): Tool[] {
  const offered = tools.filter(
    (tool) =>
      !NEVER_IN_SUBAGENTS.includes(tool.name) &&
      !(type.readOnly && NEVER_READ_ONLY.includes(tool.name)),
  );
  return type.readOnly ? offered.map((tool) => readOnlyCalls(tool, type.name)) : offered;
}

/**
 * The tool, refusing every call it does not declare read-only (Bash: a command the classifier
 * cannot show to be read-only; an MCP tool without a trusted read-only hint) — the line plan
 * mode draws, as a validation error the model can act on rather than a permission denial.
 */
function readOnlyCalls(tool: Tool, typeName: string): Tool {
  return {
    ...tool,
    validateInput: async (input, context) =>
      tool.isReadOnly(input)
        ? tool.validateInput(input, context)
        : {
            result: false,
            errorCode: 1,
            message: `The ${typeName} agent is read-only: this ${tool.name} call could change something or send data out, so it was not run. Use read-only calls, and name what should change in your report instead.`,
          },
  };
}

function refused(agentId: string, subtype: string, errors: string[]): SubagentRun {
  return {
    agentId,
    subtype,
    isError: true,
    text: '',
    errors,
    numTurns: 0,
    durationMs: 0,
    toolUseCount: 0,
    usage: emptyUsage(),
    totalCostUsd: 0,
  };
}
