/**
 * The hook runner: Claude Code's command hooks (docs/CC-COMPAT.md §1) behind the hook ports.
 *
 * One event firing:
 *   1. plan the handlers (plan.ts): matching, then one run per distinct command string;
 *   2. run them all in parallel (hook-process.ts): `sh -c` in the current cwd, the scrubbed env
 *      plus CLAUDE_PROJECT_DIR, the JSON payload on stdin, each under its own timeout;
 *   3. interpret each run (interpret.ts) and report one HookRunRecord per handler, config order;
 *   4. merge the verdicts (merge.ts) into the event's outcome.
 */
import type { PermissionMode } from '../permissions/types.js';
import type { HookEventName, HookHandlerConfig, HooksConfig } from './config.js';
import { runHookProcess, type HookProcessOptions } from './hook-process.js';
import type { HookScripts } from './hook-scripts.js';
import { commonFields, toolInputAsSent } from './payload.js';
import { interpretRun, interpretTampered, interpretUnrunnable } from './interpret.js';
import type { HandlerResult } from './merge.js';
import {
  mergeContext,
  mergePostToolUse,
  mergePreCompact,
  mergePreToolUse,
  mergeStop,
  mergeUserPromptSubmit,
} from './merge.js';
import type { CompiledGroup } from './plan.js';
import { compileHooks, planFiring } from './plan.js';
import type { RecordContext } from './records.js';
import { recordOf } from './records.js';
import type { HookRunRecord, SessionHookRunner } from './types.js';
import { parseRule, ruleMatches } from '../permissions/rules.js';
import type { RuleTarget } from '../permissions/rules.js';
import type { PermissionRule } from '../permissions/types.js';

export interface HookRunnerOptions {
  config: HooksConfig;
  /** The project root where the session started: CLAUDE_PROJECT_DIR. */
  projectDir: string;
  sessionId: string;
  /** Where the session writes its transcript; only passed on to hooks. */
  transcriptPath: string;
  /** The mode now: a getter when it can change during the run (ExitPlanMode leaves plan mode). */
  permissionMode: PermissionMode | (() => PermissionMode);
  /** The current working directory (the Bash tool's shell cwd): hooks run there. */
  cwd: () => string;
  /** Already free of secrets (buildChildEnv); the runner only adds CLAUDE_PROJECT_DIR. */
  env: Readonly<Record<string, string>>;
  /** Applies to handlers without `timeout`; docs/DECISIONS.md #8. */
  defaultTimeoutSeconds?: number;
  /** Receives every record of every event, in config order, once the event's hooks are done. */
  onRun?: (record: HookRunRecord) => void;
  /** Set for a subagent's runner: every payload carries `agent_id` and `agent_type` (docs/CC-COMPAT.md §1.5). */
  agent?: { id: string; type: string };
  /** The hooks' scripts as found at start: a handler whose script changed is not run. */
  scripts?: HookScripts;
  /** The prompt the run works on: `prompt_id` on every event after SessionStart. */
  promptId?: string;
  /** `effort.level` and CLAUDE_EFFORT; default `high`, the API's when a request names none. */
  effort?: string;
  /** The OS sandbox the hooks' commands run in. */
  sandbox?: HookProcessOptions['sandbox'];
  /**
   * The workspace's preparation (SessionOptions.workspaceReady): no command runs before it is
   * done, and none when it failed (the run is stopping then, for that reason).
   */
  ready?: () => Promise<void>;
}

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
export const DEFAULT_EFFORT = 'high';

interface Firing extends RecordContext {
  /** What the matchers test; undefined: every group runs. */
  matchValue?: string;
  payload: Record<string, unknown>;
  signal?: AbortSignal;
  /** The tool call, on tool events: what a handler's `if` rule is matched against. */
  target?: RuleTarget;
}

interface Fired {
  results: HandlerResult[];
  runs: HookRunRecord[];
}

interface ToolRequest {
  toolName: string;
  toolInput: unknown;
  toolUseId: string;
  signal: AbortSignal;
  target?: RuleTarget;
}

