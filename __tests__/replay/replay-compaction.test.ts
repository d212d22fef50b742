/**
 * `ci-agent replay` of a run that compacted its context: a real `ci-agent -p` run (the CLI's
 * main(), real git, the real Bash tool) whose failing commands' output (errors are never
 * shortened) outgrows the context window, scripted on the loopback Messages API; its tool log
 * keeps the summary the model wrote, and the replay serves it where the run compacted.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/agent/context/compaction.js';
import { main } from '../../src/cli/main.js';
import type { ReplayReport } from '../../src/replay/run-replay.js';
import type { RecordedRequest, ReplayTurnInput } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';

const SUMMARY = 'Ran the checks one by one; each failed with a long error. Next: say so.';
/**
 * Turns of one failing call each (a failed call cancels the calls after it in its message), each
 * result about 10k characters as the model gets it: 70 turns are past 80 % of the model's
 * 200k-token window.
 */
const TURNS = 70;
const CALLS_PER_TURN = 1;
const CALLS = TURNS * CALLS_PER_TURN;

let dir: string;
let repo: string;
let logPath: string;
let recording: { code: number; summaryRequests: number };

const isSummary = (request: RecordedRequest) =>
  JSON.stringify((request.body as { system?: unknown }).system ?? '').includes(
    SUMMARY_SYSTEM_PROMPT,
  );

async function cli(argv: string[], env: NodeJS.ProcessEnv, cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env,
    cwd,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(undefined),
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ci-agent-replay-compaction-'));
  repo = join(dir, 'repo');
  await execa('git', ['init', '--quiet', repo]);
  writeFileSync(join(repo, 'README.md'), 'checks\n');
  // The checkout's policy allows the checks: a replay runs under it, as the recording did.
  mkdirSync(join(repo, '.claude'));
  writeFileSync(
    join(repo, '.claude', 'settings.json'),
    JSON.stringify({ permissions: { allow: ['Bash(printf:*)', 'Bash(exit:*)'] } }),
  );
  await execa('git', ['add', '.'], { cwd: repo });
  await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'init'], {
    cwd: repo,
  });
  let turn = 0;
  let summaryRequests = 0;
  const respond = (request: RecordedRequest): ReplayTurnInput => {
    if (isSummary(request)) {
      summaryRequests++;
      return [{ type: 'text', text: SUMMARY }];
    }
    const index = turn++;
    if (index >= TURNS) return [{ type: 'text', text: 'Every check failed.' }];
    return Array.from({ length: CALLS_PER_TURN }, (_, call) => {
      const check = index * CALLS_PER_TURN + call;
      return {
        type: 'tool_use' as const,
        id: `toolu_check${check}`,
        name: 'Bash',
        input: { command: `printf 'check ${check} failed: %030000d' 0 >&2; exit 1` },
      };
    });
  };
  const server = await startReplayServer({
    turns: Array.from({ length: TURNS + 5 }, () => respond),
  });
  logPath = join(dir, 'run.jsonl');
  try {
    const run = await cli(
      ['-p', 'Run the checks.', '--model', 'claude-sonnet-4-5', '--log-file', logPath],
      { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url },
      repo,
    );
    recording = { code: run.code, summaryRequests };
  } finally {
    await server.close();
  }
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ci-agent replay of a run that compacted', () => {
  it('records the compaction with the summary the model wrote', () => {
    expect(recording).toEqual({ code: 0, summaryRequests: 1 });
    const lines = readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const boundaries = lines.filter((line) => line.subtype === 'compact_boundary');
    expect(boundaries).toEqual([
      expect.objectContaining({
        compact_metadata: { trigger: 'auto', pre_tokens: expect.any(Number) as number },
        ci_agent_summary: SUMMARY,
      }),
    ]);
  });

  it('reproduces it with no differences, the summary served where the run compacted', async () => {
    const { code, stdout } = await cli(
      ['replay', logPath, '--repo', repo, '--format', 'json'],
      process.env,
      dir,
    );
    const report = JSON.parse(stdout) as ReplayReport;
    expect(report).toMatchObject({
      status: 'same',
      turns: { recorded: TURNS + 1, replayed: TURNS + 1 },
      calls: CALLS,
      differences: [],
    });
    expect(code).toBe(0);
  });

  it('stops, saying where, when the log says the run compacted elsewhere', async () => {
    const lines = readFileSync(logPath, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.includes('"compact_boundary"'));
    // The compaction line moved two lines up (before the previous turn's result): the chain
    // breaks, so --no-verify; the replay then meets the summary request one turn late.
    const moved = [...lines];
    const [boundary] = moved.splice(at, 1);
    moved.splice(at - 4, 0, boundary!);
    const edited = join(dir, 'moved.jsonl');
    writeFileSync(edited, moved.join('\n'));
    const { code, stdout } = await cli(
      ['replay', edited, '--repo', repo, '--no-verify', '--format', 'json'],
      process.env,
      dir,
    );
    const report = JSON.parse(stdout) as ReplayReport;
    expect(report.status).toBe('cannot-replay');
    expect(report.error).toMatch(
      /compacted the context before model turn \d+, but the run did not/,
    );
    expect(code).toBe(2);
  });
});
