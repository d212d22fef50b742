/**
 * Commands that run another command (docs/CC-COMPAT.md §2.3, docs/DECISIONS.md #11).
 *
 * Two lists:
 *   - wrappers seen through by every rule kind, because they run the wrapped command unchanged:
 *     `timeout [opts] N`, `time [-p]`, `nice [-n N]`, `nohup`, `stdbuf -o…`, `command [-p]`,
 *     `builtin`, `noglob` and `xargs` without flags. Their options are parsed exactly; one that is
 *     not understood, or any word with an expansion, stops the stripping (an allow rule then sees
 *     the wrapper itself, which it does not name);
 *   - launchers seen through by deny and ask rules only (`env`, `sudo`, `watch`, `ionice`,
 *     `setsid`, `exec`, …): their options are not modelled, so every later word is tried as the
 *     start of the command. That may deny more than needed; it never denies less.
 *
 * An allow rule only sees through a wrapper called by its bare name: `./timeout` may be anything.
 */
import type { Word } from '../shell/types.js';

interface WrapperSyntax {
  /** Options taking a value: `-n 5`, `-n5`, `--adjustment 5`, `--adjustment=5`. */
  valueOptions?: readonly string[];
  flags?: readonly string[];
  /** Option words accepted as they are (nice's `-10`). */
  flagPattern?: RegExp;
  /** Words between the options and the command (timeout's duration). */
  operands?: readonly RegExp[];
}

const WRAPPERS: ReadonlyMap<string, WrapperSyntax> = new Map<string, WrapperSyntax>([
  [
    'timeout',
    {
      valueOptions: ['-s', '--signal', '-k', '--kill-after'],
      flags: ['--preserve-status', '--foreground', '-v', '--verbose'],
      operands: [/^\d+(\.\d+)?[smhd]?$/],
    },
  ],
  ['time', { flags: ['-p'] }],
  ['nice', { valueOptions: ['-n', '--adjustment'], flagPattern: /^-\d+$/ }],
  ['nohup', {}],
  ['stdbuf', { valueOptions: ['-i', '-o', '-e', '--input', '--output', '--error'] }],
  ['command', { flags: ['-p'] }],
  ['builtin', {}],
  ['noglob', {}],
  ['xargs', {}],
]);

/** Programs that run a command given in their arguments, with options not modelled here. */
const LAUNCHERS = new Set([
  'env',
  'sudo',
  'doas',
  'su',
  'runuser',
  'watch',
  'ionice',
  'setsid',
  'exec',
  'busybox',
  'chrt',
  'taskset',
  'flock',
  'nsenter',
  'unshare',
  'chroot',
  'xargs',
  ...WRAPPERS.keys(),
]);

export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

