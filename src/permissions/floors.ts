/**
 * The floors (docs/DECISIONS.md #19): refusals evaluated before anything may ask or allow, so that no ask
 * rule, hook answer, mode, allow rule or `onAsk` answer lifts them. In order (the first that
 * holds names the refusal):
 *   1. deny rules
 *   2. critical removals (`rm -rf /`, `~`, the project or a parent), in every mode
 *   2a. sandbox — a file tool reading what the OS sandbox hides (/proc, the home's credentials,
 *      the runner's folders), in every mode: the tools run outside the sandbox, and would
 *      otherwise be the way around it
 *   2b. credentials — any tool reading or changing a model provider's credentials file
 *      (credential-files.ts: what GOOGLE_APPLICATION_CREDENTIALS and its kin name, and the
 *      `gha-creds-*.json` google-github-actions/auth writes into the workspace), in every mode
 *   3. workspace — a change outside the workspace roots: an edit's paths, in every mode; a file
 *      a command visibly writes (`> ~/.bashrc`, `cp x /etc/`), in every mode but
 *      bypassPermissions (which lets commands do what they like, as in Claude Code)
 *   4. judges (judges.ts: the policy, settings, hook scripts, `.claude/`, workflows), in every mode
 *   5. protected paths (protected-paths.ts), in every mode but bypassPermissions
 *   6. plan mode — any call that could change something
 */
import { isStandardDevice } from '../tools/builtin/bash/read-paths.js';
import type { FileOperand } from '../tools/tool.js';
import { isInside } from '../tools/paths.js';
import { criticalRemovals } from './critical-paths.js';
import { judgesWritten } from './judges.js';
import { protectedPaths } from './protected-paths.js';
import type { RuleTarget } from './rules.js';
import { bashAnalysisOf, bashPartsMatched, ruleMatches } from './rules.js';
import type { DecisionSource, PermissionPolicy, PermissionRule } from './types.js';

export interface FloorRequest extends RuleTarget {
  readOnly: boolean;
}

export interface Verdict {
  behavior: 'allow' | 'deny' | 'ask';
  source: DecisionSource;
  matchedRules: readonly PermissionRule[];
  reason: string;
}

