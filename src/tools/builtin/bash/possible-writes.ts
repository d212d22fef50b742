/**
 * What a command not known to be read-only may change beyond the writes its words show
 * (file-operands.ts), for the judges floor only (docs/DECISIONS.md #18). It fails closed: judges are
 * never the agent's to change, and most programs' writes cannot be read from their words
 * (`perl -pi`, `curl -o`, `find -exec`, `tar x`, `git checkout evil -- .github`).
 *
 *   1. every word of each simple command that is not read-only by itself (its arguments, the value
 *      of `--option=value`, its redirection targets) and every assignment's value, resolved as
 *      file-operands.ts resolves a file word: `perl -pi … .claude/settings.json`, `D=.claude; …`.
 *      A read operand of a program whose operands are known (`cp .claude/x /tmp`) does not count;
 *      nor does a read-only command's, unless the command feeds names to xargs;
 *   2. a judge's name anywhere inside a word (`python3 -c "open('.mcp.json','w')"`, sed's
 *      `w .github/ci-agent.yml`): that name, in any directory;
 *   3. git rewriting the working tree (a checkout or switch to another ref, restore, reset --hard,
 *      stash pop, merge, apply, …): the paths it names and all below them, or anything at all
 *      when it names none; an archive extracted or a patch applied (tar x, unzip, patch, cpio -i):
 *      all below the directory it extracts into;
 *   4. a command that does not parse (loops, functions, `if`): each of its words, as in 1 and 2.
 */
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { FileOperand } from '../../tool.js';
import { commandFileWords } from './file-commands.js';
import { resolveWord, tokenWord, workingDirectories } from './file-operands.js';
import type { OperandContext, WorkingDirectories } from './file-operands.js';
import { afterPrefix } from './option-scan.js';
import { isReadOnlySimpleCommand } from './read-only.js';
import { allCommands, parseCommand } from '../../../shell/parse-command.js';
import type { SimpleCommand, Word } from '../../../shell/types.js';
import { JUDGES_IN_ROOT } from '../../../permissions/judges.js';

/** Anything: git rewriting a tree it names no part of. */
const ANYTHING: FileOperand = { path: '/**', access: 'write', pattern: { dot: true } };
const NAME_PIPES = new Set(['xargs', 'parallel']);
const MAX_WORDS = 1000;

