/**
 * Assembles a run from its parts — tools, policy, hooks, model — and runs the loop. The CLI and
 * the action both come through here, so they behave the same.
 */
import { randomUUID } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PipelineDeps } from '../execution/pipeline.js';
import type { HookRunner } from '../hooks/types.js';
import { noHooks } from '../hooks/types.js';
import type { ModelClient } from '../model/model-client.js';
import { parseRule } from '../permissions/rules.js';
import type { PermissionMode, PermissionPolicy, PermissionRule } from '../permissions/types.js';
import { builtinTools } from '../tools/builtin/index.js';
import { splitCommandForRules } from '../tools/builtin/bash/rule-parts.js';
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
  /** Rule strings with where they came from. */
  allow: ReadonlyArray<{ rule: string; source: string }>;
  deny: ReadonlyArray<{ rule: string; source: string }>;
  ask?: ReadonlyArray<{ rule: string; source: string }>;
  askDefault?: 'allow' | 'deny';
  additionalDirectories?: readonly string[];
  maxTurns?: number;
  appendSystemPrompt?: string;
  hooks?: HookRunner;
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
  const toRules = (entries: ReadonlyArray<{ rule: string; source: string }>): PermissionRule[] =>
    entries.map((entry) => parseRule(entry.rule, entry.source));
  const deny = toRules(options.deny);
  const policy: PermissionPolicy = {
    mode: options.permissionMode,
    allow: toRules(options.allow),
    deny,
    ask: toRules(options.ask ?? []),
    askDefault: options.askDefault ?? 'deny',
    workspaceRoots,
  };

  // A bare-name deny removes the tool from what the model is offered (CC-COMPAT §2.2).
  const removed = new Set(
    deny.filter((rule) => rule.content === undefined).map((rule) => rule.toolName),
  );
  const registry = new ToolRegistry(
    builtinTools.filter(
      (tool) => !removed.has(tool.name) && !tool.aliases.some((alias) => removed.has(alias)),
    ),
  );

  const shell: ShellState = { cwd: projectDir };
  const fileState = new FileStateCache();
  const childEnv = buildChildEnv(options.env);
  const ripgrepPath = findRipgrep(options.env.PATH);
  const makeContext = (toolUseId: string, signal: AbortSignal): ToolContext => ({
    projectDir,
    workspaceRoots,
    shell,
    fileState,
    signal,
    toolUseId,
    env: childEnv,
    ripgrepPath,
  });

  const pipeline: PipelineDeps = {
    registry,
    policy,
    hooks: options.hooks ?? noHooks,
    makeContext,
    splitCommand: splitCommandForRules,
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

  return runAgent({
    prompt: options.prompt,
    model: options.model,
    systemPrompt,
    modelClient: options.modelClient,
    pipeline,
    permissionMode: options.permissionMode,
    cwd: projectDir,
    maxTurns: options.maxTurns,
    signal: options.signal,
    sessionId: options.sessionId ?? randomUUID(),
    events: options.events,
  });
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
