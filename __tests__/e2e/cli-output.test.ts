/**
 * What the built CLI says and where, as a real process against the replay Messages API: stdout
 * keeps only the result, denials, retries and errors go to stderr as they happen, --verbose
 * tells the run turn by turn, --help tells the environment and the exit codes, and in
 * stream-json a call's lines follow the assistant message that made it.
 */
import { createServer } from 'node:net';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createPause } from '../../testkit/replay-server.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { CLI_PATH, runCli } from '../helpers/cli-harness.js';

const runs: CliRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
});

async function cli(...parameters: Parameters<typeof runCli>): Promise<CliRun> {
  const run = await runCli(...parameters);
  runs.push(run);
  return run;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const kinds = (run: CliRun) =>
  run.lines.map((line) => [line.type, line.subtype].filter(Boolean).join('/'));

describe('ci-agent in text mode', () => {
  it('tells a denial on stderr while the run goes on, and keeps stdout for the result', async () => {
    const pause = createPause();
    let deniedWhileRunning = false;
    const run = await cli(['-p', 'clean up'], {
      files: { 'keep.txt': 'keep\n' },
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'rm -rf keep.txt' } }],
        {
          content: [{ type: 'text', text: 'I was not allowed to delete it.' }],
          pauseAfter: { event: 'message_start', handle: pause },
        },
      ],
      // The second answer waits until the denial shows on stderr (or 5 s pass).
      onSpawn: (child) => {
        let seen = '';
        const giveUp = setTimeout(() => pause.release(), 5_000);
        child.stderr?.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (!deniedWhileRunning && seen.includes('ci-agent: denied')) {
            deniedWhileRunning = true;
            clearTimeout(giveUp);
            pause.release();
          }
        });
      },
    });
    expect(run.code).toBe(0);
    expect(deniedWhileRunning).toBe(true);
    expect(run.stdout).toBe('I was not allowed to delete it.\n');
    expect(run.stderr).toMatch(/^ci-agent: denied Bash\(rm -rf keep\.txt\): \S.*\n$/);
    // How to allow it, in the file the CLI reads rules from when the project has none.
    expect(run.stderr).toContain(
      '. To allow it: add "Bash(rm -rf keep.txt)" to permissions.allow in .claude/settings.json\n',
    );
  });

  it('says an error result on stderr, with nothing on stdout and exit 1', async () => {
    const run = await cli(['-p', 'hi'], {
      server: {
        faults: {
          0: {
            kind: 'http-error',
            status: 400,
            errorType: 'invalid_request_error',
            message: 'prompt is too long',
          },
        },
      },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'ci-agent: error (error_during_execution): The Anthropic API refused the request (400 invalid_request_error: prompt is too long).\n',
    );
  });

  it('in json mode keeps the result object on stdout and says the error on stderr too', async () => {
    const turns = [1, 2].map((index) => [
      { type: 'tool_use' as const, id: `toolu_${index}`, name: 'Glob', input: { pattern: '*' } },
    ]);
    const run = await cli(['-p', 'loop', '--max-turns', '1', '--output-format', 'json'], { turns });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true });
    expect(run.stderr).toBe('ci-agent: error (error_max_turns): Reached max turns (1)\n');
  });

  it('with --verbose, tells whether it is sandboxed, each turn, each call with its decision and how it ended on stderr', async () => {
    const run = await cli(['-p', 'look', '--verbose'], {
      files: { 'a.txt': 'hello\n' },
      turns: (root) => [
        [
          { type: 'text', text: 'Reading the file.' },
          { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: `${root}/a.txt` } },
        ],
        [{ type: 'text', text: 'It says hello.' }],
      ],
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('It says hello.\n');
    const root = run.workspace.root;
    const [sandbox, ...stderr] = run.stderr.split('\n').filter(Boolean);
    expect(sandbox).toMatch(/^ci-agent: unsandboxed: /);
    expect(stderr[0]).toBe('ci-agent: turn 1: Reading the file. [1 tool call]');
    expect(stderr[1]).toMatch(new RegExp(`^ci-agent: allowed Read\\(${root}/a\\.txt\\): \\S`));
    expect(stderr[2]).toMatch(
      new RegExp(`^ci-agent: Read\\(${root}/a\\.txt\\) → ok \\(\\d+ chars, \\d+ ms\\)$`),
    );
    expect(stderr[3]).toBe('ci-agent: turn 2: It says hello.');
    expect(stderr[4]).toMatch(/^ci-agent: done: 2 turn\(s\), \$\d+\.\d{4}, [\d.]+ s$/);
    expect(stderr).toHaveLength(5);
  });
});

