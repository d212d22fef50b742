import { describe, expect, it } from 'vitest';
import { interpretExitCode } from '../../../../src/tools/builtin/bash/exit-code.js';

describe('interpretExitCode', () => {
  it.each([
    ['grep foo file', 'No matches found'],
    ['egrep foo file', 'No matches found'],
    ['fgrep foo file', 'No matches found'],
    ['rg foo', 'No matches found'],
    ['find . -name x', 'Some directories were inaccessible'],
    ['diff a b', 'Files differ'],
    ['test -f x', 'Condition is false'],
    ['[ -f x ]', 'Condition is false'],
    ['git diff --exit-code', 'Changes found'],
    ['git grep foo', 'No matches found'],
  ])('reads exit 1 of %j as %j', (command, meaning) => {
    expect(interpretExitCode(command, 1)).toBe(meaning);
  });

  it.each([
    ['grep foo file', 2],
    ['grep foo file', 0],
    ['grep foo file', null],
    ['ls missing', 1],
    ['git status', 1],
    ['cat x | grep foo', 1],
    ['grep foo a && grep foo b', 1],
    ['! grep foo file', 1],
    ['grep "open', 1],
  ])('leaves %j exiting %s a failure', (command, exitCode) => {
    expect(interpretExitCode(command, exitCode)).toBeUndefined();
  });
});
