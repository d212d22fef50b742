/**
 * The tool contract. One object per tool, one file per tool (tools/builtin/<name>.ts).
 *
 * A call goes through the pipeline (execution/pipeline.ts) in this order:
 *   inputSchema.safeParse → validateInput → PreToolUse hooks → checkPermissions + policy → call()
 *   → PostToolUse hooks → mapToolResultToToolResultBlockParam.
 *
 * `internalInputSchema` is the whole input a tool understands; `inputSchema` (what the model sees
 * and what model input is parsed with) is derived from it by omitting the hidden keys, and is
 * strict, so a model can never reach a parameter only the system may pass.
 */
import type { CommandSandbox } from '../process/run-process.js';
import * as z from 'zod';
import type { FileStateCache } from './file-state.js';
import type { JsonSchema, ToolResultBlock, Usage } from '../model/types.js';
import type { PermissionMode } from '../permissions/types.js';

export type ValidationResult =
  { result: true } | { result: false; message: string; errorCode: number };

/** What a call asks of the policy. Modes and rules decide on this, never on the raw input. */
export interface PermissionRequest {
  /**
   * What rule specifiers match against: the command for Bash, the absolute path for file tools,
   * `domain:<host>` for WebFetch. Absent for tools whose rules only name the tool.
   */
  ruleContent?: string;
  /** read: changes nothing; edit: changes files; execute: runs a program; other: anything else. */
  access: 'read' | 'edit' | 'execute' | 'other';
  /**
   * Absolute paths the call touches; checked against the workspace roots. For a read-only Bash
   * command, what it reads (bash/read-scope.ts), as written and as resolved through symlinks.
   */
  paths?: readonly string[];
  /**
   * What a read-only call may read that no root can hold or that cannot be placed before it
   * runs, one short phrase each: a word known only at run time (`/proc/$PPID/environ`), a kernel
   * file, a recursion that follows symbolic links, git in a repository not the workspace's. The
   * mode default does not count such a call as "read-only inside the workspace".
   */
  readsOutside?: readonly string[];
  /**
   * Files a command names as it runs (Bash: `cat F`, `> F`, `cp A B`), for Read(…) and Edit(…)
   * deny and ask rules (docs/CC-COMPAT.md §2.4). Unlike `paths` they play no part in the workspace check
   * or the mode default: they can only add a denial to what the command is allowed as a command.
   */
  fileOperands?: readonly FileOperand[];
  /**
   * What a command not known to be read-only may change beyond its visible writes (Bash:
   * bash/possible-writes.ts): every word that may name a file, a judge's name inside a script,
   * the tree git or an archive tool rewrites. Read by the judges floor only, which fails closed.
   */
  mayWrite?: readonly FileOperand[];
}

/** A file a command reads or writes, as far as its words tell. */
export interface FileOperand {
  /** Absolute path; with `pattern`, an absolute shell pattern (`/repo/*.env`, `/**\/.env`). */
  path: string;
  /** read: its content is read; write: it is created, changed, moved or removed. */
  access: 'read' | 'write';
  /**
   * Set when the shell expands `path` at run time; `dot`: whether `*` and `?` may match a
   * leading dot (bash's dotglob).
   */
  pattern?: { dot: boolean };
  /**
   * The command removes it (`rm`, `rmdir`, `unlink`). A removal whose target the shell only
   * knows at run time (`rm -rf "$DIR"/*`) is given as the pattern `/*`: it could be anything.
   */
  removes?: true;
}

export interface ShellState {
  /** The Bash tool's working directory; kept between calls while inside the workspace. */
  cwd: string;
}

/** One entry of the model's task list (TodoWrite). */
export interface TodoItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The same task in the present continuous ("Running the tests"), shown while it runs. */
  activeForm: string;
}

/** The model's task list, kept for the session; TodoWrite replaces it whole. */
export interface TodoStore {
  todos: readonly TodoItem[];
}

/**
 * The session's permission mode, as the permission decision reads it. ExitPlanMode moves it out
 * of plan for the rest of the run, so every later call is decided in the new mode.
 */
export interface PermissionModeState {
  mode: PermissionMode;
  /** Where an approved ExitPlanMode goes. */
  readonly afterPlan: PermissionMode;
}

