/**
 * Assembles a run from its parts — tools, policy, hooks, model — and runs the loop. The CLI and
 * the action both come through here, so they behave the same.
 *
 *   1. sessionSetting     the workspace roots, the hook scripts, the policy
 *   2. offeredTool        the tools the model is offered (bare-name denies remove some)
 *   3. sessionState       the shell, the task list, the permission mode, file state, child env
 *   4. sessionHookRunner  the hooks, for the session and for each subagent
 *   5. sessionModels      the run's usage, the side-query model, the client with server tools
 *   6. toolContexts       what each call runs with
 *   7. the system prompt, MCP tools and the subagent runner; then the loop (agent/loop.ts)
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
import type { HookScripts } from '../hooks/hook-scripts.js';
import { createHookRunner } from '../hooks/runner.js';
import { noHooks } from '../hooks/types.js';
import type { SessionHookRunner } from '../hooks/types.js';
import type { ModelClient } from '../model/model-client.js';
import { createModelQuery } from '../model/model-query.js';
import { resolveModelAlias } from '../model/pricing.js';
import { SpendMeter } from '../model/spend-meter.js';
import type { ServerToolSpec } from '../model/types.js';
import { credentialFilePredicate } from '../permissions/credential-files.js';
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
  SandboxView,
  SubagentRequest,
  SubagentRun,
  ToolContext,
} from '../tools/tool.js';
import { sandboxEnvironment } from '../sandbox/tool-environment.js';
import { buildChildEnv } from '../util/child-env.js';
import { findCredentialFiles } from '../util/credential-files.js';
import { withSettingsEnv } from '../util/settings-env.js';
import { errorMessage } from '../util/errors.js';
import type { EventSink, PermissionDenial, RunResult } from './events.js';
import { runAgent } from './loop.js';
import type { AgentOptions } from './loop.js';
import type { SubagentRunnerOptions, SubagentWorkspace } from './subagent.js';
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
  /** What an unanswerable ask becomes, globally and per tool (docs/DECISIONS.md #9). */
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
  /** Where a denial's suggested allow rules go (permissions/denial-advice.ts). */
  allowRulesFile?: string;
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
  /** What each request sends of the conversation, the session's and its subagents' (context/). */
  contextManagement?: AgentOptions['contextManagement'];
  /** What the system prompt says of the workspace, when the caller has it already. */
  environment?: EnvironmentInfo;
  /**
   * Prepares the workspace for code not ours (the action creates its branch and takes the
   * checkout's credentials out), once: called when the first request's answer begins, and by
   * whatever needs the workspace first. No tool call, hook or MCP server runs before it is
   * ready; when it fails, the run stops with its error.
   */
  workspaceReady?: () => Promise<void>;
  /** The parent environment; secrets are removed before tools see it. */
  env: NodeJS.ProcessEnv;
  events: EventSink;
  signal?: AbortSignal;
  sessionId?: string;
  now?: Date;
  /** MCP servers: the policy's section, `--mcp-config`, and who hears what started (mcp/). */
  mcp?: SessionMcpOptions;
  /**
   * The OS sandbox (src/sandbox/, started by the caller before the first request): Bash, hooks
   * and MCP stdio servers run in it, and the file tools keep to what it shows. Absent: none.
   */
  sandbox?: SandboxView;
}

