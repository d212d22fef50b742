/**
 * The files a Bash command reads or writes through its own words, for Read(…) and Edit(…) deny
 * and ask rules (docs/CC-COMPAT.md §2.4: deny rules "also apply to recognized Bash file commands … but
 * not to arbitrary subprocesses"). Best effort and one-sided: an operand can only add a denial,
 * so where a word is ambiguous it is taken for a file.
 *
 *   1. parse (shell/parse-command.ts); every simple command counts, nested ones too (`$(cat .env)`,
 *      `bash -c 'head .env'`, `eval …`);
 *   2. see through launchers (`sudo`, `timeout 5`, `env X=1`, `xargs`, …): every tail of their
 *      words is tried as the command;
 *   3. the file words of known programs (file-commands.ts) and of redirections: `< f` reads;
 *      `> f`, `>> f`, `>| f`, `&> f`, `>& f` write; `<> f` does both;
 *   4. each word resolved against the Bash cwd and every directory a `cd` in the command names,
 *      and through symlinks (a deny on the link or on its target applies);
 *   5. words the shell expands:
 *      - `~/x`: the home directory;
 *      - globs and braces (`.e*`, `*.env`, `.{env,x}`): the pattern itself, which the rule
 *        matcher compares name to name (path-rules.ts), and the files it matches on disk now
 *        (with `**` as bash's plain `*`). As in bash, `*` and `?` do not match a leading dot,
 *        unless the command or the environment mentions dotglob or GLOBIGNORE: `cat *.env`
 *        cannot read `.env`, `cat .e*` can;
 *      - a parameter or command substitution (`$F`, `"$F"`, `$(pwd)/x`): its value is unknown
 *        until run time. When the last path segment is literal (`$DIR/.env`), that name in an
 *        unknown directory is checked; otherwise the word is not checked at all — the same
 *        limit as for programs that open files of their own.
 *   A command that does not parse: each of its words is taken for a file read.
 *
 * Not covered: arbitrary programs (`python -c …`, `node x.js`, `curl -d @f`), git reading its
 * object store (`git show HEAD:.env`), a recursive search of a directory that holds a denied
 * file (`grep -r KEY .`: use the Grep tool, which hides such files), `find … -exec`, sed's `r`
 * and `w` commands, names piped into `xargs`.
 */
import { posix } from 'node:path';
import picomatch from 'picomatch';
import { globSync } from 'tinyglobby';
import { realPathOf } from '../../paths.js';
import type { FileOperand } from '../../tool.js';
import { commandFileWords } from './file-commands.js';
import { tooManyStars } from './glob-limits.js';
import { isStandardDevice, wordPlaces } from './read-paths.js';
import type { FileAccess, FileWord } from './file-commands.js';
import { allCommands, parseCommand } from '../../../shell/parse-command.js';
import type { ExpansionKind, Redirection, SimpleCommand, Word } from '../../../shell/types.js';

export interface OperandContext {
  /** The Bash tool's working directory. */
  cwd: string;
  homeDir: string;
  /** The environment the command runs with (BASHOPTS, GLOBIGNORE change globbing). */
  env: Readonly<Record<string, string>>;
}

/** Programs that run a command given in their arguments. */
const LAUNCHERS = new Set([
  ...['sudo', 'doas', 'env', 'timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command'],
  ...['builtin', 'noglob', 'xargs', 'ionice', 'setsid', 'exec', 'watch', 'chrt', 'taskset'],
  ...['flock', 'unshare', 'nsenter', 'chroot', 'busybox', 'runuser'],
]);
/** Launcher options are not modelled; a command this far in is not looked for. */
const MAX_LAUNCHER_WORDS = 16;
const MAX_DIRECTORIES = 8;
/** A pattern with more segments than this is not expanded on disk (only compared by name). */
const MAX_EXPANDED_SEGMENTS = 4;
const MAX_EXPANDED_FILES = 500;
const MAX_FALLBACK_WORDS = 1000;
const RUN_TIME_EXPANSIONS: ReadonlySet<ExpansionKind> = new Set([
  'parameter',
  'command',
  'arithmetic',
  'process',
]);

export function bashFileOperands(command: string, context: OperandContext): FileOperand[] {
  const dot =
    /dotglob|GLOBIGNORE/.test(command) ||
    (context.env.BASHOPTS ?? '').includes('dotglob') ||
    context.env.GLOBIGNORE !== undefined;
  const parsed = parseCommand(command);
  const commands = parsed.ok ? allCommands(parsed.commands) : [];
  const words = parsed.ok ? commands.flatMap(fileWordsOf) : fallbackWords(command);
  const directories = parsed.ok
    ? workingDirectories(commands, context)
    : { directories: [context.cwd], unknown: false };
  const operands = new Map<string, FileOperand>();
  for (const { word, access, removes, recursive } of words) {
    const removal = { ...(removes && { removes }), ...(recursive && { recursive }) };
    const resolved = resolveWord(word, access, directories, context.homeDir, dot, removal);
    for (const operand of removes ? resolved.map((each) => ({ ...each, removes })) : resolved) {
      operands.set(
        `${operand.access} ${operand.removes ? 'removed ' : ''}${operand.pattern ? 'pattern' : 'path'} ${operand.path}`,
        operand,
      );
    }
  }
  return [...operands.values()];
}

