/**
 * Permission vocabulary shared by the policy, the pipeline and the tool log.
 */

export const PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'dontAsk',
  'bypassPermissions',
] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type Behavior = 'allow' | 'deny' | 'ask';

/** A parsed permission rule: `Tool` or `Tool(content)`, remembered with where it came from. */
export interface PermissionRule {
  /** The text as written, for logs and messages. */
  text: string;
  toolName: string;
  /** The specifier inside the parentheses; undefined for a bare tool name or `Tool(*)`. */
  content?: string;
  /** Where the rule came from: a file path, `--allowedTools`, `--disallowedTools`, … */
  source: string;
  /**
   * The directory a `/path` specifier is relative to (docs/CC-COMPAT.md §2.4): the project root for
   * `.claude/settings.json`, the file's directory for `--settings FILE`, `~/.claude` for user
   * settings, the original cwd for flags. Absent: the project directory.
   */
  anchorDir?: string;
}

export interface PermissionPolicy {
  mode: PermissionMode;
  allow: readonly PermissionRule[];
  deny: readonly PermissionRule[];
  ask: readonly PermissionRule[];
  /** What an unanswerable ask becomes (docs/DECISIONS.md #9): deny unless the policy says allow. */
  askDefault: 'allow' | 'deny';
  /** Per tool (by name or alias), overriding askDefault: e.g. Edit → allow, Bash → deny. */
  askDefaultByTool?: Readonly<Record<string, 'allow' | 'deny'>>;
  /**
   * The file whose `onAsk` set askDefault and askDefaultByTool, named when an ask is answered
   * allow (the policy file; absent: nothing set them).
   */
  askDefaultSource?: string;
  /**
   * The file a denial's suggested allow rules go in (denial-advice.ts): the one the run read
   * them from, as the user knows it (`.github/ci-agent.yml`, `.claude/settings.json`).
   */
  allowRulesFile?: string;
  /** Directories file changes may touch: the project plus additional directories. */
  workspaceRoots: readonly string[];
  /**
   * Files that judge the run wherever they are (judges.ts): the policy and settings files and
   * the scripts hooks run, absolute and resolved through symlinks.
   */
  judgePaths?: readonly string[];
  /**
   * Whether the OS sandbox hides a real absolute path (/proc, the home, the runner's folders):
   * the file tools, which run outside it, read nothing it hides. Absent: no sandbox.
   */
  sandboxHides?: (path: string) => boolean;
  /**
   * Whether a real absolute path holds a model provider's credentials (credential-files.ts): no
   * tool reads or changes it, in every mode. Absent: none is known.
   */
  isCredentialFile?: (path: string) => boolean;
}

/** Which step of the evaluation order produced the decision. */
export type DecisionSource =
  | 'sandbox'
  | 'credentials'
  | 'workspace'
  | 'deny-rule'
  | 'hook'
  | 'ask-rule'
  | 'user-interaction'
  | 'protected-path'
  | 'judge'
  | 'critical-path'
  | 'mode'
  | 'allow-rule'
  | 'default';

export interface PermissionDecision {
  /** The outcome after asks were resolved: only allow or deny reach the tool. */
  behavior: 'allow' | 'deny';
  /** True when the evaluation said "ask" and the policy default answered. */
  askResolved: boolean;
  source: DecisionSource;
  matchedRules: readonly PermissionRule[];
  /** One sentence for the log and the PR comment. */
  reason: string;
  /**
   * For a denial: how the policy's owner could allow the call, or why nothing can
   * (denial-advice.ts); the pipeline adds it, decide() does not.
   */
  advice?: DenialAdvice;
}

/** A PreToolUse hook's say, as the decision function sees it. */
export interface HookDecision {
  behavior: Behavior;
  reason?: string;
  /** The hook command that decided, for the log. */
  source: string;
}

/** How a denied call could be allowed, or why it cannot be (denial-advice.ts). */
export interface DenialAdvice {
  /** Whether some change of the policy lets this call through (and the fields below say which). */
  allowable: boolean;
  /** One sentence for the person who owns the policy: what to change, or why nothing can. */
  text: string;
  /** Allow rules to add to `permissions.allow` in `file`. */
  addRules: readonly string[];
  /** The file the allow rules go in. */
  file?: string;
  /** Deny or ask rules in the way, to remove from where they came from. */
  removeRules: readonly { rule: string; list: 'deny' | 'ask'; source: string }[];
  /** Instead (for an ask): `permissions.onAsk.tools.<tool>: allow` in the policy file. */
  onAsk?: { tool: string; file: string };
}
