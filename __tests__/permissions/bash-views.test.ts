import { describe, expect, it } from 'vitest';
import type { CommandPart } from '../../src/permissions/bash-views.js';
import {
  analyzeBashCommand,
  classifyRedirection,
  UNKNOWN,
} from '../../src/permissions/bash-views.js';
import { parseCommand } from '../../src/shell/parse-command.js';

function parts(command: string): readonly CommandPart[] {
  const analysis = analyzeBashCommand(command);
  if (!analysis.ok) throw new Error(`expected ${JSON.stringify(command)} to parse`);
  return analysis.parts;
}

describe('analyzeBashCommand', () => {
  it('gives one part per simple command, nested ones included, in source order', () => {
    expect(parts('echo $(date) && bash -c "ls | wc"').map((part) => part.allowForms[0])).toEqual([
      'echo $(date)',
      'date',
      'bash -c "ls | wc"',
      'ls',
      'wc',
    ]);
  });

  it('reports what it cannot parse, with the reason', () => {
    expect(analyzeBashCommand('if true; then ls; fi')).toMatchObject({
      ok: false,
      command: 'if true; then ls; fi',
      reason: expect.stringContaining('"if"') as unknown,
    });
  });

  it.each([
    ['FOO=1 timeout 5 echo "a  b"', ['FOO=1 timeout 5 echo "a b"', 'FOO=1 echo "a b"']],
    ['git "status"', ['git status', 'git "status"']],
    ['./timeout 5 ls', ['./timeout 5 ls']],
  ])('allow forms of %j are %j', (command, forms) => {
    expect(parts(command)[0]?.allowForms).toEqual(forms);
  });

  it.each([
    ['FOO=1 /bin/rm -f x', 'rm -f x'],
    ['sudo -u root timeout 5 rm x', 'rm x'],
    ['env A=1 B=2 rm x', 'rm x'],
    ['git -C /p --no-pager push', 'git push'],
    ['find . -execdir rm {} +', 'rm {}'],
    ['echo x>.bashrc', 'echo x > .bashrc'],
  ])('deny forms of %j include %j', (command, form) => {
    expect(parts(command)[0]?.denyForms).toContain(form);
  });

  it.each([
    ['$CMD', true],
    ['"$(which rm)" x', true],
    ['/bin/r? x', true],
    ['~/bin/tool', false],
    ['timeout 5 $CMD', true],
    ['sudo -u $WHO ls', true],
    ['env A=$B ls "$C"', false],
    ['find . -exec $CMD {} ;', true],
    ['bash', true],
    ['bash -c', true],
    ['bash -s arg', true],
    ['bash script.sh', false],
    ['echo $X', false],
  ])('%j is opaque: %s', (command, opaque) => {
    expect(parts(command)[0]?.opaque).toBe(opaque);
  });

  it('treats a launcher whose command lies beyond sixteen words as opaque', () => {
    const options = Array.from({ length: 17 }, (_, index) => `-o${index}`).join(' ');
    expect(parts(`sudo ${options} ls`)[0]?.opaque).toBe(true);
  });

  it('lists file writes in order, ignoring /dev/null and descriptor copies', () => {
    expect(parts('cmd 2>>b.log >a.txt 2>&1 >/dev/null &>c')[0]?.fileWrites).toEqual([
      '&>c',
      '1>a.txt',
      '2>>b.log',
    ]);
  });
});

describe('classifyRedirection', () => {
  const redirection = (source: string) => {
    const parsed = parseCommand(`cmd ${source}`);
    if (!parsed.ok) throw new Error(parsed.reason);
    const found = parsed.commands[0]?.redirections[0];
    if (!found) throw new Error(`no redirection in ${source}`);
    return found;
  };
  it.each([
    ['> f', '1>f'],
    ['>> f', '1>>f'],
    ['2> f', '2>f'],
    ['>| f', '1>|f'],
    ['<> f', '0<>f'],
    ['&> f', '&>f'],
    ['>& f', '>&f'],
    ['>&2', null],
    ['2>&-', null],
    ['> /dev/null', null],
    ['< f', null],
    ['<<< text', null],
    ['> $F', UNKNOWN],
    ['>& $F', UNKNOWN],
    ['< /dev/tcp/host/80', UNKNOWN],
    ['< $F', UNKNOWN],
  ])('%j → %s', (source, expected) => {
    expect(classifyRedirection(redirection(source))).toBe(expected);
  });
});