/** Besides the null device and the standard streams: the terminal and open descriptors, no files. */
const OTHER_STREAMS = /^\/dev\/(?:tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;

export function floorVerdict(request: FloorRequest, policy: PermissionPolicy): Verdict | undefined {
  const written = writtenPaths(request);
  return (
    denyRuleVerdict(request, policy) ??
    criticalVerdict(request, policy) ??
    sandboxVerdict(request, policy) ??
    credentialsVerdict(request, policy) ??
    outsideVerdict(request, policy) ??
    judgeVerdict(request, policy, written) ??
    judgeVerdict(request, policy, request.request.mayWrite ?? [], possibleWriteReason) ??
    protectedVerdict(request, policy, written) ??
    planVerdict(request, policy)
  );
}

export function denyRuleVerdict(
  request: RuleTarget,
  policy: PermissionPolicy,
): Verdict | undefined {
  const denied = policy.deny.filter((rule) => ruleMatches(rule, request, 'deny'));
  if (denied.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'deny-rule',
    matchedRules: denied,
    reason: `denied by rule ${describeRules(denied)}${bashDenialDetail(request, denied)}`,
  };
}

export function describeRules(rules: readonly PermissionRule[]): string {
  return rules.map((rule) => `'${rule.text}' (${rule.source})`).join(', ');
}

/** What the call changes: an edit's paths, and what a command visibly writes, with patterns. */
function writtenPaths(request: RuleTarget): FileOperand[] {
  return [...editedPaths(request), ...commandWrites(request)];
}

function editedPaths(request: RuleTarget): FileOperand[] {
  const edits = request.request.access === 'edit' ? (request.request.paths ?? []) : [];
  return edits.map((path) => ({ path, access: 'write' }));
}

function commandWrites(request: RuleTarget): FileOperand[] {
  return (request.request.fileOperands ?? []).filter(
    (operand) =>
      operand.access === 'write' &&
      !isStandardDevice(operand.path) &&
      !OTHER_STREAMS.test(operand.path),
  );
}

function sandboxVerdict(request: RuleTarget, policy: PermissionPolicy): Verdict | undefined {
  const hides = policy.sandboxHides;
  // Bash runs inside the sandbox, which holds for it; the other tools read from out here.
  if (!hides || request.request.access !== 'read' || request.toolName === 'Bash') return undefined;
  const hidden = (request.request.paths ?? []).filter((path) => hides(path));
  if (hidden.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'sandbox',
    matchedRules: [],
    reason: `${request.toolName} may not read ${unique(hidden).join(', ')}: the sandbox keeps it out of sight of everything the agent runs (kernel interfaces, the home directory's credentials, the runner's files); nothing allows that in CI`,
  };
}

function credentialsVerdict(request: RuleTarget, policy: PermissionPolicy): Verdict | undefined {
  const isCredential = policy.isCredentialFile;
  if (!isCredential) return undefined;
  const touched = [
    ...(request.request.paths ?? []),
    ...(request.request.fileOperands ?? []).map((operand) => operand.path),
  ].filter((path) => isCredential(path));
  if (touched.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'credentials',
    matchedRules: [],
    reason: `${request.toolName} may not touch ${unique(touched).join(', ')}: it holds the model provider's credentials, which nothing the agent runs may read; nothing allows that in CI`,
  };
}

function outsideVerdict(request: RuleTarget, policy: PermissionPolicy): Verdict | undefined {
  const written = [
    ...editedPaths(request),
    ...(policy.mode === 'bypassPermissions' ? [] : commandWrites(request)),
  ];
  const outside = written
    .filter((operand) => {
      const known = operand.pattern ? staticPrefix(operand.path) : operand.path;
      // A pattern that starts at `/` names a directory known only at run time: not judged here.
      if (known === '/') return false;
      return !policy.workspaceRoots.some((root) => isInside(known, root));
    })
    .map((operand) => operand.path);
  if (outside.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'workspace',
    matchedRules: [],
    reason: `${request.toolName} may not change files outside the workspace (${unique(outside).join(', ')}); nothing allows that in CI`,
  };
}

function criticalVerdict(request: RuleTarget, policy: PermissionPolicy): Verdict | undefined {
  const critical = criticalRemovals(request.request.fileOperands ?? [], {
    projectDir: request.projectDir ?? policy.workspaceRoots[0],
    homeDir: request.homeDir,
  });
  if (critical.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'critical-path',
    matchedRules: [],
    reason: `${request.toolName} would remove ${critical.join(', ')}: a critical path (the root, a top-level directory, the home or project directory or a parent of it, or a recursive removal of what is named only at run time, such as \`rm -rf "$DIR"\` or \`rm -rf "$DIR"/*\`, which is the root or the home when the variable is); nothing allows that in CI. To remove a build or scratch directory, name the directory to remove literally (\`rm -rf build\`)`,
  };
}

/** What the judges floor says of a call that visibly writes a judge. */
function visibleWriteReason(toolName: string, judges: string): string {
  return `${toolName} would change ${judges}, which judges this run (the policy, Claude Code settings and hooks, MCP configuration, CI workflows); no mode, rule or hook lets the agent change what judges it`;
}

/**
 * Fail closed (bash/possible-writes.ts): a command not known to be read-only that names a judge,
 * holds a judge's name in a script, or rewrites the tree (git, an archive, a patch) where
 * judges live.
 */
function possibleWriteReason(toolName: string, judges: string): string {
  return `${toolName} could change ${judges}, which judges this run (the policy, Claude Code settings and hooks, MCP configuration, CI workflows): the command is not known to be read-only and names it, or rewrites the tree it is in (git checkout of another ref, reset --hard, stash pop, apply; tar x, unzip, patch). No mode, rule or hook lets the agent change what judges it. Read it with the Read tool or a read-only command on its own; for git or an archive, name the paths or the directory you mean (\`git checkout <ref> -- src/\`, \`tar -xf x.tar -C build\`)`;
}

function judgeVerdict(
  request: RuleTarget,
  policy: PermissionPolicy,
  written: readonly FileOperand[],
  reason: (toolName: string, judges: string) => string = visibleWriteReason,
): Verdict | undefined {
  const judges = judgesWritten(written, policy.workspaceRoots, policy.judgePaths);
  if (judges.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'judge',
    matchedRules: [],
    reason: reason(request.toolName, unique(judges).join(', ')),
  };
}

function protectedVerdict(
  request: RuleTarget,
  policy: PermissionPolicy,
  written: readonly FileOperand[],
): Verdict | undefined {
  if (policy.mode === 'bypassPermissions') return undefined;
  const guarded = protectedPaths(
    written.map((operand) => operand.path),
    policy.workspaceRoots,
  );
  if (guarded.length === 0) return undefined;
  return {
    behavior: 'deny',
    source: 'protected-path',
    matchedRules: [],
    reason: `${request.toolName} would change ${unique(guarded).join(', ')}: a protected path (git, Claude Code, editor and shell configuration); only bypassPermissions mode allows that in CI`,
  };
}

function planVerdict(request: FloorRequest, policy: PermissionPolicy): Verdict | undefined {
  // ExitPlanMode is read-only and asks (it needs a person); it is not refused here.
  if (policy.mode !== 'plan' || (request.readOnly && request.request.access !== 'edit')) {
    return undefined;
  }
  return {
    behavior: 'deny',
    source: 'mode',
    matchedRules: [],
    reason: `plan mode is read-only and ${request.toolName} could change something; present your plan with ExitPlanMode, changes can be made once it is approved`,
  };
}

/** The directory part of a pattern before its first wildcard segment. */
function staticPrefix(pattern: string): string {
  const segments = pattern.split('/');
  const wild = segments.findIndex((segment) => /[*?[{]/.test(segment));
  const prefix = segments.slice(0, wild === -1 ? segments.length : wild).join('/');
  return prefix === '' ? '/' : prefix;
}

/**
 * What a Bash deny rule matched: the parts it names, or why it matched a command it cannot read
 * (an unparseable command and a part that runs what only run time knows count as matched).
 */
function bashDenialDetail(request: RuleTarget, denied: readonly PermissionRule[]): string {
  if (request.toolName !== 'Bash' || denied.every((rule) => rule.content === undefined)) return '';
  const analysis = bashAnalysisOf(request);
  if (!analysis.ok) {
    return `: the command could not be parsed (${analysis.reason}), so nothing shows it stays clear of what the rule denies; write it as simpler commands (no loops or functions) or use a dedicated tool`;
  }
  const parts = unique(
    denied.flatMap((rule) => bashPartsMatched(rule, request)).map((part) => part.text),
  );
  const opaque = analysis.parts.filter((part) => part.opaque).map((part) => part.text);
  const named = parts.filter((text) => !opaque.includes(text));
  // A command of one part is named in full by the rule already.
  if (analysis.parts.length === 1 && opaque.length === 0) return '';
  if (named.length > 0) return ` for ${named.map((text) => `\`${text}\``).join(', ')}`;
  if (opaque.length > 0) {
    return ` for ${opaque.map((text) => `\`${text}\``).join(', ')}, which runs a command known only at run time (a variable, a substitution or eval), so every Bash deny rule counts as matching it`;
  }
  return '';
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
