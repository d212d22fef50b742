import { describe, expect, it } from 'vitest';
import { splitCommandForRules } from '../../../../src/tools/builtin/bash/rule-parts.js';

describe('splitCommandForRules', () => {
  it('gives each simple command its source text', () => {
    expect(splitCommandForRules('npm run build && npm test -- --watch=false | tee log')).toEqual([
      'npm run build',
      'npm test -- --watch=false',
      'tee log',
    ]);
  });

  it('includes the commands nested in substitutions and shell arguments', () => {
    expect(splitCommandForRules("echo $(git rev-parse HEAD); bash -c 'rm -rf x'")).toEqual([
      'echo $(git rev-parse HEAD)',
      'git rev-parse HEAD',
      "bash -c 'rm -rf x'",
      'rm -rf x',
    ]);
  });

  it('returns null for a command it cannot parse', () => {
    expect(splitCommandForRules('for f in *; do rm $f; done')).toBeNull();
  });
});
