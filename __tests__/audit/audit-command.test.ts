/**
 * `ci-agent audit explain | judge | --format html` on a real run's chained log file (the built
 * CLI, audit-fixture.ts: a deny rule, a hook's block, a broken hook, attacks in the model's
 * text): what each prints, and the exit codes a workflow gates on.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { ANSI_ATTACK, auditedRun } from './audit-fixture.js';

let cli: CliRun;
let log: string;

beforeAll(async () => {
  cli = await auditedRun(['--log-file', 'run.jsonl']);
  expect(cli.code, cli.stderr).toBe(0);
  log = cli.workspace.path('run.jsonl');
}, 60_000);
afterAll(() => cli?.workspace.cleanup());

async function audit(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: ['audit', ...args],
    env: {},
    cwd: cli.workspace.root,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(undefined),
  });
  return { code, stdout, stderr };
}

describe('ci-agent audit explain', () => {
  it('lists the denials and the failed hook first, then every call; exit 1 for them', async () => {
    const result = await audit('explain', log);
    expect(result.code, result.stderr).toBe(1);
    const findings = result.stdout.indexOf('Findings (');
    const calls = result.stdout.indexOf('Calls (');
    expect(findings).toBeGreaterThan(0);
    expect(calls).toBeGreaterThan(findings);
    const head = result.stdout.slice(findings, calls);
    expect(head).toContain('call-denied');
    expect(head).toContain('Read(./secret.env)');
    expect(head).toContain('hook-failed');
    expect(result.stdout).toContain('Result: verified, with findings (exit 1)');
    // The model's escape sequence is shown, never sent to the terminal.
    expect(result.stdout).not.toContain(ANSI_ATTACK);
    expect(result.stdout).toContain('\\x1b[31m');
  });

  it('plain verification of the same log has nothing to report: exit 0', async () => {
    const result = await audit(log);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).not.toContain('Calls (');
  });

  it('prints one JSON document with the verification, the account and the findings', async () => {
    const result = await audit('explain', log, '--format', 'json');
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as {
      exitCode: number;
      verdict: { status: string };
      findings: { code: string; severity: string }[];
      explain: { format: string; calls: unknown[] };
    };
    expect(json.exitCode).toBe(1);
    expect(json.verdict.status).toBe('verified');
    expect(json.explain.format).toBe('ci-agent-audit-explain');
    expect(json.explain.calls.length).toBeGreaterThanOrEqual(6);
    expect(json.findings).toContainEqual(
      expect.objectContaining({ code: 'call-denied', severity: 'finding' }),
    );
  });

  it('still fails verification first when the log was edited: exit 2', async () => {
    const lines = readFileSync(log, 'utf8').split('\n');
    const index = lines.findIndex((line) => line.includes('"behavior":"deny"'));
    lines[index] = lines[index]!.replace('"behavior":"deny"', '"behavior":"allow"');
    const edited = cli.workspace.path('edited.jsonl');
    writeFileSync(edited, lines.join('\n'));
    const result = await audit('explain', edited);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`failure chain-broken line ${index + 1}:`);
  });
});

describe('ci-agent audit judge', () => {
  it('exit 1 listing the calls a stricter policy denies, with the rule and its file', async () => {
    const policy = cli.workspace.path('org-policy.yml');
    writeFileSync(policy, 'permissions:\n  deny:\n    - Bash\n');
    const result = await audit('judge', '--policy', policy, log);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('judge-would-deny');
    expect(result.stdout).toContain('org-policy.yml');
    expect(result.stdout).toMatch(/rule: Bash from .*org-policy\.yml/);
  });

  it("keeps the workspace's own deny rules; exit 0 once the policy allows every call", async () => {
    const policy = cli.workspace.path('lenient.yml');
    writeFileSync(
      policy,
      'permissions:\n  defaultMode: bypassPermissions\n  allow:\n    - Read\n    - Bash\n    - Edit\n    - Agent\n',
    );
    // The run's .claude/settings.json is merged in as a run would: its deny still holds.
    const merged = await audit('judge', '--policy', policy, log, '--format', 'json');
    expect(merged.code).toBe(1);
    const json = JSON.parse(merged.stdout) as {
      judge: { findings: { code: string; call?: { toolUseId: string } }[] };
    };
    expect(json.judge.findings.map((f) => [f.code, f.call?.toolUseId])).toEqual([
      ['judge-would-deny', 'toolu_02'],
    ]);
    // Judged from a workspace without those settings (the run's folder a directory the policy
    // adds, so that Edit stays inside), nothing is left to find.
    const bare = cli.workspace.path('bare');
    mkdirSync(bare);
    const wider = cli.workspace.path('wider.yml');
    writeFileSync(
      wider,
      `${readFileSync(policy, 'utf8')}  additionalDirectories:\n    - ${cli.workspace.root}\n`,
    );
    const alone = await audit('judge', '--policy', wider, '--workspace', bare, log);
    expect(alone.code, alone.stdout).toBe(0);
    expect(alone.stdout).toContain('Every call would have been allowed.');
  });

  it('a bad policy file: exit 2, naming the file and the field', async () => {
    const policy = cli.workspace.path('bad.yml');
    writeFileSync(policy, 'permissions:\n  deny: 7\n');
    const result = await audit('judge', '--policy', policy, log);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.yml');
    expect(result.stderr).toContain('deny');
  });

  it('judge without --policy, or --policy without judge, is a usage error: exit 2', async () => {
    expect((await audit('judge', log)).code).toBe(2);
    const stray = await audit(log, '--policy', 'x.yml');
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('audit judge');
  });
});

describe('ci-agent audit --format html', () => {
  it('writes the self-contained page to --out, with the judgement', async () => {
    const policy = cli.workspace.path('org-policy.yml');
    writeFileSync(policy, 'permissions:\n  deny:\n    - Bash\n');
    const out = cli.workspace.path('audit.html');
    const result = await audit('judge', '--policy', policy, log, '--format', 'html', '--out', out);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('Content-Security-Policy');
    expect(page).toContain('judge-would-deny');
    expect(page).not.toContain('<script>window.__pwned');
  });
});
