import { describe, expect, it } from 'vitest';
import {
  findExecCommands,
  findRunsOrWrites,
  launchedCommandWord,
  launchedTails,
  readsScriptFromStdin,
  unwrap,
  withoutGitGlobalOptions,
} from '../../src/permissions/bash-wrappers.js';
import type { Word } from '../../src/shell/types.js';
import { parseCommand } from '../../src/shell/parse-command.js';

function words(command: string): Word[] {
  const parsed = parseCommand(command);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.commands[0]?.words ?? [];
}
const text = (list: readonly Word[] | undefined) => list?.map((word) => word.raw).join(' ');

describe('unwrap', () => {
  it.each([
    ['timeout 5 ls', false, 'ls'],
    ['timeout -k5 --signal TERM 1.5m ls', false, 'ls'],
    ['timeout --preserve-status -- 5 ls', false, 'ls'],
    ['timeout ls', false, undefined],
    ['timeout 5', false, undefined],
    ['timeout -x 5 ls', false, undefined],
    ['time -p ls', false, 'ls'],
    ['nice --adjustment=3 ls', false, 'ls'],
    ['nice -n "$N" ls', false, undefined],
    ['stdbuf --output=L ls', false, 'ls'],
    ['command -p ls', false, 'ls'],
    ['xargs ls', false, 'ls'],
    ['xargs -0 ls', false, undefined],
    ['/usr/bin/nohup ls', false, undefined],
    ['/usr/bin/nohup ls', true, 'ls'],
    ['ls -la', false, undefined],
  ])('%j (by basename: %s) wraps %j', (command, byBasename, inner) => {
    expect(text(unwrap(words(command), byBasename))).toBe(inner);
  });
});

describe('launchedTails', () => {
  it('tries every later word as the start of the command', () => {
    expect(launchedTails(words('sudo -u root rm x')).map(text)).toEqual([
      '-u root rm x',
      'root rm x',
      'rm x',
      'x',
    ]);
  });

  it('gives nothing for a command that launches nothing', () => {
    expect(launchedTails(words('rm x'))).toEqual([]);
  });
});

describe('launchedCommandWord', () => {
  it.each([
    ['env A=1 -i node x', 'node'],
    ['sudo -E make', 'make'],
    ['sudo -v', undefined],
    ['make all', undefined],
  ])('%j launches %j', (command, expected) => {
    expect(launchedCommandWord(words(command))?.raw).toBe(expected);
  });
});

describe('withoutGitGlobalOptions', () => {
  it.each([
    ['git -C /p -c a=b --no-pager push -f', 'git push -f'],
    ['git push', undefined],
    ['git --version', undefined],
    ['gitx -C /p push', undefined],
  ])('%j → %j', (command, expected) => {
    expect(text(withoutGitGlobalOptions(words(command)))).toBe(expected);
  });
});

describe('findRunsOrWrites', () => {
  it.each([
    ['find . -name x', false],
    ['find . -delete', true],
    ['find . -fprint0 out', true],
    ['find . -newer $F', true],
    ['grep -delete x', false],
  ])('%j → %s', (command, expected) => {
    expect(findRunsOrWrites(words(command))).toBe(expected);
  });
});

describe('findExecCommands', () => {
  it('gives each command find runs, up to its terminator', () => {
    expect(findExecCommands(words('find . -exec rm {} \\; -ok chmod 600 {} +')).map(text)).toEqual([
      'rm {}',
      'chmod 600 {}',
    ]);
  });
});

describe('readsScriptFromStdin', () => {
  it.each([
    ['sh', true],
    ['bash -e', true],
    ['bash -s -- a', true],
    ['bash -c', true],
    ['bash -c "ls"', false],
    ['bash build.sh', false],
    ['ls', false],
  ])('%j → %s', (command, expected) => {
    expect(readsScriptFromStdin(words(command))).toBe(expected);
  });
});
