/**
 * What a read-only Bash command can read, for the default mode's "read-only inside the workspace"
 * (docs/POLICY.md, "Read-only Bash"). isReadOnlyCommand says the command changes nothing; this
 * says where it looks, and fails closed: whatever cannot be placed counts as outside.
 *
 *   1. the directories each command may run in: the Bash cwd and the target of every `cd` before
 *      it (a cd to a place known only at run time, `cd -`, or one through CDPATH cannot be placed);
 *   2. per simple command, the words that may name what it reads: the file operands of the
 *      programs file-commands.ts knows (grep's pattern is no file), every argument of the others
 *      (ls, find, test, git, …), the value of every `--option=value` and of a `-x/path` cluster,
 *      the `<` redirections, every glob (it lists a directory, even for echo), and `.` (the
 *      directory itself: `ls`, `grep -r x`, `git status`);
 *   3. what cannot be placed from the words: a recursion that follows symbolic links (`grep -R`,
 *      `find -L`, `diff -r`), names read from a file (`sha256sum -c`, `--files0-from`), jq
 *      modules and jq's view of the environment, git in a repository other than the workspace's;
 *   4. each word resolved (read-paths.ts); the kernel's paths (/proc, /sys, /dev) are outside.
 */
import { commandFileWords } from './file-commands.js';
import { isWorkspaceRepository } from './git-repository.js';
import { afterPrefix, isLongOption } from './option-scan.js';
import { parseCommand } from '../../../shell/parse-command.js';
import type { SimpleCommand, Word } from '../../../shell/types.js';
import { kernelPaths, wordPlaces } from './read-paths.js';

export interface ScopeContext {
  /** The Bash tool's working directory (inside the workspace). */
  cwd: string;
  homeDir: string;
  env: Readonly<Record<string, string>>;
  workspaceRoots: readonly string[];
}

export interface ReadScope {
  /** Absolute paths it reads, each as written and as resolved through symlinks. */
  paths: string[];
  /** What it may read that is outside whatever the roots, or that cannot be placed, in words. */
  outside: string[];
}

/** Programs whose arguments name no file. */
const NO_FILES = new Set(
  'echo printf pwd which type basename dirname whoami printenv true false sleep tr'.split(' '),
);
/** Programs whose file operands file-commands.ts knows. */
const KNOWN_OPERANDS = new Set([
  ...'cat head tail wc grep egrep fgrep diff stat cut nl cmp jq rg file sort uniq'.split(' '),
  ...'md5sum sha1sum sha224sum sha256sum sha384sum sha512sum'.split(' '),
]);
const MAX_DIRECTORIES = 8;

export function readScope(command: string, context: ScopeContext): ReadScope {
  const parsed = parseCommand(command);
  if (!parsed.ok) return { paths: [], outside: ['a command that could not be read'] };
  const outside: string[] = [];
  const directories = [context.cwd];
  const paths: string[] = [];
  // In source order: a command runs in the cwd or where a cd before it went.
  for (const simple of parsed.commands) {
    outside.push(...unplaceable(simple, context));
    for (const word of readWords(simple)) {
      const places = wordPlaces(word, directories, context.homeDir);
      if ('unknown' in places) outside.push(places.unknown);
      else paths.push(...places.paths);
    }
    if (simple.words[0]?.value === 'cd') changeDirectory(simple, context, directories, outside);
  }
  const unique = [...new Set(paths)];
  outside.push(...kernelPaths(unique).map((path) => `${path} (the kernel's)`));
  return { paths: unique, outside: [...new Set(outside)] };
}

/** Adds where `cd` may go to `directories`, or says why that cannot be known. */
function changeDirectory(
  command: SimpleCommand,
  context: ScopeContext,
  directories: string[],
  outside: string[],
): void {
  const target = command.words.slice(1).find((word) => !['-P', '-L', '--'].includes(word.value));
  if (target?.value === '-') {
    outside.push('cd - (the previous directory)');
    return;
  }
  const relative = target !== undefined && !/^[/~]|^\$HOME\b|^\$\{HOME\}/.test(target.value);
  if (relative && (context.env.CDPATH ?? '') !== '') {
    outside.push(`cd ${target.raw} (through CDPATH)`);
    return;
  }
  const places = target
    ? wordPlaces(target, directories, context.homeDir)
    : { paths: [context.homeDir] };
  if ('unknown' in places) {
    outside.push(`cd ${places.unknown}`);
    return;
  }
  for (const path of places.paths) if (!directories.includes(path)) directories.push(path);
  if (directories.length > MAX_DIRECTORIES)
    outside.push('a command that changes directory too often to follow');
}