describe('ci-agent and an unreachable model API', () => {
  it('shows each retry on stderr with the cause and the URL, and gives up within seconds', async () => {
    const port = await closedPort();
    const started = performance.now();
    const run = await cli(['-p', 'hi'], {
      env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` },
    });
    const seconds = (performance.now() - started) / 1000;

    const url = `http://127.0.0.1:${port}/v1/messages`;
    const cause = `connect ECONNREFUSED 127.0.0.1:${port}`;
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const stderr = run.stderr.split('\n').filter(Boolean);
    expect(stderr.slice(0, 3).map((line) => line.replace(/in [\d.]+ s$/, 'in … s'))).toEqual([
      `ci-agent: model API request failed (${cause}) at ${url}; retry 1 of 3 in … s`,
      `ci-agent: model API request failed (${cause}) at ${url}; retry 2 of 3 in … s`,
      `ci-agent: model API request failed (${cause}) at ${url}; retry 3 of 3 in … s`,
    ]);
    expect(stderr[3]).toBe(
      `ci-agent: error (error_during_execution): Could not reach the Anthropic API at ${url} (${cause}). Check ANTHROPIC_BASE_URL and that the runner can reach that host. Gave up after 3 retries.`,
    );
    expect(stderr).toHaveLength(4);
    // Ten retries took about 140 s.
    expect(seconds).toBeLessThan(15);
  });

  it('refuses a malformed ANTHROPIC_BASE_URL at start, naming the variable', async () => {
    const run = await cli(['-p', 'hi'], { env: { ANTHROPIC_BASE_URL: 'api.anthropic.com' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'Error: ANTHROPIC_BASE_URL: expected an http(s) URL such as https://api.anthropic.com, got "api.anthropic.com"\n',
    );
  });
});

describe('ci-agent --help', () => {
  it('stops quietly when its reader goes away (ci-agent --help | head -1)', async () => {
    const piped = await execa(
      'bash',
      ['-c', `set -o pipefail; "${process.execPath}" "${CLI_PATH}" --help | head -n 1`],
      {
        reject: false,
      },
    );
    expect(piped.stdout).toBe('Usage: ci-agent [options] [prompt]');
    expect(piped.stderr).toBe('');
    expect(piped.exitCode).toBe(0);
  });

  it('lists the environment variables, the exit codes and two examples', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const help = run.stdout;
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL'])
      expect(help).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    const exits = help.slice(help.indexOf('Exit codes:'), help.indexOf('Examples:'));
    expect(exits.match(/^ {2}\d+ +\S/gm)?.map((line) => line.trim().split(' ')[0])).toEqual([
      '0',
      '1',
      '130',
      '143',
    ]);
    const examples = help.slice(help.indexOf('Examples:')).split('\n').slice(1).filter(Boolean);
    expect(examples).toHaveLength(2);
    for (const example of examples) expect(example).toMatch(/ci-agent /);
  });
});

describe('ci-agent --output-format stream-json', () => {
  it("writes a call's permission_decision after the assistant message that made it", async () => {
    const run = await cli(['-p', 'clean up', '--output-format', 'stream-json', '--verbose'], {
      files: { 'keep.txt': 'keep\n' },
      turns: [
        {
          // The call is denied while the rest of the message still streams.
          content: [
            { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'rm keep.txt' } },
            { type: 'text', text: 'and a long explanation that takes a while to arrive in full' },
          ],
          streamMs: 600,
        },
        [{ type: 'text', text: 'Not allowed.' }],
      ],
      server: { textChunkSize: 4 },
    });
    expect(run.code).toBe(0);
    expect(kinds(run)).toEqual([
      'system/init',
      'assistant',
      'system/permission_decision',
      'system/tool_call_end',
      'user',
      'assistant',
      'result/success',
    ]);
    expect(run.lines[2]).toMatchObject({ tool_use_id: 'toolu_01', behavior: 'deny' });
  });

  it('names the rule and the file that would allow a denied call, in the decision and the result', async () => {
    const run = await cli(['-p', 'clean up', '--output-format', 'stream-json', '--verbose'], {
      files: {
        'keep.txt': 'keep\n',
        '.claude/settings.json': '{"permissions": {"deny": ["Bash(rm:*)"]}}\n',
      },
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'rm keep.txt' } }],
        [{ type: 'text', text: 'Not allowed.' }],
      ],
    });
    expect(run.code).toBe(0);
    const suggestion = {
      allowable: true,
      text: 'remove the deny rule "Bash(rm:*)" from .claude/settings.json and add "Bash(rm keep.txt)" to permissions.allow in .claude/settings.json',
      add_rules: ['Bash(rm keep.txt)'],
      file: '.claude/settings.json',
      remove_rules: [{ rule: 'Bash(rm:*)', list: 'deny', source: '.claude/settings.json' }],
      on_ask: null,
    };
    const decision = run.lines.find((line) => line.subtype === 'permission_decision');
    expect(decision).toMatchObject({ behavior: 'deny', suggestion });
    const result = run.lines.find((line) => line.type === 'result');
    expect(result?.permission_denials).toEqual([
      expect.objectContaining({ tool_use_id: 'toolu_01', suggestion }),
    ]);
    // The model is told it was refused, not how to get around it.
    const user = run.lines.find((line) => line.type === 'user');
    expect(JSON.stringify(user)).not.toContain('permissions.allow');
    expect(run.stderr).toContain(`. To allow it: ${suggestion.text}\n`);
  });
});
