import { describe, expect, it } from 'vitest';
import { readDeniedPredicate } from '../../src/permissions/read-denied.js';
import { parseRule } from '../../src/permissions/rules.js';

const PROJECT = '/work/repo';
const HOME = '/home/dev';
const anchors = { projectDir: PROJECT, homeDir: HOME };
const rules = (...texts: string[]) => texts.map((text) => parseRule(text, 'test'));

describe('readDeniedPredicate', () => {
  it('is absent when no Read deny rule names a path', () => {
    expect(readDeniedPredicate([], anchors)).toBeUndefined();
    expect(
      readDeniedPredicate(rules('Read', 'Edit(src/**)', 'Bash(rm:*)'), anchors),
    ).toBeUndefined();
  });

  describe('when Read deny rules name paths', () => {
    const isReadDenied = readDeniedPredicate(
      rules('Read(.env)', 'Read(secrets/)', 'Read(~/.aws/**)', 'Edit(src/**)', 'Read'),
      anchors,
    );
    const table: Array<[string, boolean]> = [
      [`${PROJECT}/.env`, true],
      [`${PROJECT}/deep/dir/.env`, true],
      [`${PROJECT}/.env.example`, false],
      [`${PROJECT}/secrets/key.pem`, true],
      [`${PROJECT}/secrets`, true],
      [`${HOME}/.aws/credentials`, true],
      [`${PROJECT}/src/a.ts`, false],
      [`${PROJECT}/README.md`, false],
      ['/tmp/.env', false],
    ];
    it.each(table)('%s → %s', (path, expected) => {
      expect(isReadDenied?.(path)).toBe(expected);
    });
  });

  it('anchors `/path` rules where their source says', () => {
    const rule = { ...parseRule('Read(/conf/*.key)', 'settings'), anchorDir: '/etc/app' };
    const isReadDenied = readDeniedPredicate([rule], anchors);
    expect(isReadDenied?.('/etc/app/conf/a.key')).toBe(true);
    expect(isReadDenied?.(`${PROJECT}/conf/a.key`)).toBe(false);
  });
});
