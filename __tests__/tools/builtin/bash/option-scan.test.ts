import { describe, expect, it } from 'vitest';
import { afterPrefix, scanOptions } from '../../../../src/tools/builtin/bash/option-scan.js';
import type { OptionTable } from '../../../../src/tools/builtin/bash/option-scan.js';
import { parseCommand } from '../../../../src/shell/parse-command.js';
import type { Word } from '../../../../src/shell/types.js';

function args(command: string): Word[] {
  const parsed = parseCommand(command);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.commands[0]!.words.slice(1);
}

const OPTIONS: OptionTable = {
  '-n': 'value',
  '--lines': 'value',
  '-e': 'script',
  '-f': 'script-file',
  '-o': 'write',
  '--reference': 'read',
  '-i': 'in-place',
  '-w': 'optional',
  '--arg': 'pair',
  '--slurpfile': 'name-then-read',
  '--args': 'rest-args',
  '-t': 'target-directory',
};

describe('scanOptions', () => {
  // [command, operands, option files]
  const table: Array<[string, string[], string[]]> = [
    ['x a b', ['a', 'b'], []],
    ['x -n 5 a', ['a'], []],
    ['x -n5 a', ['a'], []],
    ['x --lines=5 a', ['a'], []],
    ['x --lines 5 a', ['a'], []],
    ['x a -n 5 b', ['a', 'b'], []],
    ['x -vn 5 a', ['a'], []],
    ['x -- -n a', ['-n', 'a'], []],
    ['x - a', ['a'], []],
    ['x -o out a', ['a'], ['write out']],
    ['x -oout a', ['a'], ['write out']],
    ['x --reference=ref a', ['a'], ['read ref']],
    ['x -f prog a', ['a'], ['read prog']],
    ['x -w16 a', ['a'], []],
    ['x -w 16', ['16'], []],
    ['x --arg k v a', ['a'], []],
    ['x --slurpfile k file a', ['a'], ['read file']],
    ['x --args a b', [], []],
    ['x $OPT a', ['$OPT', 'a'], []],
    ['x --unknown value a', ['value', 'a'], []],
  ];
  it.each(table)('%s → operands %j, option files %j', (command, operands, files) => {
    const scan = scanOptions(args(command), OPTIONS);
    expect(scan.operands.map((word) => word.value)).toEqual(operands);
    expect(scan.optionFiles.map(({ word, access }) => `${access} ${word.value}`)).toEqual(files);
  });

  it('notes a script given by option, an in-place edit, a reference and a target directory', () => {
    expect(scanOptions(args('x -e s a'), OPTIONS).scriptGiven).toBe(true);
    expect(scanOptions(args('x a'), OPTIONS).scriptGiven).toBe(false);
    expect(scanOptions(args('x -i.bak a'), OPTIONS).inPlace).toBe(true);
    expect(scanOptions(args('x --reference=r a'), OPTIONS).referenceGiven).toBe(true);
    expect(scanOptions(args('x -t dir a'), OPTIONS).targetDirectory?.value).toBe('dir');
  });
});

describe('afterPrefix', () => {
  it('keeps the rest of a word, as a word of its own', () => {
    const [word] = args('x --file=*.txt');
    expect(afterPrefix(word!, '--file='.length)).toMatchObject({
      raw: '*.txt',
      value: '*.txt',
      expansions: ['glob'],
      leadingDynamic: false,
    });
  });
});
