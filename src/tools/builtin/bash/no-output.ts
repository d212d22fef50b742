/**
 * `noOutputExpected` of the Bash output, as Claude Code 2.1.197 sets it in `tool_response`
 * (and its transcript's `toolUseResult`): true when every simple command of the line is one of
 * the commands that print nothing on success, so that hooks can tell "no output" from "lost
 * output". A command the parser cannot read is not expected to be silent.
 */
import { parseCommand } from '../../../shell/parse-command.js';

const SILENT_COMMANDS: ReadonlySet<string> = new Set([
  'mv',
  'cp',
  'rm',
  'mkdir',
  'rmdir',
  'chmod',
  'chown',
  'chgrp',
  'touch',
  'ln',
  'cd',
  'export',
  'unset',
  'wait',
]);

export function isNoOutputExpected(command: string): boolean {
  const parsed = parseCommand(command);
  if (!parsed.ok || parsed.commands.length === 0) return false;
  // A leading `NAME=value` is the first word Claude Code looks at, and it is not a silent command.
  return parsed.commands.every(
    (simple) => simple.assignments.length === 0 && SILENT_COMMANDS.has(simple.argv[0] ?? ''),
  );
}
