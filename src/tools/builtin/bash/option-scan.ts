/**
 * Reads a command's options the getopt way, for file-commands.ts: clusters (`-n5`, `-in`),
 * `--name=value` and `--name value`, options after operands, `--` ending them, `-` (standard
 * input) skipped. An option the caller did not describe counts as a flag.
 */
import type { Word } from '../../../shell/types.js';

export type FileAccess = 'read' | 'write';

export interface FileWord {
  word: Word;
  access: FileAccess;
  /** The command removes it (`rm`, `rmdir`, `unlink`): checked against critical paths too. */
  removes?: true;
  /** A removal that takes directories with what they hold (`rm -r`, `rm -rf`). */
  recursive?: true;
}

/**
 * What an option's value is: `value` an argument that names no file; `read`/`write` a file;
 * `script`/`script-file` the program text or a file holding it (no script operand then);
 * `optional` a value only when attached (`od -w16`); `in-place` sed's -i (`-i.bak`);
 * `name-then-read` jq's `--slurpfile name file`; `pair` jq's `--arg name value`; `rest-args`
 * jq's `--args` (later operands are not files); `target-directory` cp's `-t dir`.
 */
export type OptionRole =
  | 'value'
  | 'read'
  | 'write'
  | 'script'
  | 'script-file'
  | 'optional'
  | 'in-place'
  | 'name-then-read'
  | 'pair'
  | 'rest-args'
  | 'target-directory';

export type OptionTable = Readonly<Record<string, OptionRole>>;

export interface OptionScan {
  operands: Word[];
  /** Files named by option values (`-f pats`, `-o out`, `--reference=f`). */
  optionFiles: FileWord[];
  scriptGiven: boolean;
  inPlace: boolean;
  referenceGiven: boolean;
  targetDirectory?: Word;
}

export function scanOptions(args: readonly Word[], options: OptionTable): OptionScan {
  const scan: OptionScan = {
    operands: [],
    optionFiles: [],
    scriptGiven: false,
    inPlace: false,
    referenceGiven: false,
  };
  let restAreArguments = false;
  const roleOf = (name: string) => (Object.hasOwn(options, name) ? options[name] : undefined);
  const take = (role: OptionRole, value: Word | undefined) => {
    if (role === 'script' || role === 'script-file') scan.scriptGiven = true;
    if (!value) return;
    if (role === 'read' || role === 'script-file') {
      scan.optionFiles.push({ word: value, access: 'read' });
    }
    if (role === 'write') scan.optionFiles.push({ word: value, access: 'write' });
    if (role === 'target-directory') scan.targetDirectory = value;
  };
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === '--') {
      if (!restAreArguments) scan.operands.push(...args.slice(index + 1));
      break;
    }
    if (word.leadingDynamic || !value.startsWith('-') || value === '-') {
      if (!restAreArguments && value !== '-') scan.operands.push(word);
      continue;
    }
    if (value.startsWith('--')) {
      const equals = value.indexOf('=');
      const name = equals === -1 ? value : value.slice(0, equals);
      const role = roleOf(name);
      if (name === '--reference') scan.referenceGiven = true;
      if (role === undefined || role === 'optional') continue;
      if (role === 'in-place') scan.inPlace = true;
      else if (role === 'rest-args') restAreArguments = true;
      else if (equals !== -1) take(role, afterPrefix(word, equals + 1));
      else if (role === 'pair') index += 2;
      else if (role === 'name-then-read') {
        take('read', args[index + 2]);
        index += 2;
      } else take(role, args[++index]);
      continue;
    }
    // A short cluster: letters until one takes a value, which is the rest or the next word.
    for (let at = 1; at < value.length; at++) {
      const role = roleOf(`-${value[at]}`);
      if (role === undefined) continue;
      if (role === 'in-place') scan.inPlace = true;
      else if (role !== 'optional')
        take(role, at + 1 < value.length ? afterPrefix(word, at + 1) : args[++index]);
      break;
    }
  }
  return scan;
}

/** The part of a word after its first `length` characters (`--file=x` → `x`, `-fx` → `x`). */
export function afterPrefix(word: Word, length: number): Word {
  const value = word.value.slice(length);
  return { ...word, raw: value, value, leadingDynamic: false };
}

/**
 * Whether `value` is one of the long options `names`, written out (`--output`, `--output=f`) or,
 * as getopt_long and git's parse-options accept, abbreviated to a prefix (`--out=f`). A prefix
 * another option shares is ambiguous and refused by the program; counting it errs on the safe
 * side.
 */
export function isLongOption(value: string, names: readonly string[]): boolean {
  if (!value.startsWith('--')) return false;
  const equals = value.indexOf('=');
  const name = equals === -1 ? value : value.slice(0, equals);
  return name.length > 2 && names.some((option) => option.startsWith(name));
}