export function createHookRunner(options: HookRunnerOptions): SessionHookRunner {
  const hooks = compileHooks(options.config);
  const defaultTimeout = options.defaultTimeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
  const effort = options.effort ?? DEFAULT_EFFORT;
  /** Groups with an invalid matcher already reported: the warning is logged once. */
  const reported = new Set<CompiledGroup>();

  /** Whether the workspace is prepared (waiting for it); false when its preparation failed. */
  const workspaceReady = (): Promise<boolean> =>
    options.ready
      ? options.ready().then(
          () => true,
          () => false,
        )
      : Promise.resolve(true);

  const fire = async (firing: Firing): Promise<Fired> => {
    const plan = planFiring(hooks, firing.event, firing.matchValue, defaultTimeout, (handler) =>
      conditionHolds(handler, firing.target),
    );
    const fired: Fired = { results: [], runs: [] };
    for (const { handler, group, error } of plan.unrunnable) {
      // A required PreToolUse hook that cannot run denies every call, so it is reported each time.
      const failsClosed = handler.required && firing.event === 'PreToolUse';
      if (reported.has(group) && !failsClosed) continue;
      const interpretation = interpretUnrunnable(firing.event, handler, error);
      fired.results.push({ handler, verdict: interpretation.verdict });
      fired.runs.push(recordOf(firing, handler, undefined, interpretation));
    }
    for (const { group } of plan.unrunnable) reported.add(group);
    if (plan.handlers.length > 0 && (await workspaceReady())) {
      const cwd = options.cwd();
      const stdin = JSON.stringify({
        ...commonFields(firing.event, {
          sessionId: options.sessionId,
          transcriptPath: options.transcriptPath,
          cwd,
          ...optional('promptId', options.promptId),
          permissionMode:
            typeof options.permissionMode === 'function'
              ? options.permissionMode()
              : options.permissionMode,
          effort,
          ...optional('agent', options.agent),
        }),
        ...firing.payload,
      });
      const env = {
        ...options.env,
        CLAUDE_PROJECT_DIR: options.projectDir,
        CLAUDE_CODE_SESSION_ID: options.sessionId,
        CLAUDE_EFFORT: effort,
      };
      const ran = await Promise.all(
        plan.handlers.map(async (handler) => {
          const tampered = options.scripts?.check(handler.command, cwd);
          if (tampered !== undefined) {
            return {
              handler,
              result: undefined,
              interpretation: interpretTampered(firing.event, tampered),
            };
          }
          const result = await runHookProcess({
            command: handler.command,
            cwd,
            env,
            stdin,
            timeoutMs: handler.timeoutSeconds * 1000,
            ...(firing.signal ? { signal: firing.signal } : {}),
            ...(options.sandbox && { sandbox: options.sandbox }),
          });
          return { handler, result, interpretation: interpretRun(firing.event, handler, result) };
        }),
      );
      for (const { handler, result, interpretation } of ran) {
        fired.results.push({ handler, verdict: interpretation.verdict });
        fired.runs.push(recordOf(firing, handler, result, interpretation));
      }
    }
    for (const record of fired.runs) options.onRun?.(record);
    return fired;
  };

  const fireForTool = (
    event: 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure',
    request: ToolRequest,
    extra: Record<string, unknown>,
  ) =>
    fire({
      event,
      matchValue: request.toolName,
      payload: {
        tool_name: request.toolName,
        tool_input: toolInputAsSent(request.toolName, request.toolInput),
        ...extra,
      },
      signal: request.signal,
      toolName: request.toolName,
      toolUseId: request.toolUseId,
      ...optional('target', request.target),
    });

  return {
    has: (event: HookEventName) => hooks.has(event),

    async preToolUse(request) {
      const { results, runs } = await fireForTool('PreToolUse', request, {
        tool_use_id: request.toolUseId,
      });
      return { ...mergePreToolUse(results), runs };
    },

    async postToolUse(request) {
      const { results, runs } = await fireForTool('PostToolUse', request, {
        tool_response: request.toolResponse,
        tool_use_id: request.toolUseId,
        ...optional('duration_ms', request.durationMs),
      });
      return { ...mergePostToolUse('PostToolUse', results), runs };
    },

    async postToolUseFailure(request) {
      const { results, runs } = await fireForTool('PostToolUseFailure', request, {
        tool_use_id: request.toolUseId,
        error: request.error,
        ...optional('is_interrupt', request.isInterrupt),
        ...optional('duration_ms', request.durationMs),
      });
      return { ...mergePostToolUse('PostToolUseFailure', results), runs };
    },

    async stop(request) {
      const { results, runs } = await fire({
        event: 'Stop',
        payload: {
          stop_hook_active: request.stopHookActive,
          ...optional('last_assistant_message', request.lastAssistantMessage),
          // CI runs neither background tasks nor scheduled prompts; the lists are always empty.
          background_tasks: [],
          session_crons: [],
        },
        ...optional('signal', request.signal),
      });
      return { ...mergeStop(results), runs };
    },

    async subagentStop(request) {
      const { results, runs } = await fire({
        event: 'SubagentStop',
        ...optional('matchValue', options.agent?.type),
        payload: {
          stop_hook_active: request.stopHookActive,
          ...optional('last_assistant_message', request.lastAssistantMessage),
        },
        ...optional('signal', request.signal),
      });
      return { ...mergeStop(results, 'SubagentStop'), runs };
    },

    async sessionStart(request) {
      const { results, runs } = await fire({
        event: 'SessionStart',
        matchValue: request.source,
        payload: { source: request.source },
        ...optional('signal', request.signal),
      });
      return { ...mergeContext('SessionStart', results), runs };
    },

    async userPromptSubmit(request) {
      const { results, runs } = await fire({
        event: 'UserPromptSubmit',
        payload: { prompt: request.prompt },
        ...optional('signal', request.signal),
      });
      return { ...mergeUserPromptSubmit(results), runs };
    },

    async preCompact(request) {
      const { results, runs } = await fire({
        event: 'PreCompact',
        matchValue: request.trigger,
        // CI has no /compact command, so no instructions from one.
        payload: { trigger: request.trigger, custom_instructions: '' },
        ...optional('signal', request.signal),
      });
      return { ...mergePreCompact(results), runs };
    },

    async sessionEnd(request) {
      const { results, runs } = await fire({
        event: 'SessionEnd',
        matchValue: request.reason,
        payload: { reason: request.reason },
        ...optional('signal', request.signal),
      });
      return { systemMessages: mergeContext('SessionEnd', results).systemMessages, runs };
    },
  };
}

/** `{ [key]: value }`, or nothing when the value is absent (payloads omit unknown fields). */
function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/**
 * A handler's `if` rule (docs/CC-COMPAT.md §1.1): without one it always runs; with one, only on a tool
 * event, and only when the rule matches the call as a deny rule would (any part of a compound
 * command, the file a command names), so a guard meant for `git push` also sees `cd x && git push`.
 */
function conditionHolds(handler: HookHandlerConfig, target: RuleTarget | undefined): boolean {
  if (handler.if === undefined) return true;
  if (target === undefined) return false;
  let rule = conditionRules.get(handler);
  if (rule === undefined) {
    rule = parseRule(handler.if, handler.source);
    conditionRules.set(handler, rule);
  }
  return ruleMatches(rule, target, 'deny');
}

/** Each handler's `if` rule, parsed once rather than on every call it is asked about. */
const conditionRules = new WeakMap<HookHandlerConfig, PermissionRule>();
