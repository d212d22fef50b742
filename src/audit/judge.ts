/**
 * `ci-agent audit judge --policy FILE`: every call a run recorded, decided again under another
 * policy (an organisation's stricter one), to list what that policy would have refused.
 *
 *   1. the policy is loaded as a run loads it (policy/load-policy.ts: the file, the settings
 *      files it lists or the project's defaults under `projectDir`), so a bad file gives the
 *      same error naming file, field and expected form (PolicyError)
 *   2. it becomes the PermissionPolicy a session would build from it (agent/session.ts): its
 *      mode (`defaultMode`, else `default`), rules, onAsk answers and judge files
 *   3. each call's recorded input is parsed with its tool's schema, turned into the request the
 *      pipeline decides on (execution/pipeline.ts permissionRequestOf) and decided with
 *      `decide()`, the run's own function, with CI's semantics: an ask resolves to the policy's
 *      onAsk answer, and counts as an ask whatever that answer is
 *
 * Not replayed: PreToolUse hooks (the judged policy's hooks would have to run), a `cd` that
 * moved the Bash tool's directory (each command is judged from `projectDir`), and the sandbox.
 * An MCP tool is judged as one whose server is not trusted (access `other`).
 */
import { homedir } from 'node:os';
import { permissionRequestOf } from '../execution/pipeline.js';
import type { DecisionRequest } from '../permissions/decide.js';
import { decide } from '../permissions/decide.js';
import type { PermissionDecision, PermissionPolicy } from '../permissions/types.js';
import { decisionOptions } from '../policy/ask-resolution.js';
import { loadPolicy } from '../policy/load-policy.js';
import type { ReadFile } from '../policy/types.js';
import { builtinTools } from '../tools/builtin/index.js';
import { FileStateCache } from '../tools/file-state.js';
import { expandPath, realPathOf } from '../tools/paths.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/tool.js';
import type { Finding } from './findings.js';
import { inputSummary, neutralise } from './explain.js';
import type { AuditCall, AuditRun } from './records.js';

export const JUDGE_FORMAT = 'ci-agent-audit-judge';
export const JUDGE_VERSION = 1;

export interface JudgeOptions {
  /** The policy file to judge with (absolute, or relative to `cwd`). */
  policyPath: string;
  /**
   * Where the run's workspace was: recorded paths are absolute there, and rules anchor to it.
   * Default: the `cwd` of the log's init line.
   */
  projectDir?: string;
  /** Where a relative `policyPath` resolves; default: the process's working directory. */
  cwd?: string;
  readFile?: ReadFile;
}

/** The judged policy, as a session would decide with it. */
export interface JudgePolicy {
  /** The files it was read from, highest precedence first. */
  sources: readonly string[];
  policy: PermissionPolicy;
}

export type Verdict = 'allow' | 'deny' | 'ask' | 'undecidable';

export interface JudgedCall {
  index: number;
  toolUseId: string;
  tool: string;
  /** The command, path or URL the call is known by. */
  summary: string;
  /** What the run decided (absent: the call ended before a decision). */
  recorded?: 'allow' | 'deny';
  verdict: Verdict;
  /** The judged policy's decision; absent when undecidable. */
  decision?: {
    behavior: 'allow' | 'deny';
    askResolved: boolean;
    source: string;
    reason: string;
    rules: { rule: string; source: string }[];
  };
  /** Why the call could not be judged. */
  note?: string;
}

export interface Judgement {
  format: typeof JUDGE_FORMAT;
  version: typeof JUDGE_VERSION;
  policySources: readonly string[];
  calls: JudgedCall[];
  /** judge-would-deny, judge-would-ask and judge-undecidable, in call order. */
  findings: Finding[];
}

/** Steps 1–2. Throws PolicyError for a bad file, as a run would. */
export async function loadJudgePolicy(
  options: JudgeOptions & { projectDir: string },
): Promise<JudgePolicy> {
  const { projectDir } = options;
  const loaded = await loadPolicy({
    projectDir,
    cwd: options.cwd ?? process.cwd(),
    policyPath: options.policyPath,
    ...(options.readFile && { readFile: options.readFile }),
  });
  const { judgePaths, ...asks } = decisionOptions(loaded);
  const policy: PermissionPolicy = {
    mode: loaded.permissions.defaultMode ?? 'default',
    allow: loaded.permissions.allow,
    deny: loaded.permissions.deny,
    ask: loaded.permissions.ask,
    ...asks,
    workspaceRoots: [projectDir, ...loaded.permissions.additionalDirectories],
    judgePaths: judgePaths.map((path) => realPathOf(expandPath(path, projectDir))),
  };
  return { sources: loaded.sources.map((source) => source.path), policy };
}

