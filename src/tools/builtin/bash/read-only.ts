/**
 * Which Bash commands change nothing, for isReadOnly / isConcurrencySafe and the default mode's
 * auto-allow (docs/DECISIONS.md #10). An allowlist: a command is read-only only when it parses and every
 * simple command in it is a known reader with arguments known to be safe. If in doubt, false.
 * Read-only is not yet inside: the auto-allow also needs all the command reads to be in the
 * workspace (read-scope.ts).
 */
import { isLongOption } from './option-scan.js';
import { parseCommand } from '../../../shell/parse-command.js';
import type { Redirection, SimpleCommand, Word } from '../../../shell/types.js';
import { isReadOnlyGit } from './read-only-git.js';

type ArgumentCheck = (args: readonly Word[]) => boolean;

const anyArguments: ArgumentCheck = () => true;

/**
 * For commands whose options can write or run programs: refuses those options, and any argument
 * that could expand into an option (`$X`, `*`), since its value is not known here.
 */
function withoutOptions(short: string, long: readonly string[] = []): ArgumentCheck {
  return (args) =>
    args.every((arg) => {
      if (arg.leadingDynamic) return false;
      const value = arg.value;
      if (isLongOption(value, long)) return false;
      if (/^-[^-]/.test(value))
        return ![...value.slice(1)].some((letter) => short.includes(letter));
      return true;
    });
}

/** find's actions that write files or run programs. */
const FIND_ACTIONS = ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fls'];
const findArguments: ArgumentCheck = (args) =>
  args.every(
    (arg) =>
      !arg.leadingDynamic && !FIND_ACTIONS.includes(arg.value) && !arg.value.startsWith('-fprint'),
  );

/** `uniq [options] [input [output]]`: a second operand is a file it writes. */
const uniqArguments: ArgumentCheck = (args) => {
  const withValue = new Set(['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars']);
  let operands = 0;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (!arg || arg.leadingDynamic) return false;
    if (withValue.has(arg.value)) index++;
    else if (arg.value === '--') operands += args.length - index - 1;
    else if (!arg.value.startsWith('-') || arg.value === '-') operands++;
    if (arg.value === '--') break;
  }
  return operands <= 1;
};

/** printf's options come first only; `-v` assigns a variable, which can evaluate array indexes. */
const printfArguments: ArgumentCheck = (args) => {
  const first = args[0];
  return !first || (!first.leadingDynamic && !first.value.startsWith('-v'));
};

/** `test -v 'a[$(cmd)]'` evaluates the index, so -v and -R are refused. */
const testArguments: ArgumentCheck = (args) =>
  args.every((arg) => arg.value !== '-v' && arg.value !== '-R');

const cdArguments: ArgumentCheck = (args) =>
  args.filter((arg) => !['-P', '-L', '--'].includes(arg.value)).length <= 1;

const COMMANDS = new Map<string, ArgumentCheck>([
  ...[
    'ls',
    'cat',
    'head',
    'tail',
    'wc',
    'grep',
    'egrep',
    'fgrep',
    'echo',
    'pwd',
    'which',
    'type',
    'diff',
    'stat',
    'du',
    'df',
    'basename',
    'dirname',
    'realpath',
    'readlink',
    'whoami',
    'true',
    'false',
    'sleep',
    'cut',
    'tr',
    'nl',
    'cmp',
    'md5sum',
    'sha1sum',
    'sha224sum',
    'sha256sum',
    'sha384sum',
    'sha512sum',
    'jq',
  ].map((name): [string, ArgumentCheck] => [name, anyArguments]),
  ['rg', withoutOptions('', ['--pre', '--hostname-bin'])],
  ['find', findArguments],
  ['printf', printfArguments],
  ['file', withoutOptions('C', ['--compile'])],
  ['tree', withoutOptions('oR', ['--output'])],
  ['date', withoutOptions('s', ['--set'])],
  // Without a name, printenv prints the whole environment (as do env and set, not listed).
  ['printenv', (args) => args.length > 0 && args.every((arg) => !arg.leadingDynamic)],
  ['test', testArguments],
  ['[', testArguments],
  ['sort', withoutOptions('o', ['--output', '--compress-program'])],
  ['uniq', uniqArguments],
  ['cd', cdArguments],
  ['git', isReadOnlyGit],
]);

export function isReadOnlyCommand(command: string): boolean {
  const parsed = parseCommand(command);
  if (!parsed.ok || parsed.commands.length === 0) return false;
  const names = parsed.commands.map((part) => part.argv[0]);
  // `cd elsewhere && git …` would run git under another repository's configuration.
  if (names.includes('cd') && names.includes('git')) return false;
  return parsed.commands.every(isReadOnlySimpleCommand);
}

export function isReadOnlySimpleCommand(command: SimpleCommand): boolean {
  if (command.assignments.length > 0 || command.nested.length > 0) return false;
  // A background job outlives the call that started it (`ls &`, like setsid, nohup, disown).
  if (command.background) return false;
  if (!command.redirections.every(isSafeRedirection)) return false;
  // Arithmetic can evaluate array indexes that run commands; nested covers the other kinds.
  if (command.words.some((word) => word.expansions.includes('arithmetic'))) return false;
  const [name, ...args] = command.words;
  if (!name || name.raw !== name.value) return false;
  const check = COMMANDS.get(name.value);
  return check !== undefined && check(args);
}

const DEV_NULL = '/dev/null';
/** bash opens a connection for these names in a redirection: network access, never a read. */
const NETWORK_DEVICE = /^\/dev\/(tcp|udp)\//;
const RUN_TIME_EXPANSIONS = ['parameter', 'command', 'arithmetic', 'process'];

function isSafeRedirection(redirection: Redirection): boolean {
  const { operator, target } = redirection;
  const isStatic = target.expansions.length === 0;
  switch (operator) {
    case '<':
      // A name known only at run time could be /dev/tcp/… as well.
      return (
        !NETWORK_DEVICE.test(target.value) &&
        !target.expansions.some((kind) => RUN_TIME_EXPANSIONS.includes(kind))
      );
    case '<<':
    case '<<-':
    case '<<<':
      return true;
    case '<&':
    case '>&':
      if (isStatic && /^(\d+|-)$/.test(target.value)) return true;
      return operator === '>&' && isStatic && target.value === DEV_NULL;
    default:
      return isStatic && target.value === DEV_NULL;
  }
}
