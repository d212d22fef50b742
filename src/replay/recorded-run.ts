/**
 * A tool log (stream-json lines, log/stream-json.ts) read back as the run it records: the
 * `system/init` line (cwd, commit, policy digests, model, mode, tools, sandbox), each
 * `assistant` message in order (what the replay's model serves), each call's permission
 * decision and tool_result, and the `result` line. Pure: the text in, a frozen record out.
 *
 * The log is untrusted data: every line is checked against the shape it claims, and anything
 * that would make a replay unfaithful is refused (ReplayInputError, `ci-agent replay` exit 2)
 * with the line number — a cut-off last line, no `result` line (a log cut short), a subagent's
 * lines, a compaction whose summary the log does not have (a log from before `ci_agent_summary`).
 * A compaction it has is kept with the turn it came before, so the replay's model can serve the
 * summary at that point, and only there.
 */
import * as z from 'zod';
import type { AssistantContentBlock, StopReason, Usage } from '../model/types.js';

/** The log cannot be replayed as it is; the message says why and names the file and line. */
export class ReplayInputError extends Error {
  override readonly name = 'ReplayInputError';
}

export interface RecordedTurn {
  id: string;
  model: string;
  content: AssistantContentBlock[];
  stopReason: StopReason | null;
  usage: Usage;
}

export interface RecordedCall {
  id: string;
  name: string;
  input: unknown;
  /** 0-based index of the turn that made it. */
  turn: number;
}

export interface RecordedDecision {
  behavior: string;
  source: string;
  askResolved: boolean;
  rules: { rule: string; source: string }[];
  reason: string;
}

export interface RecordedResult {
  content: unknown;
  isError: boolean;
}

/** A compaction of the recorded run: the summary the model wrote, before turn `beforeTurn`. */
export interface RecordedCompaction {
  /** 0-based index of the turn whose request came after it (the turns recorded before it). */
  beforeTurn: number;
  summary: string;
}

export interface PolicyDigest {
  path: string;
  kind: string;
  sha256: string;
}

export interface RecordedRun {
  /** How messages name the log: its path. */
  name: string;
  cwd: string;
  /** HEAD at the start; null outside a checkout; undefined: the log predates the field. */
  commit: string | null | undefined;
  /** The policy's files by digest; undefined: the log predates the field. */
  policy: readonly PolicyDigest[] | undefined;
  model: string;
  permissionMode: string;
  tools: readonly string[];
  sandbox: string;
  turns: readonly RecordedTurn[];
  calls: readonly RecordedCall[];
  decisions: ReadonlyMap<string, RecordedDecision>;
  results: ReadonlyMap<string, RecordedResult>;
  compactions: readonly RecordedCompaction[];
  outcome: { subtype: string; numTurns: number };
}

const initLine = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  // Every string of the model's tool inputs under it is moved to the checkout: a real folder.
  cwd: z
    .string()
    .regex(/^\/./, 'expected an absolute path of a folder below /')
    .refine((path) => !/^\/+$/.test(path), 'expected an absolute path of a folder below /'),
  model: z.string(),
  permissionMode: z.string(),
  tools: z.array(z.string()),
  ci_agent_sandbox: z.string().optional(),
  ci_agent_commit: z
    .string()
    .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'expected a full commit id (40 or 64 hex digits)')
    .nullable()
    .optional(),
  ci_agent_policy: z
    .array(z.object({ path: z.string(), kind: z.string(), sha256: z.string() }))
    .optional(),
});

const usage = z.looseObject({ input_tokens: z.number(), output_tokens: z.number() });

const assistantLine = z.object({
  type: z.literal('assistant'),
  parent_tool_use_id: z.null().optional(),
  message: z.object({
    id: z.string(),
    model: z.string(),
    content: z.array(z.looseObject({ type: z.string() })),
    stop_reason: z.string().nullable(),
    usage,
  }),
});

const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string(),
  input: z.unknown(),
});

const userLine = z.object({
  type: z.literal('user'),
  parent_tool_use_id: z.null().optional(),
  message: z.object({
    content: z.array(
      z.looseObject({
        type: z.literal('tool_result'),
        tool_use_id: z.string(),
        content: z.unknown().optional(),
        is_error: z.boolean().optional(),
      }),
    ),
  }),
});

const decisionLine = z.object({
  tool_use_id: z.string(),
  behavior: z.string(),
  decision_source: z.string(),
  ask_resolved: z.boolean(),
  rules: z.array(z.object({ rule: z.string(), source: z.string() })),
  reason: z.string(),
});

const resultLine = z.object({ subtype: z.string(), num_turns: z.number() });

const compactLine = z.object({ ci_agent_summary: z.string().min(1).optional() });

/** Reads a whole tool log; throws ReplayInputError naming the file and line. */
export function parseRecordedRun(text: string, name: string): RecordedRun {
  const lines = text.split('\n');
  const reader = new RunReader(name);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const number = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const last = lines.slice(index + 1).every((rest) => rest.trim() === '');
      throw new ReplayInputError(
        last
          ? `${name}:${number}: the last line is cut off (not whole JSON): the log is truncated`
          : `${name}:${number}: not a JSON line: a tool log has one JSON object per line`,
      );
    }
    reader.read(value, number);
  });
  return reader.finish();
}

