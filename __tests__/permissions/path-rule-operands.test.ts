import { describe, expect, it } from 'vitest';
import { pathRuleMatchesOperand } from '../../src/permissions/path-rules.js';
import type { RuleTarget } from '../../src/permissions/rules.js';
import { parseRule, ruleMatches } from '../../src/permissions/rules.js';
import type { FileOperand } from '../../src/tools/tool.js';

const PROJECT = '/work/repo';
const HOME = '/home/dev';
const anchors = { projectDir: PROJECT, homeDir: HOME };

const read = (path: string): FileOperand => ({ path, access: 'read' });
const write = (path: string): FileOperand => ({ path, access: 'write' });
const pattern = (path: string, dot = false): FileOperand => ({
  path,
  access: 'read',
  pattern: { dot },
});

function matches(text: string, operand: FileOperand, kind: 'deny' | 'ask' = 'deny'): boolean {
  const rule = parseRule(text, 'test');
  return pathRuleMatchesOperand(rule, rule.content ?? '', operand, anchors, kind);
}

describe('pathRuleMatchesOperand', () => {
  describe('when the operand is a path', () => {
    const table: Array<[string, FileOperand, boolean]> = [
      ['Read(.env)', read(`${PROJECT}/.env`), true],
      ['Read(.env)', read(`${PROJECT}/deep/.env`), true],
      ['Read(.env)', read(`${PROJECT}/.env.example`), false],
      ['Read(.env)', read('/tmp/.env'), false],
      ['Read(.env)', write(`${PROJECT}/.env`), true],
      ['Edit(src/**)', write(`${PROJECT}/src/a.ts`), true],
      ['Edit(src/**)', read(`${PROJECT}/src/a.ts`), false],
      ['Read(secrets)', read(`${PROJECT}/secrets/key`), true],
      ['Read(~/.ssh/**)', read(`${HOME}/.ssh/id_rsa`), true],
      ['Read(//etc/shadow)', read('/etc/shadow'), true],
      ['Write(.env)', write(`${PROJECT}/.env`), false],
    ];
    it.each(table)('%s meets %j → %s', (text, operand, expected) => {
      expect(matches(text, operand)).toBe(expected);
    });
  });

  describe('when the operand is a shell pattern', () => {
    const table: Array<[string, FileOperand, boolean]> = [
      // name against name, with bash's leading-dot rule
      ['Read(.env)', pattern(`${PROJECT}/.e*`), true],
      ['Read(.env)', pattern(`${PROJECT}/.en?`), true],
      ['Read(.env)', pattern(`${PROJECT}/.{env,x}`), true],
      ['Read(.env)', pattern(`${PROJECT}/*.env`), false],
      ['Read(.env)', pattern(`${PROJECT}/*.env`, true), true],
      ['Read(.env)', pattern(`${PROJECT}/*`), false],
      ['Read(.env)', pattern(`${PROJECT}/*.txt`, true), false],
      // the shared name is checked in a known directory
      ['Read(config/.env)', pattern(`${PROJECT}/config/.e*`), true],
      ['Read(config/.env)', pattern(`${PROJECT}/other/.e*`), false],
      ['Read(//etc/.env)', pattern(`${PROJECT}/.e*`), false],
      // and is enough in one known only at run time
      ['Read(.env)', pattern('/**/.env'), true],
      ['Read(config/.env)', pattern('/**/.env'), true],
      ['Read(config/.env)', pattern(`${PROJECT}/*/.e*`), true],
      ['Read(.env)', pattern('/**/a.txt'), false],
      // a glob rule against a literal name
      ['Read(*.pem)', pattern('/**/key.pem'), true],
      ['Read(*.pem)', pattern('/**/key.txt'), false],
      // the pattern read as a name, inside a covered directory
      ['Read(src/**)', pattern(`${PROJECT}/src/*.ts`), true],
      ['Read(keys/*.pem)', pattern(`${PROJECT}/keys/*.pem`), true],
      // two patterns are not compared (the files on disk are separate operands)
      ['Read(*.pem)', pattern(`${PROJECT}/*`), false],
      ['Read(**)', pattern(`${PROJECT}/*`), true],
    ];
    it.each(table)('%s meets %j → %s', (text, operand, expected) => {
      expect(matches(text, operand)).toBe(expected);
    });
  });

  it('answers for ask rules as for deny rules', () => {
    expect(matches('Read(.env)', read(`${PROJECT}/.env`), 'ask')).toBe(true);
    expect(matches('Edit(src/**)', read(`${PROJECT}/src/a.ts`), 'ask')).toBe(false);
  });
});

describe('ruleMatches with file operands', () => {
  const bash = (...fileOperands: FileOperand[]): RuleTarget => ({
    toolName: 'Bash',
    aliases: [],
    request: { access: 'read', ruleContent: 'cat x', fileOperands },
    ...anchors,
  });
  const rule = (text: string) => parseRule(text, 'test');

  it('denies and asks when an operand meets a Read or Edit rule', () => {
    const target = bash(read(`${PROJECT}/a.txt`), read(`${PROJECT}/.env`));
    expect(ruleMatches(rule('Read(.env)'), target, 'deny')).toBe(true);
    expect(ruleMatches(rule('Read(.env)'), target, 'ask')).toBe(true);
  });

  it('never allows through an operand', () => {
    expect(ruleMatches(rule('Read(**)'), bash(read(`${PROJECT}/a.txt`)), 'allow')).toBe(false);
    expect(ruleMatches(rule('Edit(**)'), bash(write(`${PROJECT}/a.txt`)), 'allow')).toBe(false);
  });

  it('does not deny a command without operands, unlike a file tool without a path', () => {
    expect(ruleMatches(rule('Read(.env)'), bash(), 'deny')).toBe(false);
  });

  it('leaves bare Read and Edit denies to the tools they name', () => {
    expect(ruleMatches(rule('Read'), bash(read(`${PROJECT}/.env`)), 'deny')).toBe(false);
  });
});
