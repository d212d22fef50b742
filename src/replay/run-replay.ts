/**
 * `ci-agent replay`: a recorded run again, offline, and what came out differently.
 * 1. read the recording (replay-source.ts, recorded-run.ts) and verify it as `ci-agent audit`
 *    does: a log is untrusted input, and one that fails verification (an edited call, a line
 *    removed) is refused before anything runs, unless `verify: false` (`--no-verify`)
 * 2. check out the commit it ran on, fresh, in a temp folder (replay-checkout.ts)
 * 3. run the CLI's session there — tools, hooks and the checkout's policy (or `--policy`), as
 *    `ci-agent -p` runs them — with the recorded model messages as the model (replay-model.ts),
 *    its tool log written to the temp folder; in the sandbox when the recorded run had one
 * 4. read that log back and compare the two (compare-runs.ts)
 * Whatever cannot be replayed faithfully (bad input, no commit, a run that went another way
 * than recorded) ends as `cannot-replay` with the reason: exit 2.
 */
import { join, resolve } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { AuditResult } from '../audit/audit.js';
import type { ModelClient } from '../model/model-client.js';
import { sha256Hex } from '../policy/source-digests.js';
import { errorMessage } from '../util/errors.js';
import type { Difference } from './compare-runs.js';
import { compareRuns } from './compare-runs.js';
import type { RecordedRun } from './recorded-run.js';
import { parseRecordedRun, ReplayInputError } from './recorded-run.js';
import { createReplayCheckout } from './replay-checkout.js';
import { ReplayModelClient } from './replay-model.js';
import { mapPaths } from './replay-paths.js';
import { readReplaySource } from './replay-source.js';

/** What the replay needs of the CLI: its main() (cli/main.ts), given a model client. */
export type CliRunner = (io: {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string | undefined>;
  modelClient: ModelClient;
  signal?: AbortSignal;
}) => Promise<number>;

export interface ReplayOptions {
  /** The artifact folder or tool log. */
  artifact: string;
  /** A git repository holding the commit. */
  repo: string;
  /** Another commit than the recorded one (a change to test). */
  commit?: string;
  /** A policy file instead of the checkout's (a policy change to test). */
  policy?: string;
  /** false: no sandbox unless the checkout's settings turn it on. Default: as recorded. */
  sandbox?: boolean;
  /** Keep the checkout and the replayed log (their folder is in the report). */
  keep?: boolean;
  /** false: replay a log that fails verification anyway (the report still says so). Default: true. */
  verify?: boolean;
  env: NodeJS.ProcessEnv;
  runCli: CliRunner;
  signal?: AbortSignal;
}

export type ReplayStatus = 'same' | 'different' | 'cannot-replay';

export interface ReplayReport {
  status: ReplayStatus;
  log: string;
  repository: string;
  commit: string | undefined;
  /** Whether the commit is the recorded one. */
  commitRecorded: boolean;
  /** `recorded`, `not-recorded` (an older log) or the override's path. */
  policy: string;
  turns: { recorded: number; replayed: number };
  /** The recorded run's sandbox line (`none` without one), and the replay's. */
  sandbox: { recorded: string; replayed: string | undefined };
  calls: number;
  differences: Difference[];
  /** Why it could not be replayed, when it could not. */
  error?: string;
  /** What the replayed run said on stderr (warnings, denials, errors). */
  stderr: string[];
  /** The kept checkout, with --keep. */
  kept?: string;
  /** The recording's verification; absent: it could not be read. */
  verification?: ReplayVerification;
}

export interface ReplayVerification {
  /** As `ci-agent audit`: whole and closed, whole up to where the run was killed, or failed. */
  status: 'verified' | 'incomplete' | 'failed';
  /** The log's final hash, when it verified. */
  finalHash?: string;
  /** The first failure: its finding code (docs/AUDIT.md), the log line, what is wrong. */
  failure?: { code: string; line?: number; message: string };
  /** false: `--no-verify`, a failed log replayed anyway. */
  enforced: boolean;
}

const REPLAY_LOG = 'replayed-tool-log.jsonl';
const SANDBOX_ON = '{"sandbox":{"enabled":true}}';

export async function runReplay(options: ReplayOptions): Promise<ReplayReport> {
  const report: ReplayReport = {
    status: 'cannot-replay',
    log: options.artifact,
    repository: options.repo,
    commit: undefined,
    commitRecorded: options.commit === undefined,
    policy: options.policy ?? 'recorded',
    turns: { recorded: 0, replayed: 0 },
    sandbox: { recorded: 'none', replayed: undefined },
    calls: 0,
    differences: [],
    stderr: [],
  };
  try {
    await replayInto(report, options);
  } catch (error) {
    if (!(error instanceof ReplayInputError)) throw error;
    report.status = 'cannot-replay';
    report.error = error.message;
  }
  return report;
}

