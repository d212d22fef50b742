/**
 * Assembles a run from its parts — tools, policy, hooks, model — and runs the loop. The CLI and
 * the action both come through here, so they behave the same.
 */
import { randomUUID } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { PipelineDeps } from '../execution/pipeline.js';
import type { HooksConfig } from '../hooks/config.js';
import { openSessionMcp } from '../mcp/session-mcp.js';
import type { SessionMcpOptions } from '../mcp/session-mcp.js';
import { findHookScripts } from '../hooks/hook-scripts.js';
import { createHookRunner } from '../hooks/runner.js';
import { noHooks } from '../hooks/types.js';
import type { ModelClient } from '../model/model-client.js';
import { createModelQuery } from '../model/model-query.js';
import { UsageTracker, resolveModelAlias } from '../model/pricing.js';
import { withServerTools } from '../model/server-tools.js';
import { readDeniedPredicate } from '../permissions/read-denied.js';
import { ruleNamesTool } from '../permissions/rules.js';
import type { PermissionMode, PermissionPolicy, PermissionRule } from '../permissions/types.js';
import { builtinTools } from '../tools/builtin/index.js';
import { findRipgrep } from '../tools/builtin/search/find-ripgrep.js';
import { webSearchOffer } from '../tools/builtin/web-search.js';
import { FileStateCache } from '../tools/file-state.js';
import { expandPath, realPathOf } from '../tools/paths.js';
import { ToolRegistry } from '../tools/registry.js';
import type {
  PermissionModeState,
  ShellState,
  TodoStore,
  Tool,
  ToolContext,
} from '../tools/tool.js';
import { buildChildEnv } from '../util/child-env.js';
import { withSettingsEnv } from '../util/settings-env.js';
import { errorMessage } from '../util/errors.js';
import type { EventSink, PermissionDenial, RunResult } from './events.js';
import { runAgent } from './loop.js';
import type { AgentOptions } from './loop.js';
import { createSubagentRunner } from './subagent.js';
import type { SubagentWorkspace } from './subagent.js';
import { buildSystemPrompt, gatherEnvironment, readMemoryFiles } from './system-prompt.js';
import type { EnvironmentInfo } from './system-prompt.js';

export interface SessionOptions {
  prompt: string;
  cwd: string;
  model: string;
  modelClient: ModelClient;
  /**
   * The model for tools' side questions (WebFetch's prompt over a page); default
   * ANTHROPIC_SMALL_FAST_MODEL from env, else the current Haiku.
   */
  smallFastModel?: string;
  permissionMode: PermissionMode;
  /** The mode an approved ExitPlanMode switches to when the run starts in plan; default `default`. */
  modeAfterPlan?: PermissionMode;
  /** Parsed rules from every source (policy and settings files, flags), each with its source. */
  rules: {
    allow: readonly PermissionRule[];
    deny: readonly PermissionRule[];
    ask?: readonly PermissionRule[];
  };
  /** What an unanswerable ask becomes, globally and per tool (DECISIONS #9). */
  askDefault?: 'allow' | 'deny';
  askDefaultByTool?: Readonly<Record<string, 'allow' | 'deny'>>;
  additionalDirectories?: readonly string[];
  maxTurns?: number;
  appendSystemPrompt?: string;
  /** Hooks from the policy and settings files. */
  hooksConfig?: HooksConfig;
  /**
   * The files the policy came from (the policy file, settings files): judges of the run, which
   * no call may change (permissions/judges.ts); relative to the project, `~/…` or absolute. The
   * scripts hooks run are added here.
   */
  judgePaths?: readonly string[];
  /** The policy file that set askDefault/askDefaultByTool, named when an ask is answered allow. */
  askDefaultSource?: string;
  /** Given to hooks as transcript_path. */
  transcriptPath?: string;
  /** Environment variable names the policy passes to tools and hooks although they are secrets. */
  passEnv?: readonly string[];
  /** The settings files' `env` (LoadedPolicy.env), laid over the environment of tools and hooks. */
  settingsEnv?: Readonly<Record<string, string>>;
  /** The prompt's id: hooks' `prompt_id` and the transcript's `promptId`; default a new one. */
  promptId?: string;
  maxBudgetUsd?: number;
  /** The whole run's time limit; the run is stopped (tools aborted) as `error_max_duration`. */
  timeoutMs?: number;
  /** The ceiling for one tool call (default 15 minutes): the call is stopped, the run goes on. */
  toolTimeoutMs?: number;
  /** How failed model requests are retried (agent/loop.ts). */
  retry?: AgentOptions['retry'];
  /** What the system prompt says of the workspace, when the caller has it already. */
  environment?: EnvironmentInfo;
  /**
   * The workspace still being prepared (the action creates its branch while the first request
   * is in flight). No tool call and no hook runs before it is ready; when it fails, the run
   * stops with its error.
   */
  workspaceReady?: Promise<void>;
  /** The parent environment; secrets are removed before tools see it. */
  env: NodeJS.ProcessEnv;
  events: EventSink;
  signal?: AbortSignal;
  sessionId?: string;
  now?: Date;
  /** MCP servers: the policy's section, `--mcp-config`, and who hears what started (mcp/). */
  mcp?: SessionMcpOptions;
}

