/**
 * Which words of a command name files it reads or writes, for the programs whose arguments are
 * well known (docs/CC-COMPAT.md §2.4: "recognized Bash file commands"). One row per program: how its
 * operands are used, which options take a value (so that `head -n 5 f` reads `f`, not `5`) and
 * which option values are files (`sort -o out`, `grep -f pats`).
 *
 * An option missing from a row counts as a flag (option-scan.ts), so an unknown option's value
 * is taken for an operand: that may check a word too many, never one too few. Some programs take
 * a script first (grep's pattern, sed's script, awk's program, jq's filter) unless an option
 * gave it.
 */
import { afterPrefix, scanOptions } from './option-scan.js';
import type { FileWord, OptionRole, OptionTable } from './option-scan.js';
import type { Word } from '../../../shell/types.js';

export type { FileAccess, FileWord } from './option-scan.js';

/** How the operands (the words that are not options) are used. */
type OperandUse =
  | 'read'
  | 'write'
  | 'remove'
  | 'script-then-read'
  | 'copy'
  | 'move'
  | 'in-then-out'
  | 'source'
  | 'dd'
  | 'mode-then-write';

interface CommandSyntax {
  operands: OperandUse;
  options: OptionTable;
}

/** A row: space-separated options that take a plain value, then the options with other roles. */
function syntax(
  operands: OperandUse,
  valueOptions = '',
  special: Record<string, OptionRole> = {},
): CommandSyntax {
  const values = valueOptions.split(' ').filter((name) => name !== '');
  return {
    operands,
    options: { ...Object.fromEntries(values.map((name) => [name, 'value' as const])), ...special },
  };
}

function rows(names: readonly string[], row: CommandSyntax): Array<[string, CommandSyntax]> {
  return names.map((name) => [name, row]);
}

const AWKS = ['awk', 'gawk', 'mawk', 'nawk'];
const SCRIPT_OPTIONS = { '-e': 'script', '-f': 'script-file' } as const;
const GREP = syntax(
  'script-then-read',
  '-m -A -B -C -d -D --max-count --after-context --before-context --context --devices ' +
    '--directories --label --include --exclude --exclude-dir --color --colour',
  { ...SCRIPT_OPTIONS, '--regexp': 'script', '--file': 'script-file', '--exclude-from': 'read' },
);
const RG = syntax(
  'script-then-read',
  '-g --glob --iglob -t --type -T --type-not --type-add --type-clear -m --max-count -A -B -C ' +
    '--context -M --max-columns -d --max-depth -j --threads -r --replace -E --encoding --pre ' +
    '--pre-glob --sort --sortr --max-filesize --path-separator --context-separator ' +
    '--field-context-separator --field-match-separator --colors --color --engine ' +
    '--hostname-bin --dfa-size-limit --regex-size-limit --hyperlink-format',
  { ...SCRIPT_OPTIONS, '--regexp': 'script', '--file': 'script-file', '--ignore-file': 'read' },
);
const SED = syntax('script-then-read', '-l --line-length', {
  ...SCRIPT_OPTIONS,
  '--expression': 'script',
  '--file': 'script-file',
  '-i': 'in-place',
  '--in-place': 'in-place',
});
const AWK = syntax('script-then-read', '-v --assign -F --field-separator -l --load', {
  '-f': 'script-file',
  '--file': 'script-file',
  '-E': 'script-file',
  '--exec': 'script-file',
  '-i': 'read',
  '--include': 'read',
});
const JQ = syntax('script-then-read', '-L --indent', {
  '-f': 'script-file',
  '--from-file': 'script-file',
  '--arg': 'pair',
  '--argjson': 'pair',
  '--slurpfile': 'name-then-read',
  '--rawfile': 'name-then-read',
  '--args': 'rest-args',
  '--jsonargs': 'rest-args',
});
const COPY_VALUES = '-S --suffix -m --mode -o --owner -g --group';
const TARGET = { '-t': 'target-directory', '--target-directory': 'target-directory' } as const;
const REFERENCE = { '-r': 'read', '--reference': 'read' } as const;
const OWNER = syntax('mode-then-write', '--from', { '--reference': 'read' });
const BAT = syntax('read', '-l -r -H --language --line-range');

