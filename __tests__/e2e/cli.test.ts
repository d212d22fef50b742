/**
 * The built CLI end to end: real process, real git repository, real SDK against the replay
 * server. Asserts what the model was sent back, the files on disk and the stream-json output.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../helpers/cli-harness.js';
import { resultBlocksSent, runCli } from '../helpers/cli-harness.js';
import { killAllWith, survivorsWith, uniqueSleep } from '../helpers/processes.js';

/** What a default-mode session offers (ExitPlanMode only in plan mode). */
const ALL_TOOLS = [
  'Agent',
  'Bash',
  'Edit',
  'Glob',
  'Grep',
  'NotebookEdit',
  'Read',
  'TodoWrite',
  'WebFetch',
  'Write',
];

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const runs: CliRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
});

async function cli(...parameters: Parameters<typeof runCli>): Promise<CliRun> {
  const run = await runCli(...parameters);
  runs.push(run);
  return run;
}

const ROOT = '$ROOT';
const at = (run: CliRun, relative: string) => `${run.workspace.root}/${relative}`;
const withRoot = <T>(value: T, root: string): T =>
  JSON.parse(JSON.stringify(value).replaceAll(ROOT, root)) as T;

describe('ci-agent -p (built CLI)', () => {
  it('reads, edits and reports in stream-json, with tool input split across many deltas', async () => {
    const turns = [
      [{ type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: `${ROOT}/a.py` } }],
      [
        { type: 'text', text: 'Fixing the return value.' },
        {
          type: 'tool_use',
          id: 'toolu_02',
          name: 'Edit',
          input: { file_path: `${ROOT}/a.py`, old_string: 'return 1', new_string: 'return 2' },
        },
      ],
      [{ type: 'text', text: 'Changed f to return 2.' }],
    ];
    const run = await cli(['-p', 'fix f', ...STREAM, '--permission-mode', 'acceptEdits'], {
      files: { 'a.py': 'def f():\n    return 1\n' },
      turns: (root) => withRoot(turns, root) as never,
      server: { jsonChunkSize: 3 },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(at(run, 'a.py'), 'utf8')).toBe('def f():\n    return 2\n');

    const sent = resultBlocksSent(run);
    expect(sent.get('toolu_01')?.content).toBe('1\tdef f():\n2\t    return 1\n3\t');
    expect(sent.get('toolu_01')?.is_error).toBeFalsy();
    expect(sent.get('toolu_02')?.is_error).toBeFalsy();

    const types = run.lines.map((line) =>
      [line.type, line.subtype].filter((part) => typeof part === 'string').join('/'),
    );
    expect(types[0]).toBe('system/init');
    expect(types.filter((type) => type === 'assistant')).toHaveLength(3);
    expect(types.filter((type) => type === 'user')).toHaveLength(2);
    expect(types[types.length - 1]).toBe('result/success');
    const init = run.lines[0] as { tools: string[]; permissionMode: string; cwd: string };
    expect(init.tools).toEqual(ALL_TOOLS);
    expect(init.permissionMode).toBe('acceptEdits');
    const result = run.lines[run.lines.length - 1] as Record<string, unknown>;
    expect(result).toMatchObject({
      is_error: false,
      num_turns: 3,
      result: 'Changed f to return 2.',
      permission_denials: [],
    });
    expect((result.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
    expect(result.total_cost_usd).toBeGreaterThan(0);
    const user = run.lines.find((line) => line.type === 'user') as {
      tool_use_result: { type: string };
    };
    expect(user.tool_use_result.type).toBe('text');
  });

  it('refuses a non-read-only Bash command in default mode, says why and leaves the workspace alone', async () => {
    const run = await cli(['-p', 'clean up', ...STREAM], {
      files: { 'keep.txt': 'keep\n' },
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'rm keep.txt' } }],
        [{ type: 'text', text: 'I was not allowed to delete it.' }],
      ],
    });
    expect(run.code).toBe(0);
    expect(readFileSync(at(run, 'keep.txt'), 'utf8')).toBe('keep\n');
    const denied = resultBlocksSent(run).get('toolu_01');
    expect(denied?.is_error).toBe(true);
    expect(denied?.content).toContain('Permission to use Bash was denied');
    const result = run.lines[run.lines.length - 1] as { permission_denials: unknown[] };
    expect(result.permission_denials).toEqual([
      expect.objectContaining({
        tool_name: 'Bash',
        tool_use_id: 'toolu_01',
        tool_input: { command: 'rm keep.txt' },
      }),
    ]);
    const decision = run.lines.find((line) => line.subtype === 'permission_decision');
    expect(decision).toMatchObject({
      behavior: 'deny',
      ask_resolved: true,
      decision_source: 'default',
    });
  });

  it('runs Bash when --allowedTools allows it, with the exit code in the result and no API key in its env', async () => {
    const run = await cli(['-p', 'run it', ...STREAM, '--allowedTools', 'Bash'], {
      turns: [
        [
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'Bash',
            input: { command: 'echo out; echo err >&2; exit 3' },
          },
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'Bash',
            input: { command: 'echo "key=[$ANTHROPIC_API_KEY]"' },
          },
        ],
        [{ type: 'text', text: 'done' }],
      ],
    });
    expect(run.code).toBe(0);
    const sent = resultBlocksSent(run);
    expect(sent.get('toolu_01')).toMatchObject({
      is_error: true,
      content: 'Exit code 3\nout\nerr',
    });
    expect(sent.get('toolu_02')?.content).toContain('Not run');
  });

  it('keeps secrets out of the tool environment', async () => {
    const run = await cli(['-p', 'print', ...STREAM, '--allowedTools', 'Bash'], {
      turns: [
        [
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'Bash',
            input: { command: 'echo "key=[$ANTHROPIC_API_KEY][$GITHUB_TOKEN]"' },
          },
        ],
        [{ type: 'text', text: 'done' }],
      ],
      env: { GITHUB_TOKEN: 'ghp_secret' },
    });
    const result = resultBlocksSent(run).get('toolu_01');
    expect(result?.content).toBe('key=[][]');
    expect(result?.is_error).toBeFalsy();
  });

  it('answers unknown tools and invalid input with errors the model can act on', async () => {
    const run = await cli(['-p', 'x', ...STREAM], {
      turns: [
        [
          { type: 'tool_use', id: 'toolu_01', name: 'CreateFile', input: { path: 'x' } },
          { type: 'tool_use', id: 'toolu_02', name: 'Read', input: { file_path: 42 } },
        ],
        [{ type: 'text', text: 'ok' }],
      ],
    });
    const sent = resultBlocksSent(run);
    expect(sent.get('toolu_01')?.content).toBe(
      '<tool_use_error>Error: No such tool available: CreateFile</tool_use_error>',
    );
    expect(sent.get('toolu_02')?.content).toBe(
      '<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe parameter `file_path` type is expected as `string` but provided as `number`</tool_use_error>',
    );
  });

  it('prints only the final text in text mode and the result object in json mode', async () => {
    const turns = [[{ type: 'text' as const, text: 'Just text.' }]];
    const text = await cli(['-p', 'hi'], { turns });
    expect(text.stdout).toBe('Just text.\n');
    const json = await cli(['-p', 'hi', '--output-format', 'json'], { turns });
    expect(JSON.parse(json.stdout)).toMatchObject({
      type: 'result',
      subtype: 'success',
      result: 'Just text.',
    });
  });

  it('stops at --max-turns with an error and a non-zero exit', async () => {
    const turns = [1, 2, 3].map((index) => [
      { type: 'tool_use' as const, id: `toolu_${index}`, name: 'Glob', input: { pattern: '*' } },
    ]);
    const run = await cli(['-p', 'loop', '--max-turns', '2'], { turns });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('ci-agent: error (error_max_turns): Reached max turns (2)\n');
    expect(run.server.requests).toHaveLength(2);
  });

  it('gives the model the environment, the memory files and the appended system prompt', async () => {
    const run = await cli(['-p', 'hi', '--append-system-prompt', 'Answer in French.'], {
      files: { 'CLAUDE.md': 'Use four spaces.\n', 'AGENTS.md': 'Never touch vendor/.\n' },
      turns: [[{ type: 'text', text: 'Bonjour.' }]],
    });
    expect(run.code).toBe(0);
    const body = run.server.requests[0]?.body as {
      system: unknown;
      tools: Array<{ name: string }>;
    };
    const system = JSON.stringify(body.system);
    expect(system).toContain(`Working directory: ${run.workspace.root}`);
    expect(system).toContain('Current branch: main');
    expect(system).toContain('Use four spaces.');
    expect(system).toContain('Never touch vendor/.');
    expect(system).toContain('Answer in French.');
    expect(body.tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
  });

  it('removes a tool named bare in --disallowedTools from what the model is offered', async () => {
    const run = await cli(['-p', 'hi', '--disallowedTools', 'Bash,Write'], {
      turns: [[{ type: 'text', text: 'ok' }]],
    });
    const body = run.server.requests[0]?.body as { tools: Array<{ name: string }> };
    expect(body.tools.map((tool) => tool.name)).toEqual(
      ALL_TOOLS.filter((name) => name !== 'Bash' && name !== 'Write'),
    );
  });

  it('prints every message as a JSON array with --output-format json --verbose', async () => {
    const run = await cli(['-p', 'hi', '--output-format', 'json', '--verbose'], {
      turns: [[{ type: 'text', text: 'Hello.' }]],
    });
    const messages = JSON.parse(run.stdout) as Array<{ type: string }>;
    expect(messages.map((message) => message.type)).toEqual(['system', 'assistant', 'result']);
  });

  it('stops on SIGTERM: kills the running command, still writes the result, exits 143', async () => {
    let pidFile = '';
    const sleep = uniqueSleep(30);
    const run = await cli(['-p', 'wait', ...STREAM, '--dangerously-skip-permissions'], {
      turns: (root) => {
        pidFile = `${root}/sleep.pid`;
        return [
          [
            {
              type: 'tool_use',
              id: 'toolu_01',
              name: 'Bash',
              input: { command: `sleep ${sleep} & echo $! > ${pidFile}; wait` },
            },
          ],
        ];
      },
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (existsSync(pidFile)) {
            clearInterval(poll);
            child.kill('SIGTERM');
          }
        }, 20);
      },
    });
    expect(run.code).toBe(143);
    const result = run.lines[run.lines.length - 1] as { type: string; subtype: string };
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution' });
    const survivors = await survivorsWith(sleep);
    killAllWith(sleep);
    expect(survivors).toEqual([]);
  });

  describe('when the setup is wrong', () => {
    it('says the API key is missing in one line', async () => {
      const run = await cli(['-p', 'x'], { env: { ANTHROPIC_API_KEY: undefined } });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^Error: ANTHROPIC_API_KEY is not set/);
      expect(run.server.requests).toHaveLength(0);
    });

    it('rejects a bad flag in one line', async () => {
      const run = await cli(['-p', 'x', '--output-format', 'stream-json']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'Error: --output-format=stream-json requires --verbose (as with claude -p)\n',
      );
    });

    it('names a bad rule and its flag in one line', async () => {
      const run = await cli(['-p', 'x', '--allowedTools', 'Bash(']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^Error: --allowedTools: invalid permission rule "Bash\(": expected/,
      );
      expect(run.server.requests).toHaveLength(0);
    });

    it('names an --add-dir that does not exist', async () => {
      const run = await cli(['-p', 'x', '--add-dir', 'nowhere']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^Error: additional directory "nowhere" is not a directory/);
    });

    it('reports a rejected key as an error result', async () => {
      const run = await cli(['-p', 'x', '--output-format', 'json'], {
        env: { ANTHROPIC_API_KEY: 'sk-wrong' },
      });
      expect(run.code).toBe(1);
      const result = JSON.parse(run.stdout) as { subtype: string; errors: string[] };
      expect(result.subtype).toBe('error_during_execution');
      expect(result.errors[0]).toMatch(/ANTHROPIC_API_KEY/);
    });
  });
});