export async function runSession(options: SessionOptions): Promise<RunResult> {
  const { ready, signal } = workspaceGate(options.workspaceReady, options.signal);
  const projectDir = realpathSync(resolve(options.cwd));
  const workspaceRoots = [
    projectDir,
    ...(options.additionalDirectories ?? []).map((dir) => resolveDirectory(projectDir, dir)),
  ];
  const deny = options.rules.deny;
  const anchors = { projectDir, homeDir: homedir() };
  const hookScripts = findHookScripts(options.hooksConfig ?? {}, anchors);
  const policy: PermissionPolicy = {
    mode: options.permissionMode,
    allow: options.rules.allow,
    deny,
    ask: options.rules.ask ?? [],
    askDefault: options.askDefault ?? 'deny',
    askDefaultByTool: options.askDefaultByTool ?? {},
    ...(options.askDefaultSource === undefined
      ? {}
      : { askDefaultSource: options.askDefaultSource }),
    workspaceRoots,
    judgePaths: [
      ...(options.judgePaths ?? []).map((path) => realPathOf(expandPath(path, projectDir))),
      ...hookScripts.paths,
    ],
  };

  // What the model is offered, built-in and MCP tools alike: what this session enables, less what
  // a bare-name (or name-glob) deny removes (CC-COMPAT §2.2).
  const bareDenies = deny.filter((rule) => rule.content === undefined);
  const offered = (tool: Tool) =>
    tool.isEnabled({ permissionMode: options.permissionMode }) &&
    !bareDenies.some((rule) => ruleNamesTool(rule, tool.name, tool.aliases, 'deny'));
  const registry = new ToolRegistry(builtinTools.filter(offered));

  const shell: ShellState = { cwd: projectDir };
  const todos: TodoStore = { todos: [] };
  // The pipeline decides with `policy`; ExitPlanMode switches the mode through this view of it.
  const permissionMode: PermissionModeState = {
    get mode() {
      return policy.mode;
    },
    set mode(mode) {
      policy.mode = mode;
    },
    afterPlan: options.modeAfterPlan ?? 'default',
  };
  const fileState = new FileStateCache();
  const childEnv = withSettingsEnv(
    buildChildEnv(options.env, options.passEnv),
    options.settingsEnv ?? {},
  );
  const promptId = options.promptId ?? randomUUID();
  const sessionId = options.sessionId ?? randomUUID();
  const hookConfig = options.hooksConfig ?? {};
  const hasHooks = Object.values(hookConfig).some((groups) => groups.length > 0);
  // One runner for the session; each subagent gets its own, with its agent fields and cwd.
  const hookRunner = (cwd: () => string, agent?: { id: string; type: string }) =>
    hasHooks
      ? createHookRunner({
          config: hookConfig,
          projectDir,
          sessionId,
          transcriptPath: options.transcriptPath ?? '',
          permissionMode: () => policy.mode,
          cwd,
          env: childEnv,
          scripts: hookScripts,
          promptId,
          ...(agent && { agent }),
        })
      : noHooks;
  const hooks = hookRunner(() => shell.cwd);
  const ripgrepPath = findRipgrep(options.env.PATH);
  // Read deny rules hide files from Glob and Grep results (CC-COMPAT §2.4).
  const isReadDenied = readDeniedPredicate(deny, anchors);
  // Subagents' and side queries' spend counts in the run's cost and budget, with the loop's own.
  const usage = new UsageTracker();
  const queryModel = createModelQuery({
    client: options.modelClient,
    model:
      options.smallFastModel ??
      (options.env.ANTHROPIC_SMALL_FAST_MODEL?.trim() || resolveModelAlias('haiku')),
    onUsage: (model, used) => usage.add(model, used),
  });
  // Server-side web search goes into every request when the policy allows it (web-search.ts).
  const webSearch = webSearchOffer(policy, anchors).spec;
  const modelClient = withServerTools(options.modelClient, webSearch ? [webSearch] : []);
  // What the session's calls and its subagents' calls share; the task list and subagents are
  // the session's alone.
  const toolContext = (
    toolUseId: string,
    signal: AbortSignal,
    own: SubagentWorkspace,
  ): ToolContext => ({
    projectDir,
    workspaceRoots,
    shell: own.shell,
    fileState: own.fileState,
    signal,
    toolUseId,
    env: childEnv,
    ripgrepPath,
    ...(isReadDenied && { isReadDenied }),
    permissionMode,
    queryModel,
  });
  // `runSubagent` is made below, once the system prompt's parts are known; contexts are only
  // made while the loop runs.
  const makeContext = (toolUseId: string, signal: AbortSignal): ToolContext => ({
    ...toolContext(toolUseId, signal, { shell, fileState }),
    todos,
    runSubagent,
  });

  const pipeline: PipelineDeps = {
    registry,
    policy,
    hooks,
    makeContext,
    events: options.events,
    ...(options.toolTimeoutMs === undefined ? {} : { callTimeoutMs: options.toolTimeoutMs }),
    ...(ready && { ready }),
  };

  const [environment, memory] = await Promise.all([
    options.environment ?? gatherEnvironment(projectDir, options.now),
    readMemoryFiles(projectDir),
  ]);
  // MCP servers start last, just before the prompt names their tools; they stop with the run
  // (at once when it was cancelled), whatever way it ends.
  const mcp = await openSessionMcp(options.mcp, {
    projectDir,
    env: options.env,
    ...(signal && { signal }),
  });
  const closeMcp = () => mcp.close({ force: signal?.aborted === true });
  for (const tool of mcp.tools.filter(offered)) registry.register(tool);
  const systemPrompt = buildSystemPrompt({
    environment,
    memory,
    toolNames: registry.names(),
    append: options.appendSystemPrompt,
  });
  // Subagents' denials count in the run's result too (agent/subagent.ts).
  const permissionDenials: PermissionDenial[] = [];
  const runSubagent = createSubagentRunner({
    model: options.model,
    modelClient,
    retry: options.retry,
    policy,
    registry,
    hooksFor: (agent, cwd) => hookRunner(cwd, agent),
    makeContext: toolContext,
    systemPrompt: (toolNames, instructions) =>
      buildSystemPrompt({ environment, memory, toolNames, append: instructions }),
    shellCwd: () => shell.cwd,
    cwd: projectDir,
    sessionId,
    events: options.events,
    usage,
    permissionDenials,
    maxBudgetUsd: options.maxBudgetUsd,
    toolTimeoutMs: options.toolTimeoutMs,
  });

  // Hooks that run before the first request see the workspace as the tools will.
  if (ready && (hooks.has('SessionStart') || hooks.has('UserPromptSubmit'))) await ready;

  return runAgent({
    prompt: options.prompt,
    model: options.model,
    systemPrompt,
    modelClient,
    pipeline,
    permissionMode: options.permissionMode,
    cwd: projectDir,
    maxTurns: options.maxTurns,
    signal,
    sessionId,
    events: options.events,
    sessionHooks: hooks,
    maxBudgetUsd: options.maxBudgetUsd,
    timeoutMs: options.timeoutMs,
    retry: options.retry,
    usage,
    permissionDenials,
  }).finally(closeMcp);
}

