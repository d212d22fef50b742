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
import { createHookRunner } from '../hooks/runner.js';
import { noHooks } from '../hooks/types.js';
import type { ModelClient } from '../model/model-client.js';
import { readDeniedPredicate } from '../permissions/read-denied.js';
import { ruleNamesTool } from '../permissions/rules.js';
import type { PermissionMode, PermissionPolicy, PermissionRule } from '../permissions/types.js';
import { builtinTools } from '../tools/builtin/index.js';
import { findRipgrep } from '../tools/builtin/search/find-ripgrep.js';
import { FileStateCache } from '../tools/file-state.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ShellState, ToolContext } from '../tools/tool.js';
import { buildChildEnv } from '../util/child-env.js';
import type { EventSink, RunResult } from './events.js';
import { runAgent } from './loop.js';
import { buildSystemPrompt, gatherEnvironment, readMemoryFiles } from './system-prompt.js';

export interface SessionOptions {
  prompt: string;
  cwd: string;
  model: string;
  modelClient: ModelClient;
  permissionMode: PermissionMode;
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
  /** Given to hooks as transcript_path. */
  transcriptPath?: string;
  /** Environment variable names the policy passes to tools and hooks although they are secrets. */
  passEnv?: readonly string[];
  maxBudgetUsd?: number;
  /** The whole run's time limit; the run is stopped (tools aborted) when it passes. */
  timeoutMs?: number;
  /** The parent environment; secrets are removed before tools see it. */
  env: NodeJS.ProcessEnv;
  events: EventSink;
  signal?: AbortSignal;
  sessionId?: string;
  now?: Date;
}

export async function runSession(options: SessionOptions): Promise<RunResult> {
  const projectDir = realpathSync(resolve(options.cwd));
  const workspaceRoots = [
    projectDir,
    ...(options.additionalDirectories ?? []).map((dir) => resolveDirectory(projectDir, dir)),
  ];
  const deny = options.rules.deny;
  const policy: PermissionPolicy = {
    mode: options.permissionMode,
    allow: options.rules.allow,
    deny,
    ask: options.rules.ask ?? [],
    askDefault: options.askDefault ?? 'deny',
    askDefaultByTool: options.askDefaultByTool ?? {},
    workspaceRoots,
  };

  // A bare-name (or name-glob) deny removes the tool from what the model is offered (CC-COMPAT §2.2).
  const bareDenies = deny.filter((rule) => rule.content === undefined);
  const registry = new ToolRegistry(
    builtinTools.filter(
      (tool) => !bareDenies.some((rule) => ruleNamesTool(rule, tool.name, tool.aliases, 'deny')),
    ),
  );

  const shell: ShellState = { cwd: projectDir };
  const fileState = new FileStateCache();
  const childEnv = buildChildEnv(options.env, options.passEnv);
  const sessionId = options.sessionId ?? randomUUID();
  const hookConfig = options.hooksConfig ?? {};
  const hooks = Object.values(hookConfig).some((groups) => groups.length > 0)
    ? createHookRunner({
        config: hookConfig,
        projectDir,
        sessionId,
        transcriptPath: options.transcriptPath ?? '',
        permissionMode: options.permissionMode,
        cwd: () => shell.cwd,
        env: childEnv,
      })
    : noHooks;
  const ripgrepPath = findRipgrep(options.env.PATH);
  // Read deny rules hide files from Glob and Grep results (CC-COMPAT §2.4).
  const isReadDenied = readDeniedPredicate(deny, { projectDir, homeDir: homedir() });
  const makeContext = (toolUseId: string, signal: AbortSignal): ToolContext => ({
    projectDir,
    workspaceRoots,
    shell,
    fileState,
    signal,
    toolUseId,
    env: childEnv,
    ripgrepPath,
    ...(isReadDenied && { isReadDenied }),
  });

  const pipeline: PipelineDeps = {
    registry,
    policy,
    hooks,
    makeContext,
    events: options.events,
  };

  const [environment, memory] = await Promise.all([
    gatherEnvironment(projectDir, options.now),
    readMemoryFiles(projectDir),
  ]);
  const systemPrompt = buildSystemPrompt({
    environment,
    memory,
    toolNames: registry.names(),
    append: options.appendSystemPrompt,
  });

  // The time limit aborts the run like a signal would: running tools are stopped.
  const limit = new AbortController();
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(
          () =>
            limit.abort(
              new Error(
                `reached the time limit of ${Math.round(options.timeoutMs! / 60_000)} minutes`,
              ),
            ),
          options.timeoutMs,
        );
  timer?.unref();
  const signal = options.signal ? AbortSignal.any([options.signal, limit.signal]) : limit.signal;
  try {
    return await runAgent({
      prompt: options.prompt,
      model: options.model,
      systemPrompt,
      modelClient: options.modelClient,
      pipeline,
      permissionMode: options.permissionMode,
      cwd: projectDir,
      maxTurns: options.maxTurns,
      signal,
      sessionId,
      events: options.events,
      sessionHooks: hooks,
      maxBudgetUsd: options.maxBudgetUsd,
    });
  } finally {
    clearTimeout(timer);
  }
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
