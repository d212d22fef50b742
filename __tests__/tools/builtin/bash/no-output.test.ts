import { describe, expect, it } from 'vitest';
import { isNoOutputExpected } from '../../../../src/tools/builtin/bash/no-output.js';

// The rule Claude Code 2.1.197 applies for the Bash output's `noOutputExpected`.
describe('isNoOutputExpected', () => {
  it.each(['mkdir -p d', 'mv a b && rm -f c', 'cd src; touch x', 'chmod +x run.sh > /dev/null'])(
    'is true when every command prints nothing on success: %s',
    (command) => expect(isNoOutputExpected(command)).toBe(true),
  );

  it.each([
    'echo hi',
    'mkdir d && ls',
    'FOO=1 mkdir d',
    'cat <(mkdir x)x',
    '',
    'if true; then rm x; fi',
  ])('is false otherwise: %j', (command) => expect(isNoOutputExpected(command)).toBe(false));
});