function fileWordsOf(command: SimpleCommand): FileWord[] {
  const files = command.redirections.flatMap(redirectionFiles);
  for (const [name, ...args] of commandForms(command.words)) {
    if (!name || name.expansions.length > 0) continue;
    files.push(...commandFileWords(basename(name.value), args));
  }
  return files;
}

/** The words as written, and every tail of them when they start with a launcher. */
function commandForms(words: readonly Word[]): Word[][] {
  const forms = [[...words]];
  const first = words[0];
  if (first && LAUNCHERS.has(basename(first.value))) {
    const last = Math.min(words.length, MAX_LAUNCHER_WORDS + 1);
    for (let index = 1; index < last; index++) forms.push(words.slice(index));
  }
  return forms;
}

function redirectionFiles({ operator, target }: Redirection): FileWord[] {
  const read = { word: target, access: 'read' as const };
  const write = { word: target, access: 'write' as const };
  switch (operator) {
    case '<':
      return [read];
    case '<>':
      return [read, write];
    case '>':
    case '>>':
    case '>|':
    case '&>':
    case '&>>':
      return [write];
    case '>&':
      // `>&2` and `>&-` duplicate or close a descriptor; `>& file` writes the file.
      return target.expansions.length === 0 && /^(\d+|-)$/.test(target.value) ? [] : [write];
    default:
      return [];
  }
}

/**
 * Where the command's words may be taken from: the cwd and every directory a `cd` or `pushd` in
 * the command could move to. `unknown`: some cd goes where only run time knows (`cd "$D"`,
 * `cd -`, `cd $(…)`, through CDPATH); a relative word may then be in any directory. A cd to a
 * glob goes to what the glob matches (read-paths.ts places it, as read-scope.ts does).
 */
export interface WorkingDirectories {
  directories: string[];
  unknown: boolean;
}

export function workingDirectories(
  commands: readonly SimpleCommand[],
  context: OperandContext,
): WorkingDirectories {
  const directories = [context.cwd];
  let unknown = false;
  for (const command of commands) {
    const [name, ...args] = command.words;
    if (name?.value !== 'cd' && name?.value !== 'pushd') continue;
    const target = args.find((word) => !/^-[LPe@]+$/.test(word.value) && word.value !== '--');
    const relative = target !== undefined && !/^[/~]|^\$HOME\b|^\$\{HOME\}/.test(target.value);
    const places =
      target?.value === '-' || (relative && (context.env.CDPATH ?? '') !== '')
        ? { unknown: 'cd - or CDPATH' }
        : target
          ? wordPlaces(target, directories, context.homeDir)
          : { paths: [context.homeDir] };
    if ('unknown' in places) {
      unknown = true;
      continue;
    }
    for (const next of places.paths) {
      if (directories.length >= MAX_DIRECTORIES) unknown = true;
      else if (!directories.includes(next)) directories.push(next);
    }
  }
  return { directories, unknown };
}

/** `$PWD`, `${PWD}` and `~+` are the directory the word is used in; `~-`, `$OLDPWD` are not known. */
const CURRENT_DIRECTORY = /^(?:\$PWD|\$\{PWD\}|~\+)(?=\/|$)/;
const PREVIOUS_DIRECTORY = /^(?:\$OLDPWD|\$\{OLDPWD\}|~-)(?=\/|$)/;