const TABLE = new Map<string, CommandSyntax>([
  ...rows(['cat', 'more', 'rev', 'comm', 'cksum', 'sum'], syntax('read')),
  ...rows(
    ['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum'],
    syntax('read'),
  ),
  ...rows(['b2sum', 'zcat', 'bzcat', 'xzcat', 'zstdcat', 'zless', 'zmore'], syntax('read')),
  ['tac', syntax('read', '-s --separator')],
  ['head', syntax('read', '-n -c --lines --bytes')],
  ['tail', syntax('read', '-n -c --lines --bytes -s --sleep-interval --pid')],
  [
    'less',
    syntax('read', '-b -h -j -p -P -t -x -y -z', {
      '-o': 'write',
      '-O': 'write',
      '-k': 'read',
      '-T': 'read',
    }),
  ],
  ['nl', syntax('read', '-b -d -f -h -i -l -n -s')],
  ['wc', syntax('read', '', { '--files0-from': 'read' })],
  ['strings', syntax('read', '-n -t -e -T --bytes')],
  ['od', syntax('read', '-A -j -N -S -t', { '-w': 'optional' })],
  ['hexdump', syntax('read', '-e -n -s', { '-f': 'read' })],
  ['xxd', syntax('in-then-out', '-c -g -l -s -o -n')],
  ...rows(['base64', 'base32'], syntax('read', '-w --wrap')),
  ['file', syntax('read', '-F -P -e', { '-m': 'read', '-f': 'read' })],
  ['stat', syntax('read', '-c --format --printf')],
  [
    'diff',
    syntax('read', '-C -U -x -I -F -W -L -S --label --exclude', {
      '-X': 'read',
      '--exclude-from': 'read',
      '--from-file': 'read',
      '--to-file': 'read',
    }),
  ],
  ['cmp', syntax('read', '-i -n --ignore-initial --bytes')],
  ['paste', syntax('read', '-d --delimiters')],
  ['join', syntax('read', '-t -1 -2 -j -o -e')],
  [
    'sort',
    syntax(
      'read',
      '-k -t -T -S --key --field-separator --temporary-directory --buffer-size --parallel ' +
        '--batch-size --compress-program',
      { '-o': 'write', '--output': 'write', '--files0-from': 'read' },
    ),
  ],
  ['uniq', syntax('in-then-out', '-f -s -w')],
  ['cut', syntax('read', '-b -c -d -f --delimiter')],
  ['fold', syntax('read', '-w --width')],
  ['fmt', syntax('read', '-w -p -g --width')],
  ...rows(['expand', 'unexpand'], syntax('read', '-t --tabs')),
  ...rows(['bat', 'batcat'], BAT),
  ['iconv', syntax('read', '-f -t', { '-o': 'write' })],
  ['jq', JQ],
  ...rows(['grep', 'egrep', 'fgrep'], GREP),
  ['rg', RG],
  ['sed', SED],
  ...rows(AWKS, AWK),
  ...rows(['source', '.'], syntax('source')),
  ['tee', syntax('write')],
  ...rows(['cp', 'install'], syntax('copy', COPY_VALUES, TARGET)),
  // A link made now reaches its target later under another name: both count as written.
  ...rows(['mv', 'ln'], syntax('move', COPY_VALUES, TARGET)),
  ...rows(['rm', 'rmdir', 'unlink'], syntax('remove')),
  ['shred', syntax('write', '-n -s --iterations --size')],
  ['touch', syntax('write', '-d -t --date', REFERENCE)],
  ['mkdir', syntax('write', '-m --mode')],
  ['truncate', syntax('write', '-s --size', REFERENCE)],
  ...rows(
    ['gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'zstd', 'unzstd'],
    syntax('write', '-S --suffix', { '-o': 'write' }),
  ),
  ...rows(['chmod', 'chown', 'chgrp'], OWNER),
  ['dd', syntax('dd')],
  ['patch', syntax('write', '-p -D -F', { '-i': 'read', '-o': 'write', '-r': 'write' })],
]);

/** The file words of `name args…`; empty for a command not in the table. */
export function commandFileWords(name: string, args: readonly Word[]): FileWord[] {
  const row = TABLE.get(name);
  if (!row) return [];
  const scan = scanOptions(args, row.options);
  const files = [...scan.optionFiles];
  const read = (word: Word) => files.push({ word, access: 'read' });
  const write = (word: Word) => files.push({ word, access: 'write' });
  let operands = scan.operands;
  switch (row.operands) {
    case 'read':
      operands.forEach(read);
      break;
    case 'write':
      operands.forEach(write);
      break;
    case 'remove': {
      const recursive = name === 'rm' && args.some(isRecursiveOption);
      for (const word of operands)
        files.push({ word, access: 'write', removes: true, ...(recursive && { recursive }) });
      break;
    }
    case 'script-then-read':
      if (!scan.scriptGiven) operands = operands.slice(1);
      // awk's `name=value` operands are assignments, not files.
      if (AWKS.includes(name))
        operands = operands.filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value));
      operands.forEach(read);
      if (scan.inPlace) operands.forEach(write);
      break;
    case 'copy':
    case 'move': {
      const sourceAccess = row.operands === 'copy' ? read : write;
      const destination = scan.targetDirectory ?? operands.at(-1);
      const sources = scan.targetDirectory ? operands : operands.slice(0, -1);
      sources.forEach(sourceAccess);
      if (destination) {
        write(destination);
        // The destination may be a directory: each source lands inside it under its own name.
        for (const source of sources) write(joinWords(destination, source));
      }
      break;
    }
    case 'in-then-out':
      if (operands[0]) read(operands[0]);
      if (operands[1]) write(operands[1]);
      break;
    case 'source':
      if (operands[0]) read(operands[0]);
      break;
    case 'dd':
      for (const word of operands) {
        const match = /^(if|of)=/.exec(word.value);
        if (match) (match[1] === 'if' ? read : write)(afterPrefix(word, match[0].length));
      }
      break;
    case 'mode-then-write':
      (scan.referenceGiven ? operands : operands.slice(1)).forEach(write);
      break;
  }
  return files;
}

/** `-r`, `-R`, `--recursive`, or a cluster holding r or R (`-rf`, `-fR`). */
function isRecursiveOption(arg: Word): boolean {
  const value = arg.value;
  return value === '--recursive' || (/^-[^-]/.test(value) && /[rR]/.test(value));
}

/** `destination/basename(source)`, for a copy into a directory. */
function joinWords(directory: Word, source: Word): Word {
  const name = source.value.slice(source.value.lastIndexOf('/') + 1);
  const value = `${directory.value.replace(/\/+$/, '')}/${name}`;
  const expansions = [...new Set([...directory.expansions, ...source.expansions])];
  return { raw: value, value, expansions, leadingDynamic: directory.leadingDynamic };
}