/** What the tools need of the OS sandbox: to run a command in it, and what it shows. */
export interface SandboxView extends CommandSandbox {
  /** Whether a real absolute path is out of the sandbox's sight (/proc, the home, the runner's). */
  isHidden(path: string): boolean;
  /** Whether the sandbox may write a real absolute path. */
  isWritable(path: string): boolean;
  /** Where a path, as the sandbox names it, is for this process (its /tmp is a private one). */
  hostPath(path: string): string;
  /**
   * Its mounts (mount-plan.ts), when known: a search of a folder with nothing hidden inside it
   * needs no check per file. Absent: every file found is checked.
   */
  readonly plan?: {
    readonly mounts: readonly { readonly kind: string; readonly target: string }[];
  };
  /**
   * The most tasks (processes and threads) a command in it may have at once; absent where the
   * kernel holds it to none (ci-agent runs as root, whom RLIMIT_NPROC does not hold).
   */
  readonly maxTasks?: number;
  /** Where the network proxy's refusals stand; see networkRefusalsSince. */
  networkMark(): number;
  /**
   * What the proxy refused since the mark (calls that overlap share them): a client often shows
   * only "403", and the reason says which host and which policy field would allow it.
   */
  networkRefusalsSince(mark: number): string[];
}

export interface ToolContext {
  /** Where the session started: relative paths, memory files and rules anchor here. */
  readonly projectDir: string;
  /** The directories file tools may change: projectDir plus additional directories (resolved). */
  readonly workspaceRoots: readonly string[];
  readonly shell: ShellState;
  readonly fileState: FileStateCache;
  readonly signal: AbortSignal;
  readonly toolUseId: string;
  /** Environment for child processes, with secrets removed (docs/DECISIONS.md #16). */
  readonly env: Readonly<Record<string, string>>;
  /** Path of a ripgrep binary, or null to use the built-in search. */
  readonly ripgrepPath: string | null;
  /**
   * The OS sandbox the session's commands run in (src/sandbox/); absent: unsandboxed. The file
   * tools keep to what it shows and lets write.
   */
  readonly sandbox?: SandboxView;
  /**
   * Whether the policy's Read deny rules cover this absolute path (docs/CC-COMPAT.md §2.4). The search
   * tools leave such files out of their results and say how many; absent: nothing is hidden.
   */
  readonly isReadDenied?: (absolutePath: string) => boolean;
  /** The session's task list; absent: TodoWrite keeps nothing between calls. */
  readonly todos?: TodoStore;
  /** The session's mode; absent: the session is not in plan mode and cannot switch. */
  readonly permissionMode?: PermissionModeState;
  /**
   * Asks a small, fast model one question and returns its text answer (WebFetch runs the call's
   * prompt over the page with it). Absent: a tool answers without a model.
   */
  readonly queryModel?: (query: ModelQuery) => Promise<string>;
  /**
   * Runs a subagent for the Agent tool: a nested loop with its own conversation and a restricted
   * tool set, under the session's policy and hooks (agent/subagent.ts). Absent inside a subagent
   * (no agent starts another) and wherever no session provides one: the Agent tool refuses.
   */
  readonly runSubagent?: (request: SubagentRequest) => Promise<SubagentRun>;
}

/** One Agent call's task for a subagent. */
export interface SubagentRequest {
  description: string;
  prompt: string;
  /** A known type (the Agent tool validated it): `general-purpose`, `Explore`. */
  subagentType: string;
  /** The Agent call's tool_use id: the subagent's events and log lines are filed under it. */
  toolUseId: string;
  /** The Agent call's signal: the run's abort, its time limit and the call's ceiling. */
  signal: AbortSignal;
}

/** How a subagent's run ended, in the terms of the run result (agent/events.ts RunResult). */
export interface SubagentRun {
  agentId: string;
  /** `success` or the limit or failure that ended it (`error_max_turns`, …). */
  subtype: string;
  isError: boolean;
  /** Its last text: on success, its final answer. */
  text: string;
  errors: string[];
  numTurns: number;
  durationMs: number;
  toolUseCount: number;
  usage: Usage;
  totalCostUsd: number;
}

/** One side question to a model, outside the conversation. */
export interface ModelQuery {
  system: string;
  prompt: string;
  maxTokens: number;
  signal?: AbortSignal;
}

export interface ToolProgress {
  type: 'progress';
  message: string;
}

export interface ToolOutput<Output> {
  /** The structured result: what PostToolUse hooks receive as `tool_response`. */
  data: Output;
}

export type ToolCallGenerator<Output> = AsyncGenerator<ToolProgress, ToolOutput<Output>, void>;

/** What a session is like when it starts: what decides which tools it offers. */
export interface SessionTraits {
  permissionMode: PermissionMode;
}

