/**
 * A real run (the built CLI, audit-fixture.ts) judged again under other policy files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeRun, renderJudgeText } from '../../src/audit/judge.js';
import { readAuditRun } from '../../src/audit/records.js';
import type { AuditRun } from '../../src/audit/records.js';
import { PolicyError } from '../../src/policy/policy-error.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { auditedRun } from './audit-fixture.js';

let cli: CliRun;
let run: AuditRun;
let dir: string;
beforeAll(async () => {
  cli = await auditedRun();
  run = readAuditRun(cli.lines);
  dir = mkdtempSync(join(tmpdir(), 'ci-agent-judge-'));
}, 60_000);
afterAll(() => {
  cli?.workspace.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function policyFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const verdicts = (judgement: Awaited<ReturnType<typeof judgeRun>>) =>
  judgement.calls.map((call) => [call.toolUseId, call.verdict]);

describe('judgeRun', () => {
  it('decides every call as the run did when the policy adds nothing (hooks are not replayed)', async () => {
    const judgement = await judgeRun(run, {
      policyPath: policyFile('same.yml', 'limits:\n  maxTurns: 9\n'),
    });
    for (const judged of judgement.calls) {
      const recorded = run.calls.find((call) => call.toolUseId === judged.toolUseId)?.decision;
      if (recorded?.source === 'hook') continue; // toolu_03: the hook's deny
      expect(judged.decision, judged.toolUseId).toMatchObject({
        behavior: recorded?.behavior,
        reason: recorded?.reason,
        rules: recorded?.rules,
      });
    }
    expect(judgement.calls.find((call) => call.toolUseId === 'toolu_03')?.verdict).toBe('ask');
  });

  it('lists each call a stricter policy would deny or ask about, with the rule and its file', async () => {
    const strict = policyFile(
      'org.yml',
      'permissions:\n  deny:\n    - Bash(echo:*)\n  ask:\n    - Read(./a.txt)\n  onAsk:\n    default: deny\n',
    );
    const judgement = await judgeRun(run, { policyPath: strict });
    expect(verdicts(judgement)).toEqual([
      ['toolu_01', 'ask'],
      ['toolu_02', 'deny'],
      ['toolu_03', 'ask'],
      ['toolu_04', 'deny'],
      ['toolu_05', 'ask'], // a Read(…) ask rule covers edits of the file too
      ['toolu_06', 'allow'],
      ['toolu_07', 'ask'],
    ]);
    const echo = judgement.findings.find((finding) => finding.call?.toolUseId === 'toolu_04');
    expect(echo).toMatchObject({
      code: 'judge-would-deny',
      rules: [{ rule: 'Bash(echo:*)', source: strict }],
    });
    const read = judgement.findings.find((finding) => finding.call?.toolUseId === 'toolu_01');
    expect(read).toMatchObject({
      code: 'judge-would-ask',
      rules: [{ rule: 'Read(./a.txt)', source: strict }],
    });
    expect(judgement.findings.map((finding) => finding.code)).toEqual([
      'judge-would-ask',
      'judge-would-deny',
      'judge-would-ask',
      'judge-would-deny',
      'judge-would-ask',
      'judge-would-ask',
    ]);
    const text = renderJudgeText(judgement);
    expect(text).toContain('judge-would-deny  #4 Bash');
    expect(text).toContain(`rule: Bash(echo:*) from ${strict}`);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/\u001b/);
  });

  it('finds nothing when the policy allows every call', async () => {
    const judgement = await judgeRun(run, {
      policyPath: policyFile(
        'open.yml',
        'permissions:\n  allow:\n    - Bash\n    - Edit\n    - Read\n',
      ),
      projectDir: run.setting?.cwd,
      // Only the policy file: the project's settings (with their deny rule) are not there.
      readFile: async (path) =>
        path.startsWith(dir)
          ? (await import('node:fs/promises')).readFile(path, 'utf8')
          : undefined,
    });
    expect(judgement.findings).toEqual([]);
    expect(renderJudgeText(judgement)).toContain('Every call would have been allowed.');
  });

  it('refuses a bad policy file with the loader’s error naming file, field and expected form', async () => {
    const bad = policyFile('bad.yml', 'permissions:\n  allow: Bash\n');
    const error = await judgeRun(run, { policyPath: bad }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PolicyError);
    expect((error as Error).message).toContain(bad);
    expect((error as Error).message).toContain('permissions.allow');
    expect((error as Error).message).toContain('expected a list of permission rule strings');
  });

  it('refuses a policy file that does not exist', async () => {
    await expect(judgeRun(run, { policyPath: join(dir, 'missing.yml') })).rejects.toThrow(
      /missing\.yml/,
    );
  });

  describe('when a recorded call is odd', () => {
    const odd = readAuditRun([
      { type: 'system', subtype: 'init', cwd: '/work/repo' },
      {
        type: 'assistant',
        message: {
          content: [
            { type: 'tool_use', id: 'a', name: '__proto__', input: {} },
            { type: 'tool_use', id: 'b', name: 'Read', input: { file_path: 7 } },
            { type: 'tool_use', id: 'c', name: 'mcp__db__drop', input: { table: 'users' } },
            { type: 'tool_use', id: 'd', name: 'Read', input: { file_path: '/etc/shadow' } },
          ],
        },
      },
    ]);

    it('names calls it cannot decide, and decides MCP calls as an untrusted server’s', async () => {
      const judgement = await judgeRun(odd, {
        policyPath: policyFile('plain.yml', 'limits:\n  maxTurns: 3\n'),
        readFile: async (path) =>
          path.startsWith(dir)
            ? (await import('node:fs/promises')).readFile(path, 'utf8')
            : undefined,
      });
      expect(verdicts(judgement)).toEqual([
        ['a', 'undecidable'],
        ['b', 'undecidable'],
        ['c', 'ask'],
        ['d', 'ask'],
      ]);
      expect(judgement.findings.map((finding) => finding.code)).toEqual([
        'judge-undecidable',
        'judge-undecidable',
        'judge-would-ask',
        'judge-would-ask',
      ]);
      expect(judgement.calls[0]?.note).toBe('no built-in tool is called "__proto__"');
    });
  });

  it('needs the workspace directory when the log has no init line', async () => {
    await expect(
      judgeRun(readAuditRun([]), { policyPath: policyFile('x.yml', 'limits:\n  maxTurns: 3\n') }),
    ).rejects.toThrow(/no init line/);
  });
});
