/**
 * `ci-agent replay <artifact>`: the recorded run again, offline (src/replay/run-replay.ts), its
 * differences on stdout as text or JSON. The one place replay's failures become exit codes:
 * 0 no differences, 1 differences, 2 cannot replay (the reason on stderr, and in the report).
 */
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { runReplay } from '../replay/run-replay.js';
import type { CliRunner, ReplayReport } from '../replay/run-replay.js';
import { reportJson, reportText } from '../replay/replay-report.js';
import { errorMessage } from '../util/errors.js';

export const REPLAY_EXIT_CODES: readonly (readonly [number, string])[] = [
  [0, 'no differences: every tool result and decision is as recorded'],
  [1, 'differences (the policy, a decision, a tool result, how the run ended)'],
  [
    2,
    'cannot replay (a log that fails verification, bad or truncated, no commit, no repository, a run that went elsewhere)',
  ],
];

export const REPLAY_FORMATS = ['text', 'json'] as const;

interface ReplayFlags {
  repo: string;
  commit?: string;
  policy?: string;
  format: (typeof REPLAY_FORMATS)[number];
  sandbox: boolean;
  keep: boolean;
  verify: boolean;
}

function replayProgram(writeOut: (text: string) => void): Command {
  return new Command('ci-agent replay')
    .description(
      "Re-run a recorded run's model turns offline against a fresh checkout of its commit, through the same tools and policy, and report what differs.",
    )
    .argument('<artifact>', "the run's artifact folder (unzipped) or its tool-log.jsonl")
    .option('--repo <dir>', 'a git repository holding the commit (only read)', '.')
    .option('--commit <ref>', 'check out this commit instead of the recorded one')
    .option('--policy <file>', "this ci-agent policy file instead of the checkout's")
    .addOption(
      new Option('--format <format>', 'report format').choices(REPLAY_FORMATS).default('text'),
    )
    .option('--no-sandbox', 'no sandbox, even though the recorded run had one')
    .option('--keep', 'keep the checkout and the replayed tool log', false)
    .option(
      '--no-verify',
      "replay a tool log that fails verification (its hash chain, its report's hash, its attestation: as `ci-agent audit`) anyway; refused by default",
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit codes:',
        ...REPLAY_EXIT_CODES.map(([code, what]) => `  ${code}  ${what}`),
        '',
      ].join('\n'),
    )
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut })
    .allowExcessArguments(false);
}

/** `argv` without the `replay` word. */
/** What the replay reads of the CLI's io (cli/main.ts's CliIo has it). */
export interface ReplayIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  signal?: AbortSignal;
}

/** `main` is the CLI's own (cli/main.ts), passed in so that the two modules do not import each other. */
export async function replayMain(
  io: ReplayIo,
  argv: readonly string[],
  main: CliRunner,
): Promise<number> {
  const program = replayProgram(io.stdout);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      io.stderr(`Error: ${error.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    throw error;
  }
  const flags = program.opts<ReplayFlags>();
  let report: ReplayReport;
  try {
    report = await runReplay({
      artifact: resolve(io.cwd, program.args[0]!),
      repo: resolve(io.cwd, flags.repo),
      ...(flags.commit !== undefined && { commit: flags.commit }),
      ...(flags.policy !== undefined && { policy: resolve(io.cwd, flags.policy) }),
      sandbox: flags.sandbox,
      keep: flags.keep,
      verify: flags.verify,
      env: io.env,
      runCli: (inner) => main({ ...inner, signal: inner.signal ?? io.signal }),
      ...(io.signal && { signal: io.signal }),
    });
  } catch (error) {
    io.stderr(`Error: cannot replay: ${errorMessage(error)}\n`);
    return 2;
  }
  io.stdout(flags.format === 'json' ? reportJson(report) : reportText(report));
  if (report.status === 'cannot-replay') {
    io.stderr(`Error: cannot replay: ${report.error ?? 'unknown reason'}\n`);
    return 2;
  }
  return report.status === 'same' ? 0 : 1;
}
