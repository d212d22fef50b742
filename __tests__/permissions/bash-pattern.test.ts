import { describe, expect, it } from 'vitest';
import { bashSpecifierMatches, compileBashPattern } from '../../src/permissions/bash-pattern.js';

describe('bashSpecifierMatches', () => {
  // [specifier, command, expected]
  const table: Array<[string, string, boolean]> = [
    // exact
    ['npm test', 'npm test', true],
    ['npm test', 'npm test --watch', false],
    ['npm test', 'npm  test', true],
    ['git status', '  git   status ', true],
    ['git status', 'git statusx', false],
    // classic trailing :*
    ['npm test:*', 'npm test', true],
    ['npm test:*', 'npm test --watch', true],
    ['npm run test:*', 'npm run test:unit', false],
    ['git log:*', 'git logx', false],
    // trailing space-star: word boundary, bare command included
    ['ls *', 'ls', true],
    ['ls *', 'ls -la', true],
    ['ls *', 'lsof', false],
    ['npm *', 'npm install left-pad', true],
    // star without a space: no boundary
    ['ls*', 'lsof', true],
    ['ls*', 'ls', true],
    // star anywhere, spanning spaces
    ['git * main', 'git push origin main', true],
    ['git * main', 'git main', false],
    ['git * main', 'git push origin main --force', false],
    ['* install', 'npm install', true],
    ['* install', 'install', false],
    ['* --version', 'node --version', true],
    ['npm run *:ci', 'npm run test:ci', true],
    // a literal star
    ['echo \\*', 'echo *', true],
    ['echo \\*', 'echo x', false],
    // regular-expression characters are literal
    ['echo a.b', 'echo axb', false],
    ['echo (x)', 'echo (x)', true],
    // the wildcard spans a newline inside an argument
    ['git commit *', 'git commit -m "a\nb"', true],
  ];
  it.each(table)('%j vs %j → %s', (specifier, command, expected) => {
    expect(bashSpecifierMatches(specifier, command)).toBe(expected);
  });
});

describe('compileBashPattern', () => {
  it.each([
    ['npm test', false, 'npm test'],
    ['npm test:*', true, 'npm test'],
    ['git * main', true, 'git '],
    ['echo \\*', false, 'echo *'],
    ['* install', true, ''],
  ])('%j is a wildcard: %s, and every match starts with %j', (specifier, wildcard, prefix) => {
    expect(compileBashPattern(specifier)).toMatchObject({ wildcard, literalPrefix: prefix });
  });
});