class RunReader {
  private init: z.infer<typeof initLine> | undefined;
  private readonly turns: RecordedTurn[] = [];
  private readonly calls: RecordedCall[] = [];
  private readonly decisions = new Map<string, RecordedDecision>();
  private readonly results = new Map<string, RecordedResult>();
  private readonly compactions: RecordedCompaction[] = [];
  private outcome: RecordedRun['outcome'] | undefined;

  constructor(private readonly name: string) {}

  read(value: unknown, number: number): void {
    const where = `${this.name}:${number}`;
    const line = z
      .looseObject({ type: z.string(), subtype: z.string().optional() })
      .safeParse(value);
    if (!line.success) throw new ReplayInputError(`${where}: not a stream-json line (no "type")`);
    const { type, subtype } = line.data;
    // The tool log file's closing line (log/log-chain.ts): the chain's, not the run's.
    if (type === 'system' && subtype === 'log_end') return;
    if (this.init === undefined) {
      if (type !== 'system' || subtype !== 'init')
        throw new ReplayInputError(
          `${where}: expected the system/init line first, found ${[type, subtype].filter(Boolean).join('/')}: not a ci-agent tool log, or its start is missing`,
        );
      this.init = check(initLine, value, where);
      return;
    }
    if (this.outcome !== undefined)
      throw new ReplayInputError(`${where}: a line after the result line: two runs in one log?`);
    const parent = (value as { parent_tool_use_id?: unknown }).parent_tool_use_id;
    if (parent !== undefined && parent !== null)
      throw new ReplayInputError(
        `${where}: a subagent's line (parent_tool_use_id ${JSON.stringify(parent)}): replaying runs with subagents (the Agent tool) is not supported yet`,
      );
    if (type === 'assistant') this.readAssistant(check(assistantLine, value, where), where);
    else if (type === 'user') this.readUser(check(userLine, value, where));
    else if (type === 'result') {
      const result = check(resultLine, value, where);
      this.outcome = { subtype: result.subtype, numTurns: result.num_turns };
    } else if (type === 'system' && subtype === 'permission_decision') {
      const decision = check(decisionLine, value, where);
      this.decisions.set(decision.tool_use_id, {
        behavior: decision.behavior,
        source: decision.decision_source,
        askResolved: decision.ask_resolved,
        rules: decision.rules,
        reason: decision.reason,
      });
    } else if (type === 'system' && subtype === 'compact_boundary') {
      const summary = check(compactLine, value, where).ci_agent_summary;
      if (summary === undefined)
        throw new ReplayInputError(
          `${where}: the run compacted its context, and this log does not have the summary the model wrote for it (ci_agent_summary: an older ci-agent wrote it), so it cannot be replayed`,
        );
      this.compactions.push({ beforeTurn: this.turns.length, summary });
    }
    // Other lines (hook_response, tool_call_end, api_retry, …) are not needed to replay.
  }

  private readAssistant(line: z.infer<typeof assistantLine>, where: string): void {
    const turn = this.turns.length;
    for (const block of line.message.content) {
      if (block.type !== 'tool_use') continue;
      const call = check(toolUseBlock, block, `${where} (tool_use block)`);
      this.calls.push({ id: call.id, name: call.name, input: call.input, turn });
    }
    this.turns.push({
      id: line.message.id,
      model: line.message.model,
      content: line.message.content as unknown as AssistantContentBlock[],
      stopReason: line.message.stop_reason as StopReason | null,
      // The budget guard prices what the recording says each turn cost.
      usage: {
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        ...line.message.usage,
      },
    });
  }

  private readUser(line: z.infer<typeof userLine>): void {
    for (const block of line.message.content)
      this.results.set(block.tool_use_id, {
        content: block.content ?? '',
        isError: block.is_error === true,
      });
  }

  finish(): RecordedRun {
    if (this.init === undefined)
      throw new ReplayInputError(`${this.name}: empty: no system/init line`);
    if (this.outcome === undefined)
      throw new ReplayInputError(
        `${this.name}: no result line: the log ends before the run did (truncated, or the run was killed), so what it recorded cannot be told from what it did not get to`,
      );
    const init = this.init;
    return Object.freeze({
      name: this.name,
      cwd: init.cwd,
      commit: init.ci_agent_commit,
      policy: init.ci_agent_policy,
      model: init.model,
      permissionMode: init.permissionMode,
      tools: init.tools,
      sandbox: init.ci_agent_sandbox ?? 'none',
      turns: this.turns,
      calls: this.calls,
      decisions: this.decisions,
      results: this.results,
      compactions: this.compactions,
      outcome: this.outcome,
    });
  }
}

function check<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.length ? issue.path.join('.') : '(the line)';
  throw new ReplayInputError(`${where}: ${path}: ${issue?.message ?? 'unexpected shape'}`);
}