/** How a tool is written. `defineTool` fills in the safe defaults and erases the types. */
export interface ToolDefinition<Schema extends z.ZodObject, Output> {
  name: string;
  /** Other names rules and hook matchers may use for this tool (e.g. Task for Agent). */
  aliases?: readonly string[];
  description: string;
  internalInputSchema: Schema;
  /** Keys of internalInputSchema the model must never see or set. */
  hiddenKeys?: readonly (keyof Schema['shape'] & string)[];
  userFacingName?(input: Partial<z.infer<Schema>> | undefined): string;
  isConcurrencySafe?(input: z.infer<Schema>): boolean;
  isReadOnly?(input: z.infer<Schema>): boolean;
  requiresUserInteraction?(): boolean;
  /** Whether a session starting this way offers the tool at all (default: yes). */
  isEnabled?(session: SessionTraits): boolean;
  validateInput?(input: z.infer<Schema>, context: ToolContext): Promise<ValidationResult>;
  checkPermissions(input: z.infer<Schema>, context: ToolContext): PermissionRequest;
  call(input: z.infer<Schema>, context: ToolContext): ToolCallGenerator<Output>;
  mapToolResultToToolResultBlockParam(output: Output, toolUseId: string): ToolResultBlock;
}

/**
 * The erased form the registry and the pipeline hold. Every method taking `input` is only ever
 * called with the result of parsing `inputSchema` or `internalInputSchema`.
 */
export interface Tool {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly description: string;
  readonly inputSchema: z.ZodType;
  readonly internalInputSchema: z.ZodType;
  readonly hiddenKeys: readonly string[];
  userFacingName(input?: unknown): string;
  isConcurrencySafe(input: unknown): boolean;
  isReadOnly(input: unknown): boolean;
  requiresUserInteraction(): boolean;
  isEnabled(session: SessionTraits): boolean;
  validateInput(input: unknown, context: ToolContext): Promise<ValidationResult>;
  checkPermissions(input: unknown, context: ToolContext): PermissionRequest;
  call(input: unknown, context: ToolContext): ToolCallGenerator<unknown>;
  mapToolResultToToolResultBlockParam(output: unknown, toolUseId: string): ToolResultBlock;
  /** The JSON Schema the model sees, derived from inputSchema. */
  jsonSchema(): JsonSchema;
}

export function defineTool<Schema extends z.ZodObject, Output>(
  definition: ToolDefinition<Schema, Output>,
): Tool {
  const hiddenKeys = definition.hiddenKeys ?? [];
  const internal = definition.internalInputSchema.strict();
  const hidden = new Set<string>(hiddenKeys);
  const visibleShape = Object.fromEntries(
    Object.entries(internal.shape).filter(([key]) => !hidden.has(key)),
  );
  const external = z.strictObject(visibleShape);
  let cachedJsonSchema: JsonSchema | undefined;
  // The casts below are sound by construction: the pipeline parses input with one of these
  // schemas before calling any of the methods.
  type Input = z.infer<Schema>;
  const typed = (input: unknown) => input as Input;
  return {
    name: definition.name,
    aliases: definition.aliases ?? [],
    description: definition.description,
    inputSchema: external,
    internalInputSchema: internal,
    hiddenKeys,
    userFacingName: (input) =>
      definition.userFacingName?.(input as Partial<Input> | undefined) ?? definition.name,
    isConcurrencySafe: (input) => definition.isConcurrencySafe?.(typed(input)) ?? false,
    isReadOnly: (input) => definition.isReadOnly?.(typed(input)) ?? false,
    requiresUserInteraction: () => definition.requiresUserInteraction?.() ?? false,
    isEnabled: (session) => definition.isEnabled?.(session) ?? true,
    validateInput: async (input, context) =>
      definition.validateInput ? definition.validateInput(typed(input), context) : { result: true },
    checkPermissions: (input, context) => definition.checkPermissions(typed(input), context),
    call: (input, context) => definition.call(typed(input), context),
    mapToolResultToToolResultBlockParam: (output, toolUseId) =>
      definition.mapToolResultToToolResultBlockParam(output as Output, toolUseId),
    jsonSchema: () => (cachedJsonSchema ??= toModelJsonSchema(external)),
  };
}

/** JSON Schema for the `tools` array: draft 2020-12 without the `$schema` marker. */
export function toModelJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' });
  return rest;
}

/** The error text the model sees for failures it can correct (docs/CC-COMPAT.md §3, general conventions). */
export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}