export async function runSession(options: SessionOptions): Promise<RunResult> {
  const { ready, signal } = workspaceGate(options.workspaceReady, options.signal);
  const setting = sessionSetting(options);
  const offered = offeredTool(options);
  const registry = new ToolRegistry(builtinTools.filter(offered));
  const state = sessionState(options, setting);
  const hookRunner = sessionHookRunner(options, setting, state, ready);
  const hooks = hookRunner(() => state.shell.cwd);
  const models = sessionModels(options, setting);
  const contexts = toolContexts(options, setting, state, models);
  // The workspace's preparation forks processes: started once the first request is out.
  const modelClient = ready
    ? startingOnFirstAnswer(options.modelClient, () => void ready().catch(() => undefined))
    : options.modelClient;
  const pipeline: PipelineDeps = {
    registry,
    policy: setting.policy,
    hooks,
    makeContext: contexts.makeContext,
    events: options.events,
    ...(options.toolTimeoutMs === undefined ? {} : { callTimeoutMs: options.toolTimeoutMs }),
    ...(ready && { ready }),
  };
  const [environment, memory] = await Promise.all([
    options.environment ?? gatherEnvironment(setting.projectDir, options.now),
    readMemoryFiles(setting.projectDir),
  ]);
  // MCP servers start last, just before the prompt names their tools; they stop with the run
  // (at once when it was cancelled), whatever way it ends.
  const mcp = await openSessionMcp(options.mcp, {
    projectDir: setting.projectDir,
    env: options.env,
    ...(signal && { signal }),
    ...(options.sandbox && { sandbox: options.sandbox }),
    // A stdio server is code of the checkout's choosing: it starts once the workspace is ready
    // (the checkout's credentials out of git's config), as tools and hooks do.
    ...(ready && { ready }),
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
  contexts.bindSubagents(
    lazySubagentRunner({
      model: options.model,
      modelClient,
      serverTools: models.serverTools,
      retry: options.retry,
      ...(options.contextManagement !== undefined && {
        contextManagement: options.contextManagement,
      }),
      policy: setting.policy,
      registry,
      hooksFor: (agent, cwd) => hookRunner(cwd, agent),
      makeContext: contexts.toolContext,
      systemPrompt: (toolNames, instructions) =>
        buildSystemPrompt({ environment, memory, toolNames, append: instructions }),
      shellCwd: () => state.shell.cwd,
      cwd: setting.projectDir,
      sessionId: state.sessionId,
      events: options.events,
      meter: models.meter,
      permissionDenials,
      toolTimeoutMs: options.toolTimeoutMs,
    }),
  );

  return runAgent({
    prompt: options.prompt,
    ...(environment.git?.headSha !== undefined && { commit: environment.git.headSha }),
    model: options.model,
    systemPrompt,
    modelClient,
    serverTools: models.serverTools,
    pipeline,
    permissionMode: options.permissionMode,
    cwd: setting.projectDir,
    maxTurns: options.maxTurns,
    signal,
    sessionId: state.sessionId,
    events: options.events,
    sessionHooks: hooks,
    timeoutMs: options.timeoutMs,
    retry: options.retry,
    ...(options.contextManagement !== undefined && {
      contextManagement: options.contextManagement,
    }),
    meter: models.meter,
    permissionDenials,
  }).finally(closeMcp);
}

/** Where the session runs and under which policy. */
interface SessionSetting {
  projectDir: string;
  workspaceRoots: string[];
  anchors: { projectDir: string; homeDir: string };
  hookScripts: HookScripts;
  policy: PermissionPolicy;
}

/** The workspace roots, the scripts hooks run, and the policy that judges every call. */
function sessionSetting(options: SessionOptions): SessionSetting {
  const projectDir = realpathSync(resolve(options.cwd));
  const workspaceRoots = [
    projectDir,
    ...(options.additionalDirectories ?? []).map((dir) => resolveDirectory(projectDir, dir)),
    // The sandbox's private /tmp is the agent's scratch: what its commands wrote there, the file
    // tools may read and change as in the workspace (they reach it through hostPath).
    ...(options.sandbox ? [options.sandbox.hostPath('/tmp')] : []),
  ];
  const anchors = { projectDir, homeDir: homedir() };
  const hookScripts = findHookScripts(options.hooksConfig ?? {}, anchors);
  const credentialFiles = findCredentialFiles(options.env, projectDir, workspaceRoots).flatMap(
    (path) => [path, realPathOf(path)],
  );
  const isCredentialFile = credentialFilePredicate(credentialFiles);
  const policy: PermissionPolicy = {
    mode: options.permissionMode,
    allow: options.rules.allow,
    deny: options.rules.deny,
    ask: options.rules.ask ?? [],
    askDefault: options.askDefault ?? 'deny',
    askDefaultByTool: options.askDefaultByTool ?? {},
    ...(options.askDefaultSource === undefined
      ? {}
      : { askDefaultSource: options.askDefaultSource }),
    ...(options.allowRulesFile !== undefined && { allowRulesFile: options.allowRulesFile }),
    workspaceRoots,
    judgePaths: [
      ...(options.judgePaths ?? []).map((path) => realPathOf(expandPath(path, projectDir))),
      ...hookScripts.paths,
    ],
    ...(options.sandbox && { sandboxHides: (path: string) => options.sandbox!.isHidden(path) }),
    ...(isCredentialFile && { isCredentialFile }),
  };
  return { projectDir, workspaceRoots, anchors, hookScripts, policy };
}

/**
 * What the model is offered, built-in and MCP tools alike: what this session enables, less what
 * a bare-name (or name-glob) deny removes (docs/CC-COMPAT.md §2.2).
 */
function offeredTool(options: SessionOptions): (tool: Tool) => boolean {
  const bareDenies = options.rules.deny.filter((rule) => rule.content === undefined);
  return (tool) =>
    tool.isEnabled({ permissionMode: options.permissionMode }) &&
    !bareDenies.some((rule) => ruleNamesTool(rule, tool.name, tool.aliases, 'deny'));
}

/** What the session's calls change and remember: the shell, the task list, the mode, file state. */
interface SessionState {
  shell: ShellState;
  todos: TodoStore;
  permissionMode: PermissionModeState;
  fileState: FileStateCache;
  childEnv: ReturnType<typeof withSettingsEnv>;
  promptId: string;
  sessionId: string;
}

function sessionState(options: SessionOptions, setting: SessionSetting): SessionState {
  const { policy } = setting;
  return {
    shell: { cwd: setting.projectDir },
    todos: { todos: [] },
    // The pipeline decides with `policy`; ExitPlanMode switches the mode through this view of it.
    permissionMode: {
      get mode() {
        return policy.mode;
      },
      set mode(mode) {
        policy.mode = mode;
      },
      afterPlan: options.modeAfterPlan ?? 'default',
    },
    fileState: new FileStateCache(),
    // In the sandbox, an allow-list (tool-environment.ts); unsandboxed, Claude Code's way: the
    // parent's environment less the secrets.
    childEnv: withSettingsEnv(
      options.sandbox
        ? sandboxEnvironment(options.env, options.passEnv)
        : buildChildEnv(options.env, options.passEnv),
      options.settingsEnv ?? {},
    ),
    promptId: options.promptId ?? randomUUID(),
    sessionId: options.sessionId ?? randomUUID(),
  };
}

/** One runner for the session; each subagent gets its own, with its agent fields and cwd. */
function sessionHookRunner(
  options: SessionOptions,
  setting: SessionSetting,
  state: SessionState,
  ready: (() => Promise<void>) | undefined,
): (cwd: () => string, agent?: { id: string; type: string }) => SessionHookRunner {
  const config = options.hooksConfig ?? {};
  const hasHooks = Object.values(config).some((groups) => groups.length > 0);
  return (cwd, agent) =>
    hasHooks
      ? createHookRunner({
          config,
          projectDir: setting.projectDir,
          sessionId: state.sessionId,
          transcriptPath: options.transcriptPath ?? '',
          permissionMode: () => setting.policy.mode,
          cwd,
          env: state.childEnv,
          scripts: setting.hookScripts,
          promptId: state.promptId,
          ...(options.sandbox && { sandbox: options.sandbox }),
          ...(agent && { agent }),
          ...(ready && { ready }),
        })
      : noHooks;
}

interface SessionModels {
  /**
   * The run's one spend meter: the loop's requests, its subagents', compactions' and side
   * queries' all go through it (model/spend-meter.ts), so the budget bounds them all.
   */
  meter: SpendMeter;
  queryModel: ReturnType<typeof createModelQuery>;
  /** The server tools (web search) the policy allows in every turn's request. */
  serverTools: ServerToolSpec[];
}

function sessionModels(options: SessionOptions, setting: SessionSetting): SessionModels {
  const meter = new SpendMeter({ limitUsd: options.maxBudgetUsd });
  const queryModel = createModelQuery({
    client: meter.client(options.modelClient, { role: 'side-query' }),
    model:
      options.smallFastModel ??
      (options.env.ANTHROPIC_SMALL_FAST_MODEL?.trim() || resolveModelAlias('haiku')),
  });
  // Server-side web search goes into every request when the policy allows it (web-search.ts).
  const webSearch = webSearchOffer(setting.policy, setting.anchors).spec;
  return { meter, queryModel, serverTools: webSearch ? [webSearch] : [] };
}

/**
 * The contexts calls run in. What the session's calls and its subagents' calls share; the task
 * list and subagents are the session's alone. The subagent runner is bound once the system
 * prompt's parts are known; contexts are only made while the loop runs.
 */
function toolContexts(
  options: SessionOptions,
  setting: SessionSetting,
  state: SessionState,
  models: SessionModels,
) {
  const ripgrepPath = findRipgrep(options.env.PATH);
  // Read deny rules hide files from Glob and Grep results (docs/CC-COMPAT.md §2.4); so do the
  // model provider's credential files, which no rule can allow (permissions/floors.ts).
  const denied = readDeniedPredicate(options.rules.deny, setting.anchors);
  const isCredentialFile = setting.policy.isCredentialFile;
  const isReadDenied =
    isCredentialFile === undefined
      ? denied
      : (path: string) => isCredentialFile(path) || denied?.(path) === true;
  let runSubagent: ToolContext['runSubagent'];
  const toolContext = (
    toolUseId: string,
    signal: AbortSignal,
    own: SubagentWorkspace,
  ): ToolContext => ({
    projectDir: setting.projectDir,
    workspaceRoots: setting.workspaceRoots,
    shell: own.shell,
    fileState: own.fileState,
    signal,
    toolUseId,
    env: state.childEnv,
    ripgrepPath,
    ...(options.sandbox && { sandbox: options.sandbox }),
    ...(isReadDenied && { isReadDenied }),
    permissionMode: state.permissionMode,
    queryModel: models.queryModel,
  });
  const makeContext = (toolUseId: string, signal: AbortSignal): ToolContext => ({
    ...toolContext(toolUseId, signal, { shell: state.shell, fileState: state.fileState }),
    todos: state.todos,
    runSubagent,
  });
  return {
    toolContext,
    makeContext,
    bindSubagents: (runner: NonNullable<ToolContext['runSubagent']>) => {
      runSubagent = runner;
    },
  };
}

/**
 * The run's signal, which also stops the run when the workspace cannot be prepared, and what
 * calls wait on: it starts the preparation once, and rejects with the reason the run stopped.
 */
function workspaceGate(
  workspaceReady: (() => Promise<void>) | undefined,
  signal: AbortSignal | undefined,
): { ready?: () => Promise<void>; signal?: AbortSignal } {
  if (workspaceReady === undefined) return signal ? { signal } : {};
  const failed = new AbortController();
  let started: Promise<void> | undefined;
  const ready = () => {
    started ??= Promise.resolve()
      .then(workspaceReady)
      .catch((error: unknown) => {
        failed.abort(new Error(`the workspace could not be prepared: ${errorMessage(error)}`));
        throw failed.signal.reason;
      });
    return started;
  };
  return { ready, signal: signal ? AbortSignal.any([signal, failed.signal]) : failed.signal };
}

/** The model client that calls `start` when the first answer begins (or fails). */
function startingOnFirstAnswer(client: ModelClient, start: () => void): ModelClient {
  let first = true;
  const begun = () => {
    if (!first) return;
    first = false;
    start();
  };
  return {
    async *stream(request) {
      if (!first) {
        yield* client.stream(request);
        return;
      }
      try {
        for await (const event of client.stream(request)) {
          begun();
          yield event;
        }
      } finally {
        begun();
      }
    },
  };
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

/** The subagent runner (agent/subagent.ts), loaded with the first Agent call, not at start-up. */
function lazySubagentRunner(
  options: SubagentRunnerOptions,
): (request: SubagentRequest) => Promise<SubagentRun> {
  let runner: Promise<(request: SubagentRequest) => Promise<SubagentRun>> | undefined;
  return async (request) => {
    runner ??= import('./subagent.js').then(({ createSubagentRunner }) =>
      createSubagentRunner(options),
    );
    return (await runner)(request);
  };
}