export function possibleWrites(command: string, context: OperandContext): FileOperand[] {
  const parsed = parseCommand(command);
  const found: FileOperand[] = [];
  if (!parsed.ok) {
    const where = { directories: [context.cwd], unknown: false };
    const words = command.split(/[\s;&|()<>`"']+/).filter((token) => token !== '');
    for (const token of words.slice(0, MAX_WORDS))
      found.push(...named(tokenWord(token), where, context));
    found.push(...judgeNames(command));
    return unique(found);
  }
  const commands = allCommands(parsed.commands);
  const where = workingDirectories(commands, context);
  const feedsNames = commands.some((simple) => NAME_PIPES.has(simple.argv[0] ?? ''));
  for (const simple of commands) {
    for (const { value } of simple.assignments) found.push(...named(value, where, context));
    if (!feedsNames && isReadOnlySimpleCommand(simple)) continue;
    for (const word of wordsOf(simple)) found.push(...named(word, where, context));
    found.push(...treeChanges(simple, where, context));
  }
  return unique(found);
}

/** A word as a write: where it resolves to, and every judge name written inside it. */
function named(word: Word, where: WorkingDirectories, context: OperandContext): FileOperand[] {
  return [...resolveWord(word, 'write', where, context.homeDir, true), ...judgeNames(word.value)];
}

/** The words that may name a file: arguments and option values, less known reads; redirections. */
function wordsOf(command: SimpleCommand): Word[] {
  const [name, ...args] = command.words;
  // git's words are refs, messages and pathspecs: treeChanges reads what it rewrites.
  if (!name || name.value === 'git') return [];
  const reads = new Set(
    commandFileWords(name.value, args)
      .filter((file) => file.access === 'read')
      .map((file) => file.word),
  );
  const values = args.flatMap((arg) => {
    const equals = arg.value.indexOf('=');
    return arg.value.startsWith('-') && equals !== -1 ? [afterPrefix(arg, equals + 1)] : [];
  });
  const targets = command.redirections
    .filter((redirection) => !['<<', '<<-', '<<<'].includes(redirection.operator))
    .map((redirection) => redirection.target);
  const script = scriptRun(name.value, args);
  const named = args.filter((arg) => !reads.has(arg) && arg !== script);
  return [...named, ...values, ...targets];
}

const INTERPRETERS = /^(?:ba|da|z|k)?sh$|^(?:node|deno|bun|perl|ruby|php|python[\d.]*)$/;
/**
 * The script file an interpreter runs (`node scripts/check.mjs`, `bash .claude/hooks/guard.sh`):
 * run, not written. None when the code comes inline (`-c`, `-e`, `-p`) or a module is named.
 */
function scriptRun(name: string, args: readonly Word[]): Word | undefined {
  if (!INTERPRETERS.test(posix.basename(name))) return undefined;
  for (const arg of args) {
    if (/^-[A-Za-z]*[ceEpm]/.test(arg.value) || /^--(eval|print)\b/.test(arg.value))
      return undefined;
    if (!arg.value.startsWith('-')) return arg;
  }
  return undefined;
}

/** `.claude`, `.mcp.json`, `.github/ci-agent.yml`, … written inside `text`: in any directory. */
function judgeNames(text: string): FileOperand[] {
  const lower = text.toLowerCase();
  return JUDGES_IN_ROOT.filter((name) => {
    for (let at = lower.indexOf(name); at !== -1; at = lower.indexOf(name, at + 1)) {
      const before = lower[at - 1] ?? '';
      const after = lower[at + name.length] ?? '';
      if (!/[\w.-]/.test(before) && !/[\w.-]/.test(after)) return true;
    }
    return false;
  }).map((name) => ({ path: `/**/${name}`, access: 'write', pattern: { dot: true } }));
}

/** What git, an archive tool or patch rewrites below the paths it names (step 3). */
function treeChanges(
  command: SimpleCommand,
  where: WorkingDirectories,
  context: OperandContext,
): FileOperand[] {
  const [name, ...args] = command.words;
  const program = posix.basename(name?.value ?? '');
  const values = args.map((arg) => arg.value);
  const below = (words: readonly Word[]) =>
    words.flatMap((word) =>
      resolveWord(word, 'write', where, context.homeDir, true).flatMap((operand) =>
        operand.pattern ? [operand] : [operand, { ...ANYTHING, path: `${operand.path}/**` }],
      ),
    );
  const here = () => (where.unknown ? [ANYTHING] : below([tokenWord('.')]));
  switch (program) {
    case 'git':
      return gitTreeChanges(args, where.directories, below);
    case 'tar':
    case 'bsdtar':
    case 'gtar': {
      const extracts =
        /^[^-]*x/.test(values[0] ?? '') ||
        values.some(
          (value) => /^-[^-]*x/.test(value) || value === '--extract' || value === '--get',
        );
      if (!extracts) return [];
      const directory = optionValue(args, ['-C', '--directory']);
      return directory ? below([directory]) : here();
    }
    case 'unzip': {
      if (values.some((value) => /^-[^-]*[lptvZ]/.test(value))) return [];
      const directory = optionValue(args, ['-d']);
      return directory ? below([directory]) : here();
    }
    case 'patch':
    case 'cpio': {
      if (
        values.includes('--dry-run') ||
        (program === 'cpio' && !values.some((v) => /^-[^-]*[ip]/.test(v) || v === '--extract'))
      )
        return [];
      const directory = optionValue(args, ['-d', '--directory', '-D']);
      return directory ? below([directory]) : here();
    }
    default:
      return [];
  }
}

/** The value of `-C dir`, `-Cdir` or `--directory=dir`. */
function optionValue(args: readonly Word[], names: readonly string[]): Word | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as Word;
    for (const name of names) {
      if (arg.value === name) return args[index + 1];
      const joined = name.startsWith('--') ? `${name}=` : name;
      if (arg.value.startsWith(joined) && arg.value.length > joined.length)
        return afterPrefix(arg, joined.length);
    }
  }
  return undefined;
}

/** git's global options that take a value; `-C`, `--work-tree` and `--git-dir` move the tree. */
const GIT_GLOBAL_VALUES = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);
const ANY_TREE = new Set(['apply', 'am', 'merge', 'rebase', 'cherry-pick', 'pull', 'revert']);
const PLUMBING = new Set(['checkout-index', 'read-tree', 'update-index', 'merge-file']);

/**
 * The working-tree changes of `git …` (step 3). A checkout or switch that creates a branch where
 * HEAD is changes nothing; one to another ref could change every judge (whether the ref's judges
 * differ is not looked up here), so it counts as writing anything.
 */
function gitTreeChanges(
  args: readonly Word[],
  directories: readonly string[],
  below: (words: readonly Word[]) => FileOperand[],
): FileOperand[] {
  let index = 0;
  let moved = false;
  for (; index < args.length; index++) {
    const value = (args[index] as Word).value;
    if (!value.startsWith('-')) break;
    if (/^(-C|--work-tree|--git-dir)(=|$)/.test(value)) moved = true;
    if (GIT_GLOBAL_VALUES.has(value)) index++;
  }
  const changes = subcommandChanges(args.slice(index), directories, below);
  // In another directory or tree, the paths it names are not where they seem.
  return moved && changes.length > 0 ? [ANYTHING] : changes;
}

function subcommandChanges(
  args: readonly Word[],
  directories: readonly string[],
  below: (words: readonly Word[]) => FileOperand[],
): FileOperand[] {
  const subcommand = args[0]?.value ?? '';
  const rest = args.slice(1);
  const values = rest.map((word) => word.value);
  const dashes = values.indexOf('--');
  const options = dashes === -1 ? values : values.slice(0, dashes);
  const positional = (dashes === -1 ? rest : rest.slice(0, dashes)).filter(
    // `-` alone is the previous branch (`git checkout -`).
    (word, at, all) =>
      (word.value === '-' || !word.value.startsWith('-')) && !takesValue(all[at - 1]?.value),
  );
  const paths = dashes === -1 ? [] : rest.slice(dashes + 1);
  const pathspecs = (words: readonly Word[]) =>
    words.some(
      (word) =>
        word.value.startsWith(':') || (word.expansions.length > 0 && /^[$`]/.test(word.value)),
    )
      ? [ANYTHING]
      : below(words);
  if (ANY_TREE.has(subcommand) || PLUMBING.has(subcommand)) return [ANYTHING];
  switch (subcommand) {
    case 'checkout':
    case 'switch': {
      if (dashes !== -1) return pathspecs(paths);
      const creates = options.some((value) => /^-[bBcC]$|^--orphan$/.test(value));
      // `git checkout -b new` stays where HEAD is; `-b new start` moves to start.
      const target = creates ? positional.slice(1) : positional;
      // Without `--`, a word that names an existing file is a path, any other a ref.
      const files = target.filter((word) => existsIn(word, directories));
      const refs = target.filter((word) => !files.includes(word));
      if (refs.some((word) => !/^(HEAD|@)$/.test(word.value))) return [ANYTHING];
      return pathspecs(files);
    }
    case 'restore':
    case 'mv':
    case 'rm':
      if (options.some((value) => value.startsWith('--pathspec-from-file'))) return [ANYTHING];
      return pathspecs([...positional, ...paths]);
    case 'reset':
      return options.some((value) => /^--(hard|merge|keep)$/.test(value)) ? [ANYTHING] : [];
    case 'stash':
      return ['pop', 'apply', 'branch'].includes(positional[0]?.value ?? '') ? [ANYTHING] : [];
    default:
      return [];
  }
}

/** Options of checkout, switch and restore whose value is the next word. */
function takesValue(option: string | undefined): boolean {
  return option !== undefined && /^(-[bBcCs]|--orphan|--source|--conflict)$/.test(option);
}

function existsIn(word: Word, directories: readonly string[]): boolean {
  if (word.expansions.length > 0) return false;
  return directories.some((directory) => existsSync(posix.resolve(directory, word.value)));
}

function unique(operands: readonly FileOperand[]): FileOperand[] {
  const seen = new Map<string, FileOperand>();
  for (const operand of operands)
    seen.set(`${operand.pattern ? 'p' : ''} ${operand.path}`, operand);
  return [...seen.values()];
}