/** The words that may name something the command reads. */
function readWords(command: SimpleCommand): Word[] {
  const inputs = command.redirections
    .filter((redirection) => redirection.operator === '<')
    .map((redirection) => redirection.target);
  const [name, ...args] = command.words;
  // A glob lists its directory whatever the program does with the names (`echo ~/.ssh/*`).
  const globs = args.filter((arg) => arg.expansions.includes('glob'));
  if (!name || NO_FILES.has(name.value)) return [...inputs, ...globs];
  const here: Word = { raw: '.', value: '.', expansions: [], leadingDynamic: false };
  const words = (arg: Word) => !arg.value.startsWith('-') || arg.leadingDynamic;
  // `rg --files` takes no pattern: every operand is a path.
  const known =
    KNOWN_OPERANDS.has(name.value) && !(name.value === 'rg' && hasWord(args, '--files'));
  const operands = known
    ? commandFileWords(name.value, args)
        .filter((file) => file.access === 'read')
        .map((file) => file.word)
    : args.filter(words);
  // The table reads short clusters (`cut -d/`); an unknown long option's value may be a file.
  const values = args.flatMap((arg) => optionValue(arg, !known));
  return [...inputs, here, ...operands, ...values, ...globs];
}

/**
 * `--name=value` → value; with `clusters`, `-x/path` → `/path` (only an absolute or climbing
 * value can lead out, and one of those holds a slash).
 */
function optionValue(arg: Word, clusters: boolean): Word[] {
  const value = arg.value;
  if (arg.leadingDynamic || !value.startsWith('-')) return [];
  if (value.startsWith('--')) {
    const equals = value.indexOf('=');
    return equals === -1 ? [] : [afterPrefix(arg, equals + 1)];
  }
  const slash = value.indexOf('/');
  return clusters && slash !== -1 ? [afterPrefix(arg, slash)] : [];
}

function hasWord(args: readonly Word[], value: string): boolean {
  return args.some((arg) => arg.value === value);
}

/** What the command's options make it read beyond the words it names. */
function unplaceable(command: SimpleCommand, context: ScopeContext): string[] {
  const [name, ...args] = command.words;
  const program = name?.value ?? '';
  const values = args.map((arg) => arg.value);
  const cluster = (letter: string) =>
    values.some((value) => /^-[^-]/.test(value) && value.includes(letter));
  const long = (...names: string[]) => values.some((value) => isLongOption(value, names));
  const word = (...names: string[]) => values.some((value) => names.includes(value));
  const found: string[] = [];
  const follows = `${command.text} (follows symbolic links out of what it names)`;
  const listed = `${command.text} (reads the names of what it reads from a file)`;
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
      if (cluster('R') || long('--dereference-recursive')) found.push(follows);
      break;
    case 'rg':
      if (cluster('L') || long('--follow')) found.push(follows);
      break;
    case 'find':
      if (word('-L', '-follow')) found.push(follows);
      if (word('-files0-from')) found.push(listed);
      break;
    case 'ls':
    case 'du':
      if (cluster('L') || long('--dereference')) found.push(follows);
      if (long('--files0-from')) found.push(listed);
      break;
    case 'tree':
      if (cluster('l')) found.push(follows);
      break;
    case 'diff':
      // GNU diff follows symbolic links while it recurses.
      if (cluster('r') || long('--recursive')) found.push(follows);
      break;
    case 'wc':
    case 'sort':
      if (long('--files0-from')) found.push(listed);
      break;
    case 'file':
      if (cluster('f') || long('--files-from')) found.push(listed);
      break;
    case 'jq':
      if (values.some((value) => /\b(import|include)\b/.test(value)) || cluster('f'))
        found.push(`${command.text} (jq modules come from a search path outside the workspace)`);
      if (long('--from-file')) found.push(`${command.text} (a jq program read from a file)`);
      if (values.some((value) => /\$ENV\b|\benv\b/.test(value)))
        found.push(`${command.text} (the environment)`);
      break;
    case 'git':
      if (!isWorkspaceRepository(context.cwd, context.workspaceRoots))
        found.push(`git in ${context.cwd} (a repository other than the workspace's)`);
      break;
    default:
      if (/^(md5|sha\d+)sum$/.test(program) && (cluster('c') || long('--check')))
        found.push(listed);
  }
  return found;
}
