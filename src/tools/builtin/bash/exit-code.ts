/**
 * Exit statuses that report a finding rather than a failure (docs/CC-COMPAT.md §3 Bash): exit 1 of a
 * search that found nothing, of a comparison that found differences. Only a command line that is
 * one simple command counts; in a pipeline or list the status belongs to another command.
 */
import { parseCommand } from '../../../shell/parse-command.js';

const MEANINGS = new Map<string, string>([
  ['grep', 'No matches found'],
  ['egrep', 'No matches found'],
  ['fgrep', 'No matches found'],
  ['rg', 'No matches found'],
  ['find', 'Some directories were inaccessible'],
  ['diff', 'Files differ'],
  ['test', 'Condition is false'],
  ['[', 'Condition is false'],
]);

const GIT_MEANINGS = new Map<string, string>([
  ['diff', 'Changes found'],
  ['grep', 'No matches found'],
]);

/** What a non-zero exit status means when it is not a failure; undefined when it is one. */
export function interpretExitCode(command: string, exitCode: number | null): string | undefined {
  if (exitCode !== 1) return undefined;
  // `! grep …` inverts the status: exit 1 then means grep found something.
  if (/^\s*!/.test(command)) return undefined;
  const parsed = parseCommand(command);
  if (!parsed.ok || parsed.commands.length !== 1) return undefined;
  const argv = parsed.commands[0]?.argv ?? [];
  const [name, ...args] = argv;
  if (name === 'git') {
    const subcommand = args.find((arg) => !arg.startsWith('-'));
    return subcommand === undefined ? undefined : GIT_MEANINGS.get(subcommand);
  }
  return name === undefined ? undefined : MEANINGS.get(name);
}