async function replayInto(report: ReplayReport, options: ReplayOptions): Promise<void> {
  // 1.
  const source = await readReplaySource(options.artifact);
  report.log = source.logPath;
  report.verification = verificationOf(source.audit, options.verify ?? true);
  const { failure } = report.verification;
  if (failure && report.verification.enforced)
    throw new ReplayInputError(
      `${source.logPath}${failure.line === undefined ? '' : `:${failure.line}`}: the tool log fails verification (${failure.code}): ${failure.message}; a log that fails \`ci-agent audit\` is not replayed (--no-verify replays it anyway)`,
    );
  const recorded = parseRecordedRun(source.logText, source.logPath);
  report.turns.recorded = recorded.turns.length;
  report.calls = recorded.calls.length;
  report.sandbox.recorded = recorded.sandbox;
  if (recorded.policy === undefined && options.policy === undefined) report.policy = 'not-recorded';
  const commit = options.commit ?? recorded.commit;
  if (commit === undefined || commit === null)
    throw new ReplayInputError(
      `${source.logPath}: the log records no commit (${commit === null ? 'the run was not in a git checkout' : 'written by a ci-agent before system/init had ci_agent_commit'}): pass the commit with --commit`,
    );
  // 2.
  const checkout = await createReplayCheckout({
    repo: resolve(options.repo),
    commit,
    recordedCwd: recorded.cwd,
    env: options.env,
  });
  report.commit = checkout.commit;
  try {
    // 3.
    const logPath = join(checkout.root, REPLAY_LOG);
    const model = new ReplayModelClient(
      recorded.turns,
      (input) => mapPaths(input, recorded.cwd, checkout.dir),
      recorded.compactions,
    );
    const sandboxed = (options.sandbox ?? true) && recorded.sandbox !== 'none';
    await options.runCli({
      argv: [
        // One argument, so that a prompt starting with "-" is not read as a flag.
        `--print=${source.prompt ?? `(replay of ${source.logPath}: the prompt is not in the recording)`}`,
        '--model',
        recorded.model,
        '--log-file',
        logPath,
        ...(options.policy ? ['--policy', resolve(options.policy)] : []),
        ...(sandboxed ? ['--settings', SANDBOX_ON] : []),
      ],
      env: { ...options.env, HOME: checkout.home },
      cwd: checkout.dir,
      stdout: () => undefined,
      stderr: (text) => report.stderr.push(...text.split('\n').filter((line) => line !== '')),
      readStdin: () => Promise.resolve(undefined),
      modelClient: model,
      ...(options.signal && { signal: options.signal }),
    });
    report.turns.replayed = model.turnsServed;
    // 4.
    const replayed = await readReplayed(logPath, report);
    report.sandbox.replayed = replayed.sandbox;
    report.differences = compareRuns(recorded, replayed, {
      ignorePolicy: (digest) =>
        sandboxed && digest.kind === 'flag' && digest.sha256 === sha256Hex(SANDBOX_ON),
    });
    if (model.divergence !== undefined) throw new ReplayInputError(model.divergence);
    report.status = report.differences.length === 0 ? 'same' : 'different';
  } finally {
    if (options.keep) report.kept = checkout.root;
    else await checkout.remove();
  }
}

/** What the audit says of the recording: the chain's first failure, else any other failure. */
function verificationOf(audit: AuditResult, enforced: boolean): ReplayVerification {
  const { verdict } = audit;
  const chain = verdict.failure;
  const other = audit.findings.find((finding) => finding.severity === 'failure');
  const failure = chain
    ? { code: chain.code, line: chain.line, message: chain.message }
    : other && { code: other.code, message: other.message };
  if (failure) return { status: 'failed', failure, enforced };
  return {
    status: verdict.status === 'verified' ? 'verified' : 'incomplete',
    ...(verdict.finalHash !== undefined && { finalHash: verdict.finalHash }),
    enforced,
  };
}

/** The replayed run's log; a run that never started (a bad policy file) has none to compare. */
async function readReplayed(path: string, report: ReplayReport): Promise<RecordedRun> {
  const said = () => (report.stderr.length > 0 ? `: ${report.stderr.join(' / ')}` : '');
  // The CLI opens its log before it reads the policy: a run stopped by its setup leaves it empty
  // but for the chain's closing line (log/log-chain.ts).
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.every((line) => line.startsWith('{"type":"system","subtype":"log_end"')))
    throw new ReplayInputError(`the replayed run did not start${said()}`);
  try {
    return parseRecordedRun(text, 'the replayed run');
  } catch (error) {
    throw new ReplayInputError(
      `the replayed run left no whole log: ${errorMessage(error)}${said()}`,
    );
  }
}
