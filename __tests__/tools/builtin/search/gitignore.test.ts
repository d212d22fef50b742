import { describe, expect, it } from 'vitest';
import { compileRules, parseIgnoreFile } from '../../../../src/tools/builtin/search/gitignore.js';

describe('parseIgnoreFile', () => {
  it('drops blank lines and comments, unescapes #, trims unescaped trailing spaces and CRs', () => {
    const text = '# comment\n\n*.log  \r\n\\#notes\nkeep\\ \n!important.log\n';
    expect(parseIgnoreFile(text)).toEqual(['*.log', '#notes', 'keep\\ ', '!important.log']);
  });
});

describe('compileRules', () => {
  const match = (rules: string[], path: string, isDirectory = false) =>
    compileRules(rules).match(path, isDirectory);

  it('matches a rule without a slash at any depth', () => {
    expect(match(['*.log'], 'a/b/c.log')).toBe('ignore');
    expect(match(['build'], 'x/build', true)).toBe('ignore');
  });

  it('anchors a rule with a slash to its directory', () => {
    expect(match(['/out'], 'out', true)).toBe('ignore');
    expect(match(['/out'], 'a/out', true)).toBe('none');
    expect(match(['docs/*.md'], 'docs/a.md')).toBe('ignore');
    expect(match(['docs/*.md'], 'x/docs/a.md')).toBe('none');
    expect(match(['docs/*.md'], 'docs/sub/a.md')).toBe('none');
  });

  it('limits a rule with a trailing slash to directories', () => {
    expect(match(['cache/'], 'cache', true)).toBe('ignore');
    expect(match(['cache/'], 'cache', false)).toBe('none');
  });

  it('lets the last matching rule decide, negations whitelisting', () => {
    expect(match(['*.log', '!keep.log'], 'keep.log')).toBe('whitelist');
    expect(match(['!keep.log', '*.log'], 'keep.log')).toBe('ignore');
  });

  it('reads \\! as a literal exclamation mark', () => {
    expect(match(['\\!bang'], '!bang')).toBe('ignore');
  });

  it('matches what is inside dir/** but not dir itself', () => {
    expect(match(['gen/**'], 'gen/a/b.ts')).toBe('ignore');
    expect(match(['gen/**'], 'gen', true)).toBe('none');
  });

  it('matches **/name at any depth, including the top', () => {
    expect(match(['**/tmp'], 'tmp', true)).toBe('ignore');
    expect(match(['**/tmp'], 'a/b/tmp', true)).toBe('ignore');
  });

  it('matches dot files with wildcards', () => {
    expect(match(['*'], '.env')).toBe('ignore');
  });

  it('tests only the path itself, not its parents', () => {
    expect(match(['build/'], 'build/out.js')).toBe('none');
  });

  it('counts its rules and negations', () => {
    const rules = compileRules(['a', '!b', '!c']);
    expect([rules.size, rules.negatedCount]).toEqual([3, 2]);
  });
});
