/**
 * A recorded run against its replay, as a list of differences, in this order:
 * 1. the policy: each file whose digest differs, or that only one of them had;
 * 2. the session: the permission mode and the tools offered;
 * 3. per call, in the recorded order: the permission decision (behavior, source, rules), and
 *    the tool_result (is_error and its text, as replay-paths.ts makes it comparable), with a
 *    short diff; a call the replay never made;
 * 4. how the run ended (the result's subtype and number of turns).
 */
import { createTwoFilesPatch } from 'diff';
import type { PolicyDigest, RecordedDecision, RecordedRun } from './recorded-run.js';
import { comparableText } from './replay-paths.js';

export type Difference =
  | { kind: 'policy'; path: string; recorded: string | null; replayed: string | null }
  | { kind: 'session'; field: string; recorded: string; replayed: string }
  | {
      kind: 'decision';
      toolUseId: string;
      toolName: string;
      recorded: DecisionSummary | null;
      replayed: DecisionSummary | null;
    }
  | {
      kind: 'result';
      toolUseId: string;
      toolName: string;
      recorded: ResultSummary;
      replayed: ResultSummary | null;
      diff: string;
    }
  | { kind: 'outcome'; recorded: string; replayed: string };

export interface DecisionSummary {
  behavior: string;
  source: string;
  rules: string[];
  reason: string;
}

export interface ResultSummary {
  isError: boolean;
  text: string;
}

export interface CompareOptions {
  /** The replay's own policy sources (its `--settings` for the sandbox), left out of 1. */
  ignorePolicy?: (digest: PolicyDigest) => boolean;
  /** Lines of the diff shown per result; the rest are counted. Default 12. */
  maxDiffLines?: number;
}

export function compareRuns(
  recorded: RecordedRun,
  replayed: RecordedRun,
  options: CompareOptions = {},
): Difference[] {
  const kept = (digests: readonly PolicyDigest[] | undefined) =>
    (digests ?? []).filter((digest) => !options.ignorePolicy?.(digest));
  return [
    ...policyDifferences(recorded.policy && kept(recorded.policy), kept(replayed.policy)),
    ...sessionDifferences(recorded, replayed),
    ...callDifferences(recorded, replayed, options.maxDiffLines ?? 12),
    ...outcomeDifferences(recorded, replayed),
  ];
}

function policyDifferences(
  recorded: readonly PolicyDigest[] | undefined,
  replayed: readonly PolicyDigest[],
): Difference[] {
  // A log from before the policy was recorded: nothing to compare (the report says so).
  if (recorded === undefined) return [];
  const byPath = (digests: readonly PolicyDigest[]) =>
    new Map(digests.map((digest) => [`${digest.kind} ${digest.path}`, digest]));
  const before = byPath(recorded);
  const after = byPath(replayed);
  const differences: Difference[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(key);
    const now = after.get(key);
    if (old?.sha256 === now?.sha256) continue;
    differences.push({
      kind: 'policy',
      path: (old ?? now)!.path,
      recorded: old?.sha256 ?? null,
      replayed: now?.sha256 ?? null,
    });
  }
  return differences;
}

function sessionDifferences(recorded: RecordedRun, replayed: RecordedRun): Difference[] {
  const fields: [string, string, string][] = [
    ['permission mode', recorded.permissionMode, replayed.permissionMode],
    ['tools', recorded.tools.join(', '), replayed.tools.join(', ')],
  ];
  return fields
    .filter(([, old, now]) => old !== now)
    .map(([field, old, now]) => ({ kind: 'session', field, recorded: old, replayed: now }));
}

function callDifferences(
  recorded: RecordedRun,
  replayed: RecordedRun,
  maxDiffLines: number,
): Difference[] {
  const differences: Difference[] = [];
  for (const call of recorded.calls) {
    const base = { toolUseId: call.id, toolName: call.name };
    const oldDecision = summary(recorded.decisions.get(call.id));
    const newDecision = summary(replayed.decisions.get(call.id));
    if (decisionKey(oldDecision) !== decisionKey(newDecision))
      differences.push({ kind: 'decision', ...base, recorded: oldDecision, replayed: newDecision });
    const old = recorded.results.get(call.id);
    const now = replayed.results.get(call.id);
    const oldResult = old && {
      isError: old.isError,
      text: comparableText(old.content, recorded.cwd),
    };
    const newResult = now && {
      isError: now.isError,
      text: comparableText(now.content, replayed.cwd),
    };
    if (oldResult === undefined) continue; // the recording has no result either (a cut run)
    if (newResult?.isError === oldResult.isError && newResult.text === oldResult.text) continue;
    differences.push({
      kind: 'result',
      ...base,
      recorded: oldResult,
      replayed: newResult ?? null,
      diff: newResult ? shortDiff(oldResult.text, newResult.text, maxDiffLines) : '',
    });
  }
  return differences;
}

function outcomeDifferences(recorded: RecordedRun, replayed: RecordedRun): Difference[] {
  const describe = (run: RecordedRun) =>
    `${run.outcome.subtype} after ${run.outcome.numTurns} turn${run.outcome.numTurns === 1 ? '' : 's'}`;
  const old = describe(recorded);
  const now = describe(replayed);
  return old === now ? [] : [{ kind: 'outcome', recorded: old, replayed: now }];
}

function summary(decision: RecordedDecision | undefined): DecisionSummary | null {
  if (decision === undefined) return null;
  return {
    behavior: decision.behavior,
    source: decision.source,
    rules: decision.rules.map((rule) => `${rule.rule} (${rule.source})`),
    reason: decision.reason,
  };
}

/** What makes two decisions the same: not the wording of the reason, which names paths. */
function decisionKey(decision: DecisionSummary | null): string {
  return decision === null
    ? 'none'
    : JSON.stringify([decision.behavior, decision.source, decision.rules]);
}

/** The changed lines with one line of context, without the patch's header. */
function shortDiff(recorded: string, replayed: string, maxLines: number): string {
  const patch = createTwoFilesPatch(
    'recorded',
    'replayed',
    `${recorded}\n`,
    `${replayed}\n`,
    '',
    '',
    {
      context: 1,
    },
  );
  const lines = patch
    .split('\n')
    .filter(
      (line) =>
        !line.startsWith('===') &&
        !line.startsWith('---') &&
        !line.startsWith('+++') &&
        !line.startsWith('\\') &&
        line !== '',
    );
  if (lines.length <= maxLines) return lines.join('\n');
  return [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`].join('\n');
}
