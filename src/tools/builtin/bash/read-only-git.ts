/**
 * Read-only git invocations. Global options that point git at another repository or inject
 * configuration (`-C`, `-c`, `--git-dir`, `--exec-path`, …) are not accepted: configuration
 * can name programs (pager, fsmonitor, diff drivers) that git then runs.
 */
import { isLongOption } from './option-scan.js';
import type { Word } from '../../../shell/types.js';

const SAFE_GLOBAL_OPTIONS = new Set([
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--no-replace-objects',
]);

/** Subcommands that only read, given none of the refused options below. */
const READING_SUBCOMMANDS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'blame',
  'describe',
  'shortlog',
  'grep',
  'cat-file',
]);

const BRANCH_LISTING_OPTIONS = new Set([
  '-a',
  '-r',
  '-v',
  '-vv',
  '-l',
  '--list',
  '--all',
  '--remotes',
  '--verbose',
  '--show-current',
  '--no-color',
]);

const CONFIG_READ_MODES = new Set(['--get', '--get-all', '--get-regexp', '--list', '-l']);
const CONFIG_MODIFIERS = new Set([
  '--global',
  '--system',
  '--local',
  '--worktree',
  '--show-origin',
  '--show-scope',
  '--name-only',
  '-z',
  '--null',
  '--includes',
  '--no-includes',
  '--bool',
  '--int',
  '--path',
]);

export function isReadOnlyGit(args: readonly Word[]): boolean {
  if (args.some((arg) => arg.leadingDynamic)) return false;
  const values = args.map((arg) => arg.value);
  let index = 0;
  while (index < values.length && SAFE_GLOBAL_OPTIONS.has(values[index] ?? '')) index++;
  const subcommand = values[index];
  const rest = values.slice(index + 1);
  if (subcommand === undefined) return false;
  if (READING_SUBCOMMANDS.has(subcommand)) return rest.every(isSafeReadingOption);
  if (subcommand === 'branch') return isBranchListing(rest);
  if (subcommand === 'remote') return rest.every((arg) => arg === '-v' || arg === '--verbose');
  if (subcommand === 'config') return isConfigRead(rest);
  return false;
}

/**
 * `--output` writes a file; `-O` / `--open-files-in-pager` (git grep) runs a program. git's
 * parse-options takes abbreviations (`--op=prog`) and clusters (`-nOprog`), so any prefix of the
 * long names and any cluster holding an O count (a pattern such as `-eOops` errs on the safe side).
 */
function isSafeReadingOption(arg: string): boolean {
  if (isLongOption(arg, ['--output', '--open-files-in-pager'])) return false;
  return !/^-[^-]*O/.test(arg);
}

/** `git branch` lists with no arguments, listing options, or patterns after --list. */
function isBranchListing(args: readonly string[]): boolean {
  const listing = args.includes('--list') || args.includes('-l');
  return args.every((arg) => BRANCH_LISTING_OPTIONS.has(arg) || (listing && !arg.startsWith('-')));
}

function isConfigRead(args: readonly string[]): boolean {
  const [first, ...rest] = args;
  // git 2.46 subcommand forms: `git config list`, `git config get <name>`.
  if (first === 'list') return rest.every((arg) => CONFIG_MODIFIERS.has(arg));
  if (first === 'get') {
    const names = rest.filter((arg) => !CONFIG_MODIFIERS.has(arg));
    return names.length === 1 && !names[0]?.startsWith('-');
  }
  const modes = args.filter((arg) => CONFIG_READ_MODES.has(arg));
  if (modes.length !== 1) return false;
  const operands = args.filter((arg) => !CONFIG_READ_MODES.has(arg) && !CONFIG_MODIFIERS.has(arg));
  if (operands.some((arg) => arg.startsWith('-'))) return false;
  const listing = modes[0] === '--list' || modes[0] === '-l';
  return listing ? operands.length === 0 : operands.length >= 1 && operands.length <= 2;
}
