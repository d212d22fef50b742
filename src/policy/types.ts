/**
 * What the policy loader produces: one frozen `LoadedPolicy` merged from the ci-agent policy file
 * and the Claude Code settings files, each rule and hook remembering the file it came from.
 */
import type { LoadedSandbox, SandboxLayer } from './sandbox-settings.js';
import type { HooksConfig } from '../hooks/config.js';
import type { McpPolicy } from '../mcp/mcp-policy.js';
import type { PermissionMode, PermissionRule } from '../permissions/types.js';
import type { PolicyIssue } from './policy-error.js';

/**
 * Where a layer came from, in precedence order for scalars (highest first): the ci-agent policy,
 * `--settings`, `.claude/settings.local.json`, `.claude/settings.json`, `~/.claude/settings.json`.
 */
export const SOURCE_KINDS = ['policy', 'flag', 'local', 'project', 'user'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The source path of a `--settings` value that is JSON rather than a file. */
export const INLINE_SETTINGS = '--settings';

/** The text of one file (or `--settings` JSON string) to parse; the core never reads the disk. */
export interface SourceText {
  kind: SourceKind;
  /** How messages and rule sources name it: a project-relative path, an absolute path, or a flag. */
  path: string;
  text: string;
  /** The directory `/path` rule specifiers and relative directories in this source resolve against. */
  anchorDir: string;
  /** `~/` in additional directories; absent: `~/` paths are kept as written. */
  home?: string;
  /**
   * MCP servers configured outside this source (`.mcp.json`, the policy's `mcp.servers`): a rule
   * naming another server gets a warning. Absent: such rules are not checked.
   */
  mcpServers?: ReadonlySet<string>;
}

export type AskBehavior = 'allow' | 'deny';

export interface AskResolution {
  /** What an ask becomes when no per-tool entry applies (docs/DECISIONS.md #9). */
  default: AskBehavior;
  /** Per tool name; look up with `askBehaviorFor`, which checks own properties only. */
  byTool: Readonly<Record<string, AskBehavior>>;
}

export interface Limits {
  maxTurns?: number;
  maxBudgetUsd?: number;
  timeoutMinutes?: number;
}

/** What the action may push (the `push` section). */
export interface PushPolicy {
  /** Whether a commit may change CI itself: workflows, actions, the policy file. */
  allowCiChanges: boolean;
}

/** One parsed file, before merging. Settings files leave the policy-only fields empty. */
export interface PolicyLayer {
  source: PolicySource;
  allow: PermissionRule[];
  deny: PermissionRule[];
  ask: PermissionRule[];
  defaultMode?: PermissionMode;
  /** Absolute paths. */
  additionalDirectories: string[];
  hooks: HooksConfig;
  /** A settings file's `env`, refused names already dropped; absent in the policy file. */
  env?: Record<string, string>;
  /** The model connection's variables of a settings file's `env` (settings-env.ts). */
  modelEnv?: Record<string, string>;
  /** The `sandbox` section (sandbox-settings.ts). */
  sandbox?: SandboxLayer;
  warnings: string[];
  /** The warnings with their file and position, in the same order; absent: none is located. */
  warningIssues?: readonly PolicyIssue[];
}

/** The ci-agent policy file adds what only it may say. */
export interface PolicyFileLayer extends PolicyLayer {
  askResolution?: Partial<AskResolution>;
  limits: Limits;
  passEnv: string[];
  /** The `mcp` section: servers, trusted and required ones, the `${VAR}` allow-list. */
  mcp?: McpPolicy;
  /** Project-relative settings files to read; undefined: the defaults. */
  settingsFiles?: string[];
  push?: PushPolicy;
}

export interface PolicySource {
  path: string;
  kind: SourceKind;
}

export interface LoadedPolicy {
  /** Every file that contributed, highest precedence first. */
  sources: readonly PolicySource[];
  permissions: {
    allow: readonly PermissionRule[];
    deny: readonly PermissionRule[];
    ask: readonly PermissionRule[];
    defaultMode?: PermissionMode;
    /** The file that set `defaultMode`, for the log. */
    defaultModeSource?: string;
    /** Absolute, without duplicates. */
    additionalDirectories: readonly string[];
  };
  askResolution: AskResolution;
  hooks: HooksConfig;
  limits: Readonly<Limits>;
  /** Secret environment variable names the policy lets through to tools and hooks. */
  passEnv: readonly string[];
  /** The settings files' `env`, for tools and hooks; per name, the highest-precedence file wins. */
  env: Readonly<Record<string, string>>;
  /**
   * The model connection's variables from the settings files' `env` (CLAUDE_CODE_USE_BEDROCK,
   * AWS_REGION, ANTHROPIC_MODEL, …), each with the file that set it; the highest-precedence
   * file wins. The CLI lays them over its environment, as Claude Code does; the action does not.
   */
  modelEnv: Readonly<Record<string, { value: string; source: string }>>;
  /** MCP servers and their trust, from the policy file alone. */
  mcp: McpPolicy;
  /** What the action may push, from the policy file alone. */
  push: Readonly<PushPolicy>;
  /** The sandbox's network and file-system lists, and whether a source turned it on or off. */
  sandbox: Readonly<LoadedSandbox>;
  /** Ignored keys and entries, each naming the file and where in it. */
  warnings: readonly string[];
  /** The located ones among them, with file, line and column apart (annotations on the file). */
  warningIssues: readonly PolicyIssue[];
  /**
   * The text each source was read from, as a SHA-256 (source-digests.ts): what the tool log
   * records as the policy in force, so that a replay can tell when it differs. Set by
   * loadPolicy; absent when the layers were merged without their texts.
   */
  sourceDigests?: readonly SourceDigest[];
}

/** One source of the policy and the SHA-256 of its text (hex). */
export interface SourceDigest {
  path: string;
  kind: SourceKind;
  sha256: string;
}

/** Reads a file's text; undefined when there is none. */
export type ReadFile = (absolutePath: string) => Promise<string | undefined>;