/** Step 3 for every call of the run. */
export function judgeCalls(run: AuditRun, judged: JudgePolicy, projectDir: string): Judgement {
  const registry = new ToolRegistry(builtinTools);
  const calls = run.calls.map((call) => judgeCall(call, registry, judged.policy, projectDir));
  return {
    format: JUDGE_FORMAT,
    version: JUDGE_VERSION,
    policySources: judged.sources,
    calls,
    findings: calls.flatMap(findingOf),
  };
}

/** Loads the policy and judges the run: what `audit judge` does. */
export async function judgeRun(run: AuditRun, options: JudgeOptions): Promise<Judgement> {
  const projectDir = options.projectDir ?? run.setting?.cwd;
  if (projectDir === undefined) {
    throw new Error(
      'the log has no init line with the run\'s "cwd": give the workspace directory the run used',
    );
  }
  const judged = await loadJudgePolicy({ ...options, projectDir });
  return judgeCalls(run, judged, projectDir);
}

function judgeCall(
  call: AuditCall,
  registry: ToolRegistry,
  policy: PermissionPolicy,
  projectDir: string,
): JudgedCall {
  const base = {
    index: call.index,
    toolUseId: call.toolUseId,
    tool: call.tool,
    summary: inputSummary(call),
    ...(call.decision && { recorded: call.decision.behavior }),
  };
  const request = requestOf(call, registry, projectDir);
  if (typeof request === 'string') return { ...base, verdict: 'undecidable', note: request };
  const decision = decide(request, policy);
  return { ...base, verdict: verdictOf(decision), decision: decisionRecord(decision) };
}

/** What the pipeline would decide on for this call, or why there is nothing to decide on. */
function requestOf(
  call: AuditCall,
  registry: ToolRegistry,
  projectDir: string,
): DecisionRequest | string {
  if (call.tool.startsWith('mcp__')) {
    return {
      toolName: call.tool,
      aliases: [],
      request: { access: 'other' },
      projectDir,
      homeDir: homedir(),
      readOnly: false,
      requiresUserInteraction: false,
    };
  }
  const tool = registry.find(call.tool);
  if (!tool) return `no built-in tool is called ${JSON.stringify(call.tool)}`;
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) return `the recorded input does not fit ${tool.name}'s schema`;
  try {
    return permissionRequestOf(tool, parsed.data, replayContext(projectDir, call.toolUseId));
  } catch (error) {
    return `${tool.name} could not say what the call needs: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A call's context as far as checkPermissions reads it: the workspace, Bash's directory. */
function replayContext(projectDir: string, toolUseId: string): ToolContext {
  return {
    projectDir,
    workspaceRoots: [projectDir],
    shell: { cwd: projectDir },
    fileState: new FileStateCache(),
    signal: AbortSignal.abort(),
    toolUseId,
    env: {},
    ripgrepPath: null,
  };
}

function verdictOf(decision: PermissionDecision): Verdict {
  if (decision.askResolved) return 'ask';
  return decision.behavior;
}

function decisionRecord(decision: PermissionDecision): NonNullable<JudgedCall['decision']> {
  return {
    behavior: decision.behavior,
    askResolved: decision.askResolved,
    source: decision.source,
    reason: decision.reason,
    rules: decision.matchedRules.map((rule) => ({ rule: rule.text, source: rule.source })),
  };
}

function findingOf(call: JudgedCall): Finding[] {
  const ref = { index: call.index, toolUseId: call.toolUseId, tool: call.tool };
  const what = `#${call.index} ${call.tool} ${call.summary}`;
  switch (call.verdict) {
    case 'allow':
      return [];
    case 'undecidable':
      return [{ code: 'judge-undecidable', message: `${what}: ${call.note ?? ''}`, call: ref }];
    case 'deny':
    case 'ask': {
      const decision = call.decision as NonNullable<JudgedCall['decision']>;
      return [
        {
          code: call.verdict === 'deny' ? 'judge-would-deny' : 'judge-would-ask',
          message: `${what} would be ${call.verdict === 'deny' ? 'denied' : `asked about (answered ${decision.behavior})`}: ${decision.reason}`,
          call: ref,
          rules: decision.rules,
        },
      ];
    }
  }
}

/** The judgement for a terminal: the calls the policy refuses or asks about, with rule and file. */
export function renderJudgeText(judgement: Judgement): string {
  const sources = judgement.policySources.join(', ') || '(no file)';
  const out = [`Judged with ${neutralise(sources)}: ${judgement.calls.length} calls.`];
  if (judgement.findings.length === 0) {
    out.push('Every call would have been allowed.');
    return `${out.join('\n')}\n`;
  }
  out.push(`Findings (${judgement.findings.length}):`);
  for (const finding of judgement.findings) {
    out.push(`  ${finding.code}  ${neutralise(finding.message)}`);
    for (const rule of finding.rules ?? [])
      out.push(`      rule: ${neutralise(rule.rule)} from ${neutralise(rule.source)}`);
  }
  return `${out.join('\n')}\n`;
}
