/**
 * The shell command model shared by the Bash tool (read-only classification, exit-code meaning)
 * and the permission policy (docs/DECISIONS.md #11). `parseCommand` turns a command line into the simple
 * commands it runs, in source order:
 *
 *   1. lists and pipelines (`&& || ; | |& &`, newlines) are split into their simple commands
 *      (those a `&` sends to the background are marked);
 *   2. subshells `( … )` and brace groups `{ …; }` are flattened, their redirections copied onto
 *      every command inside (a redirect on the group applies to each of them);
 *   3. what a word or here-document would run — `$( … )`, backticks, `<( … )`, `>( … )` — is
 *      parsed too and hung on the command as `nested`;
 *   4. so are the scripts handed to a shell (`bash -c '…'`, `sh -c`, …) and to `eval`.
 *
 * The parser understands a deliberate subset of bash. Anything outside it (if/for/while/case,
 * function definitions, `[[ ]]`, `(( ))`, arrays, a script built from a variable, …) gives
 * `{ ok: false }`: callers must then treat the command as unknown, never as harmless.
 */
import { ShellParser } from './shell-parser.js';
import { ShellSyntaxError } from './shell-syntax-error.js';
import type { ParseResult, SimpleCommand, Word } from './types.js';

/** Scripts inside scripts (`bash -c "bash -c '…'"`) are followed this deep. */
const MAX_SCRIPT_DEPTH = 8;
/** Longer commands are not analysed (the policy makes them ask; docs/CC-COMPAT.md §2.3 uses 10 000). */
const MAX_SOURCE_LENGTH = 100_000;

/**
 * One Bash call asks about its command many times (concurrency, read-only, file operands, read
 * scope, each policy pass, git pins, exit code); the recent parses answer the repeats. Enough for
 * the commands of one message and the rules the policy compares them with.
 */
const CACHE_SIZE = 64;
const recentParses = new Map<string, ParseResult>();

/**
 * The commands `command` runs. The result is shared by every caller that asks about the same
 * command and is frozen throughout: read it, never change it.
 */
export function parseCommand(command: string): ParseResult {
  const cached = recentParses.get(command);
  if (cached) {
    // Map order is insertion order: moving the hit to the end keeps the least recent first.
    recentParses.delete(command);
    recentParses.set(command, cached);
    return cached;
  }
  const result = deepFreeze(parseUncached(command));
  recentParses.set(command, result);
  if (recentParses.size > CACHE_SIZE) {
    const oldest = recentParses.keys().next().value as string;
    recentParses.delete(oldest);
  }
  return result;
}

function parseUncached(command: string): ParseResult {
  try {
    return { ok: true, commands: parseScript(command, 0) };
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Freezes a parse result and everything in it (plain objects and arrays only). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/** Every command the script runs, nested ones included, depth-first in source order. */
export function allCommands(commands: readonly SimpleCommand[]): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const command of commands) {
    out.push(command);
    for (const script of command.nested) out.push(...allCommands(script.commands));
  }
  return out;
}

/** Commands whose shell and eval arguments have been parsed; nested scripts come back done. */
const argumentsParsed = new WeakSet<SimpleCommand>();

function parseScript(source: string, depth: number): SimpleCommand[] {
  if (depth > MAX_SCRIPT_DEPTH) throw new ShellSyntaxError('scripts are nested too deeply');
  if (source.length > MAX_SOURCE_LENGTH)
    throw new ShellSyntaxError('the command is too long to check');
  const parse = (inner: string) => parseScript(inner, depth + 1);
  const commands = new ShellParser(source, parse).parseScript();
  for (const command of allCommands(commands)) {
    if (argumentsParsed.has(command)) continue;
    argumentsParsed.add(command);
    addArgumentScripts(command, parse);
  }
  return commands;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
/** Shell options whose value is the next word (`bash -o pipefail -c …`). */
const SHELL_OPTIONS_WITH_VALUE = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/** Parses the scripts given to `eval` and to `<shell> -c`, wherever the shell appears in argv. */
function addArgumentScripts(command: SimpleCommand, parse: (source: string) => SimpleCommand[]) {
  const { words } = command;
  const isStatic = (word: Word) => word.expansions.length === 0;
  if (words[0]?.value === 'eval' && words.length > 1) {
    const args = words.slice(1);
    if (!args.every(isStatic)) throw new ShellSyntaxError('eval of a computed string');
    const script = args.map((word) => word.value).join(' ');
    command.nested.push({ origin: 'eval', commands: parseInContext(script, 'eval', parse) });
  }
  const shellIndex = words.findIndex((word) => SHELLS.has(basename(word.value)));
  if (shellIndex === -1) return;
  const script = shellScriptArgument(words.slice(shellIndex + 1));
  if (script === undefined) return;
  if (!isStatic(script)) throw new ShellSyntaxError('a shell -c script built at run time');
  const commands = parseInContext(script.value, `${words[shellIndex]?.value} -c`, parse);
  command.nested.push({ origin: 'shell-argument', commands });
}

/** The word a shell runs as `-c` script, or undefined when the shell gets no `-c`. */
function shellScriptArgument(args: readonly Word[]): Word | undefined {
  let hasCommandFlag = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index];
    if (!word) break;
    const value = word.value;
    if (value === '--' || value === '-') {
      return hasCommandFlag ? args[index + 1] : undefined;
    }
    if (SHELL_OPTIONS_WITH_VALUE.has(value)) {
      index++;
      continue;
    }
    if (value.startsWith('--')) continue;
    if (/^[-+][A-Za-z]+$/.test(value)) {
      if (value.startsWith('-') && value.includes('c')) hasCommandFlag = true;
      // `-oc` style clusters are rare enough to refuse rather than interpret.
      if (/[oO]/.test(value.slice(1)) && value.length > 2) {
        throw new ShellSyntaxError(`shell option cluster ${value}`);
      }
      continue;
    }
    return hasCommandFlag ? word : undefined;
  }
  return undefined;
}

function parseInContext(
  script: string,
  where: string,
  parse: (source: string) => SimpleCommand[],
): SimpleCommand[] {
  try {
    return parse(script);
  } catch (error) {
    if (error instanceof ShellSyntaxError) {
      throw new ShellSyntaxError(`in the ${where} script: ${error.message}`);
    }
    throw error;
  }
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