export function resolveWord(
  word: Word,
  access: FileAccess,
  where: WorkingDirectories,
  homeDir: string,
  dot: boolean,
  removal?: Pick<FileWord, 'removes' | 'recursive'>,
): FileOperand[] {
  const home = /^(?:\$HOME|\$\{HOME\})(\/[^$`]*)?$/.exec(word.value);
  const current = CURRENT_DIRECTORY.exec(word.value);
  // `$HOME/x` names the same file as `~/x`: the tools' HOME is the one known here.
  const value = home
    ? `${homeDir}${home[1] ?? ''}`
    : current
      ? `.${word.value.slice(current[0].length)}`
      : word.value.replace(PREVIOUS_DIRECTORY, '$OLDPWD');
  if (value === '' || value === '-') return [];
  const runTime = current
    ? /[$`]/.test(value)
    : !home &&
      (word.expansions.some((kind) => RUN_TIME_EXPANSIONS.has(kind)) || value !== word.value);
  if (runTime) return inUnknownDirectory(value, access, dot, removal);
  const expanded = word.expansions.includes('tilde') ? expandTilde(value, homeDir) : value;
  const absolute = posix.isAbsolute(expanded);
  const paths = absolute
    ? [expanded]
    : where.directories.map((directory) => `${directory}/${expanded}`);
  const isPattern = word.expansions.includes('glob') || word.expansions.includes('brace');
  const known = paths.flatMap((path): FileOperand[] => {
    if (!isPattern) return withRealPath(path).map((each) => ({ path: each, access }));
    const pattern = posix.normalize(path);
    return [
      { path: pattern, access, pattern: { dot } },
      ...expandOnDisk(pattern, dot)
        .flatMap(withRealPath)
        .map((each) => ({ path: each, access })),
    ];
  });
  // After a cd to a place known only at run time, a relative word may be anywhere.
  return absolute || !where.unknown
    ? known
    : [...known, ...inUnknownDirectory(`$CD/${expanded}`, access, dot, removal)];
}

/**
 * A word whose directory is known only at run time (`$DIR/.env`, `"$D/x/ci-agent.yml"`): the
 * literal segments after the last expansion, in any directory, with `*` free to match the dot
 * segments of the unknown part (`/**\/ci-agent.yml` reaches `.github/ci-agent.yml`). A removal of
 * something wholly unknown (`rm -rf "$DIR"/*`, `rm -rf "$H"`, which is `rm -rf /*` or the home
 * when the variable is) is given as `/*`: it could be anything.
 */
function inUnknownDirectory(
  value: string,
  access: FileAccess,
  dot: boolean,
  removal?: Pick<FileWord, 'removes' | 'recursive'>,
): FileOperand[] {
  const segments = value.split('/');
  const last = segments.findLastIndex((segment) => /[$`]/.test(segment));
  const tail = posix.normalize(segments.slice(last + 1).join('/') || '.');
  const known = tail.split('/').filter((segment) => !['', '.', '..'].includes(segment));
  const name = known.at(-1);
  const anything = [{ path: '/*', access, pattern: { dot } }];
  if (removal?.removes && (name === undefined || /^[*?]+$/.test(name))) {
    // `rm -rf "$DIR"/*` or a recursive removal of a directory named only at run time.
    if (name !== undefined || removal.recursive) return anything;
  }
  if (name === undefined || known.some((segment) => /[$`(){}]/.test(segment))) return [];
  return [{ path: `/**/${known.join('/')}`, access, pattern: { dot: true } }];
}

/** The path normalized, and where it really leads (`link/..` goes where the kernel goes). */
function withRealPath(path: string): string[] {
  const normalized = posix.normalize(path).replace(/(.)\/+$/, '$1');
  // The standard streams lead to whatever ci-agent's own descriptors are open on, not the command's.
  if (isStandardDevice(normalized)) return [normalized];
  const real = realPathOf(path);
  return real === normalized ? [normalized] : [normalized, real];
}

/** The existing entries a pattern names now, as bash (without globstar) would expand it. */
function expandOnDisk(pattern: string, dot: boolean): string[] {
  const { base, glob } = picomatch.scan(pattern);
  const rest = glob.replaceAll('**', '*');
  if (rest === '' || rest.split('/').length > MAX_EXPANDED_SEGMENTS || tooManyStars(rest))
    return [];
  try {
    return globSync(rest, {
      cwd: base === '' ? '/' : base,
      dot,
      absolute: true,
      onlyFiles: false,
      expandDirectories: false,
      followSymbolicLinks: false,
    })
      .slice(0, MAX_EXPANDED_FILES)
      .map((path) => path.replace(/(.)\/$/, '$1'));
  } catch {
    return [];
  }
}

/** For a command that does not parse: every word, taken for a file read. */
function fallbackWords(command: string): FileWord[] {
  return command
    .split(/[\s;&|()<>`"']+/)
    .filter((token) => token !== '' && !token.startsWith('-'))
    .slice(0, MAX_FALLBACK_WORDS)
    .map((token) => ({ word: tokenWord(token), access: 'read' as const }));
}

/** A word of a command that does not parse, with the expansions its characters suggest. */
export function tokenWord(token: string): Word {
  const expansions: ExpansionKind[] = [];
  if (token.includes('$')) expansions.push('parameter');
  if (/[*?]/.test(token) || /\[.*\]/.test(token)) expansions.push('glob');
  if (/\{.*,.*\}/.test(token)) expansions.push('brace');
  if (token.startsWith('~')) expansions.push('tilde');
  return { raw: token, value: token, expansions, leadingDynamic: expansions.length > 0 };
}

function expandTilde(value: string, homeDir: string): string {
  if (value === '~') return homeDir;
  return value.startsWith('~/') ? `${homeDir}${value.slice(1)}` : value;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
