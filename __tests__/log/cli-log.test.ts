/**
 * The tool log and the transcript from the built CLI (dist/cli/index.js; `npm run build`): written
 * as the run goes, whole after a SIGKILL, the same lines as stdout, secrets masked everywhere.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../helpers/cli-harness.js';
import { runCli } from '../helpers/cli-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
/** The harness's API key, and a GitHub token the CLI gets in its environment. */
const API_KEY = 'sk-ant-test-key';
const TOKEN = 'ghs_0123456789abcdefghijABCDEFGHIJ0123';

const cleanups: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const item of cleanups.splice(0)) item.cleanup();
});

async function cli(...parameters: Parameters<typeof runCli>): Promise<CliRun> {
  const run = await runCli(...parameters);
  cleanups.push(run.workspace);
  return run;
}

function tempDir(): Workspace {
  const dir = makeWorkspace('ci-agent-runner-temp-');
  cleanups.push(dir);
  return dir;
}

type Line = Record<string, unknown>;
const parseLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
const kind = (line: Line) => [line.type, line.subtype].filter(Boolean).join('/');

describe('ci-agent --log-file (built CLI)', () => {
  it('has each line in the log as it happens, and a whole log after SIGKILL', async () => {
    let child: ChildProcess | undefined;
    let logPath = '';
    let logMidRun = '';
    const run = await cli(['-p', 'read it', ...STREAM, '--log-file', 'logs/run.ndjson'], {
      files: { 'token.txt': `GITHUB_TOKEN=${TOKEN}\n` },
      env: { GITHUB_TOKEN: TOKEN },
      onSpawn: (spawned) => (child = spawned),
      turns: (root) => {
        logPath = `${root}/logs/run.ndjson`;
        return [
          [
            { type: 'text', text: `My key is ${API_KEY}.` },
            {
              type: 'tool_use',
              id: 'toolu_01',
              name: 'Read',
              input: { file_path: `${root}/token.txt` },
            },
          ],
          // The second request: the first turn is over; look at the log, then kill the CLI.
          () => {
            logMidRun = readFileSync(logPath, 'utf8');
            child?.kill('SIGKILL');
            return [{ type: 'text', text: 'never seen' }];
          },
        ];
      },
    });
    expect(run.signal).toBe('SIGKILL');
    const midRun = parseLines(logMidRun);
    expect(midRun.map(kind)).toEqual([
      'system/init',
      'assistant',
      'system/permission_decision',
      'system/tool_call_end',
      'user',
    ]);
    expect(midRun[3]).toMatchObject({
      tool_use_id: 'toolu_01',
      tool_name: 'Read',
      stage: 'completed',
      is_error: false,
      decision: 'allow',
      duration_ms: expect.any(Number) as number,
    });

    const afterKill = readFileSync(logPath, 'utf8');
    expect(afterKill.endsWith('\n')).toBe(true);
    expect(parseLines(afterKill)).toEqual(midRun);
    // stdout and the log are the same lines, uuids included; the log adds its chain field.
    expect(run.lines).toEqual(midRun.map(({ ci_agent_chain: _chain, ...line }) => line));
    expect(midRun.every((line) => typeof line.ci_agent_chain === 'object')).toBe(true);
    expect(run.stdout).not.toContain('ci_agent_chain');

    expect(afterKill).not.toContain(API_KEY);
    expect(afterKill).not.toContain(TOKEN);
    expect(run.stdout).not.toContain(API_KEY);
    expect(run.stdout).not.toContain(TOKEN);
    expect(JSON.stringify(midRun[1])).toContain('My key is ***.');
    expect(JSON.stringify(midRun[4])).toContain('GITHUB_TOKEN=***');
  });

  it('names a log file it cannot open in one line, before any request', async () => {
    const run = await cli(['-p', 'x', '--log-file', 'token.txt/log.ndjson'], {
      files: { 'token.txt': 'not a directory\n' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Error: cannot open the tool log file ".*token\.txt\/log\.ndjson": /,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.server.requests).toHaveLength(0);
  });
});

describe('the transcript (built CLI)', () => {
  const hooks = {
    PreToolUse: [
      {
        matcher: 'Read',
        hooks: [{ type: 'command', command: 'cat token.txt >&2; exit 1' }],
      },
    ],
    Stop: [
      {
        hooks: [
          {
            type: 'command',
            command:
              'p=$(sed -n \'s/.*"transcript_path":"\\([^"]*\\)".*/\\1/p\'); cp "$p" seen.jsonl; echo "$p" > seen-path.txt',
          },
        ],
      },
    ],
  };

  it('goes to RUNNER_TEMP when hooks are configured, holds the conversation when a hook runs, and is removed at the end', async () => {
    const runnerTemp = tempDir();
    const run = await cli(['-p', 'read it', ...STREAM, '--log-file', 'run.ndjson'], {
      files: {
        '.claude/settings.json': JSON.stringify({ hooks }),
        'token.txt': `GITHUB_TOKEN=${TOKEN}\n`,
      },
      env: { GITHUB_TOKEN: TOKEN, RUNNER_TEMP: runnerTemp.root },
      turns: (root) => [
        [
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'Read',
            input: { file_path: `${root}/token.txt` },
          },
        ],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    expect(run.code).toBe(0);
    const sessionId = run.lines[0]?.session_id as string;
    const transcriptPath = `${runnerTemp.root}/ci-agent-${sessionId}.jsonl`;
    expect(readFileSync(run.workspace.path('seen-path.txt'), 'utf8').trim()).toBe(transcriptPath);

    // What the Stop hook saw: the prompt, then every message up to the final answer.
    const seen = parseLines(readFileSync(run.workspace.path('seen.jsonl'), 'utf8'));
    expect(seen.map((line) => (line.message as { role: string }).role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    // In Claude Code's field names (observed in 2.1.197's session JSONL).
    expect(seen[0]).toMatchObject({ message: { content: 'read it' }, sessionId, parentUuid: null });
    expect(seen[3]).toMatchObject({ message: { content: [{ type: 'text', text: 'Done.' }] } });
    const conversation = run.lines.filter(
      (line) => line.type === 'user' || line.type === 'assistant',
    );
    expect(seen.slice(1).map((line) => [line.type, line.message, line.toolUseResult])).toEqual(
      conversation.map((line) => [line.type, line.message, line.tool_use_result]),
    );
    expect(seen[2]).toMatchObject({
      parentUuid: seen[1]?.uuid,
      sourceToolAssistantUUID: seen[1]?.uuid,
      promptId: seen[0]?.promptId,
    });
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
    expect(existsSync(transcriptPath)).toBe(false);

    // The hook's stderr and the tool_result are masked in the log and on stdout alike.
    const log = readFileSync(run.workspace.path('run.ndjson'), 'utf8');
    // The log is stdout's lines, each with its chain field, then its closing line.
    expect(
      parseLines(log)
        .filter((line) => line.subtype !== 'log_end')
        .map(({ ci_agent_chain: _chain, ...line }) => line),
    ).toEqual(run.lines);
    expect(log).not.toContain(TOKEN);
    const hookLine = run.lines.find((line) => line.subtype === 'hook_response');
    expect(hookLine).toMatchObject({
      hook_event: 'PreToolUse',
      exit_code: 1,
      stderr: 'GITHUB_TOKEN=***',
    });
  });

  it('is written where --transcript-file says, even without hooks, and kept', async () => {
    const run = await cli(['-p', 'hi', '--transcript-file', 'out/t.jsonl'], {
      turns: [[{ type: 'text', text: 'Hello.' }]],
    });
    expect(run.code).toBe(0);
    const lines = parseLines(readFileSync(run.workspace.path('out/t.jsonl'), 'utf8'));
    expect(lines.map((line) => line.type)).toEqual(['user', 'assistant']);
  });

  it('is not written when no hook could read it', async () => {
    const runnerTemp = tempDir();
    const run = await cli(['-p', 'hi'], {
      env: { RUNNER_TEMP: runnerTemp.root },
      turns: [[{ type: 'text', text: 'Hello.' }]],
    });
    expect(run.code).toBe(0);
    expect(readdirSync(runnerTemp.root)).toEqual([]);
    expect(existsSync(run.workspace.path('seen.jsonl'))).toBe(false);
  });
});
