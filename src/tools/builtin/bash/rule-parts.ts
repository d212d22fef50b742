/**
 * The command lines permission rules are matched against (DECISIONS #11): every simple command,
 * nested ones included (`$( … )`, backticks, process substitutions, `bash -c`, `eval`), so that
 * each part must be allowed on its own and a deny on any part denies the whole.
 */
import { allCommands, parseCommand } from './parse.js';

/** The parts' source texts in order, or null when the command cannot be parsed. */
export function splitCommandForRules(command: string): string[] | null {
  const parsed = parseCommand(command);
  if (!parsed.ok) return null;
  return allCommands(parsed.commands).map((part) => part.text);
}