/**
 * The run's signal, which also stops the run when the workspace cannot be prepared, and the
 * promise calls wait on (it rejects with the reason the run stopped).
 */
function workspaceGate(
  workspaceReady: Promise<void> | undefined,
  signal: AbortSignal | undefined,
): { ready?: Promise<void>; signal?: AbortSignal } {
  if (workspaceReady === undefined) return signal ? { signal } : {};
  const failed = new AbortController();
  const ready = workspaceReady.catch((error: unknown) => {
    failed.abort(new Error(`the workspace could not be prepared: ${errorMessage(error)}`));
    throw failed.signal.reason;
  });
  // Handled through the signal when no call waits on it.
  ready.catch(() => undefined);
  return { ready, signal: signal ? AbortSignal.any([signal, failed.signal]) : failed.signal };
}

/** An additional directory, resolved through symlinks; a clear error when it is not there. */
function resolveDirectory(projectDir: string, dir: string): string {
  const absolute = resolve(projectDir, dir);
  try {
    if (statSync(absolute).isDirectory()) return realpathSync(absolute);
  } catch {
    // fall through to the error below
  }
  throw new SessionSetupError(
    `additional directory ${JSON.stringify(dir)} is not a directory (${absolute})`,
  );
}

/** A run that cannot start because of how it was set up; the CLI prints it as one line. */
export class SessionSetupError extends Error {
  override readonly name = 'SessionSetupError';
}