/** Whether a program runs a command named in its arguments (`sudo`, `env`, `xargs`, `timeout`…). */
export function isLauncher(program: string): boolean {
  return LAUNCHERS.has(basename(program));
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function isStatic(word: Word): boolean {
  return word.expansions.length === 0;
}

/**
 * The wrapped command when `words` starts with a wrapper whose options are understood, or
 * undefined. `byBasename` also recognises `/usr/bin/timeout` (for deny and ask rules).
 */
export function unwrap(words: readonly Word[], byBasename: boolean): Word[] | undefined {
  const first = words[0];
  if (!first || !isStatic(first)) return undefined;
  const name = byBasename ? basename(first.value) : first.value;
  const syntax = WRAPPERS.get(name);
  if (!syntax) return undefined;
  const start = commandStart(words, syntax);
  return start === undefined ? undefined : words.slice(start);
}

function commandStart(words: readonly Word[], syntax: WrapperSyntax): number | undefined {
  let index = 1;
  for (; index < words.length; index++) {
    const word = words[index] as Word;
    if (!isStatic(word)) return undefined;
    const value = word.value;
    if (value === '--') {
      index++;
      break;
    }
    if (!value.startsWith('-') || value === '-') break;
    if (syntax.flags?.includes(value) || syntax.flagPattern?.test(value)) continue;
    const options = syntax.valueOptions ?? [];
    if (options.includes(value)) {
      const optionValue = words[index + 1];
      if (!optionValue || !isStatic(optionValue)) return undefined;
      index++;
      continue;
    }
    const attached = options.some((option) =>
      option.startsWith('--')
        ? value.startsWith(`${option}=`)
        : value.length > option.length && value.startsWith(option),
    );
    if (!attached) return undefined;
  }
  for (const operand of syntax.operands ?? []) {
    const word = words[index];
    if (!word || !isStatic(word) || !operand.test(word.value)) return undefined;
    index++;
  }
  return index < words.length ? index : undefined;
}

/**
 * For deny and ask rules: every tail of a command that starts with a launcher or wrapper, each a
 * possible command (`sudo -u root rm x` → `-u root rm x`, `root rm x`, `rm x`, `x`).
 */
export function launchedTails(words: readonly Word[]): Word[][] {
  const first = words[0];
  if (!first || !LAUNCHERS.has(basename(first.value))) return [];
  const tails: Word[][] = [];
  for (let index = 1; index < words.length; index++) tails.push(words.slice(index));
  return tails;
}

/**
 * The word a launcher would run, as far as can be told: the first word after it that is neither
 * an option nor an assignment. Undefined for a command that is not a launcher.
 */
export function launchedCommandWord(words: readonly Word[]): Word | undefined {
  const first = words[0];
  if (!first || !LAUNCHERS.has(basename(first.value))) return undefined;
  return words
    .slice(1)
    .find((word) => !word.value.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value));
}

/** Git's global options, for deny rules: `git -C /p push` must meet `Bash(git push:*)`. */
const GIT_OPTIONS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
  '--super-prefix',
]);

/** `git <subcommand …>` without the global options, or undefined when there are none. */
export function withoutGitGlobalOptions(words: readonly Word[]): Word[] | undefined {
  const first = words[0];
  if (!first || basename(first.value) !== 'git') return undefined;
  let index = 1;
  while (index < words.length) {
    const value = (words[index] as Word).value;
    if (!value.startsWith('-')) break;
    index += GIT_OPTIONS_WITH_VALUE.has(value) ? 2 : 1;
  }
  return index > 1 && index < words.length ? [first, ...words.slice(index)] : undefined;
}

/** find's actions that write or run programs: never covered by a `Bash(find *)` allow rule. */
const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fls']);

export function findRunsOrWrites(words: readonly Word[]): boolean {
  const first = words[0];
  if (!first || basename(first.value) !== 'find') return false;
  return words
    .slice(1)
    .some(
      (word) => !isStatic(word) || FIND_ACTIONS.has(word.value) || word.value.startsWith('-fprint'),
    );
}

/** The commands `find … -exec cmd … ;` runs, for deny rules. */
export function findExecCommands(words: readonly Word[]): Word[][] {
  const first = words[0];
  if (!first || basename(first.value) !== 'find') return [];
  const commands: Word[][] = [];
  for (let index = 1; index < words.length; index++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes((words[index] as Word).value)) continue;
    const end = words.findIndex(
      (word, at) => at > index && (word.value === ';' || word.value === '+'),
    );
    commands.push(words.slice(index + 1, end === -1 ? words.length : end));
  }
  return commands.filter((command) => command.length > 0);
}

/**
 * A shell that reads its script from standard input (`sh`, `bash -s`, `… | bash`, `bash <<EOF`):
 * what it runs cannot be seen.
 */
export function readsScriptFromStdin(words: readonly Word[]): boolean {
  const first = words[0];
  if (!first || !SHELLS.has(basename(first.value))) return false;
  const args = words.slice(1);
  if (args.some((word) => /^-[A-Za-z]*s/.test(word.value))) return true;
  // `bash -c` without a script reads it from stdin too; `bash -c '…'` was parsed as nested.
  return args.every((word) => /^[-+]/.test(word.value));
}
