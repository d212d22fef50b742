/**
 * SIGTERM in the middle of a long Bash call: the CLI (run from src through tsx, a real child
 * process) must stop within 5 s, leave no process behind, and leave a complete tool log, a
 * transcript answering every tool_use, and the result.
 */
import { execa } from 'execa';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplayScriptEntry, ReplayServer } from '../../testkit/replay-server.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import { verifyLogText } from '../../src/audit/verify.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { SPAWN_LIKE } from '../helpers/spawn-like.js';
import { killAllWith, survivorsWith, uniqueSleep } from '../helpers/processes.js';

const REPO = resolve(import.meta.dirname, '../..');
const CLI = join(REPO, 'src/cli/index.ts');
const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
const KEY = 'sk-ant-test-key';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
/** `sleep` arguments the test's processes are found by (a printed pid is the call's own). */
const INNER = uniqueSleep(31);
const OUTER = uniqueSleep(30);
const HOOK = uniqueSleep(20);
afterEach(async () => {
  for (const argument of [INNER, OUTER, HOOK]) killAllWith(argument);
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

type Line = Record<string, unknown> & { type: string; subtype?: string };

interface Stopped {
  code: number | null;
  stopMs: number;
  stdout: Line[];
  log: Line[];
  transcript: Line[];
}

/**
 * Runs the CLI on `turns`; once `ready()` holds, sends SIGTERM (and `then` runs), and measures
 * the time from the signal to the exit.
 */
async function runAndStop(
  turns: (root: string) => ReplayScriptEntry[],
  ready: () => boolean,
  options: { args?: string[]; then?: (child: ChildProcess) => Promise<void> } = {},
): Promise<Stopped> {
  workspace = makeWorkspace('ci-agent-cancel-');
  server = await startReplayServer({ turns: turns(workspace.root), apiKey: KEY });
  const child = execa(
    process.execPath,
    [
      '--import',
      TSX,
      CLI,
      '-p',
      'wait for it',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--log-file',
      'log.jsonl',
      '--transcript-file',
      'transcript.jsonl',
      ...(options.args ?? []),
    ],
    {
      cwd: workspace.root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: workspace.path('.home'),
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: server.url,
      },
      ...SPAWN_LIKE,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const deadline = Date.now() + 30_000;
  while (!ready()) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the run never got ready; stderr: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const signalled = performance.now();
  child.kill('SIGTERM');
  await options.then?.(child);
  const code = await closed;
  const stopMs = performance.now() - signalled;
  const root = workspace.root;
  return {
    code,
    stopMs,
    stdout: parseLines(stdout),
    log: parseLines(readFileSync(join(root, 'log.jsonl'), 'utf8')),
    transcript: parseLines(readFileSync(join(root, 'transcript.jsonl'), 'utf8')),
  };
}

function bashTurn(root: string, extra: ReplayScriptEntry[] = []): ReplayScriptEntry[] {
  // A shell with two long children, one of them in a subshell: the whole group must go.
  const command = `(sleep ${INNER} & echo $! > ${root}/inner.pid; wait) & sleep ${OUTER} & echo $! > ${root}/outer.pid; wait`;
  return [[{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command } }], ...extra];
}

const survivors = async () => [...(await survivorsWith(INNER)), ...(await survivorsWith(OUTER))];
const bothStarted = () =>
  workspace !== undefined &&
  existsSync(workspace.path('inner.pid')) &&
  existsSync(workspace.path('outer.pid'));

function expectCompleteFiles(run: Stopped): void {
  const [result] = run.stdout.filter((line) => line.type === 'result');
  expect(result).toMatchObject({
    subtype: 'error_during_execution',
    is_error: true,
    errors: ['the run was stopped: received SIGTERM'],
  });
  // A stopped run still closes its log: the chain ends with log_end and verifies whole.
  expect(run.log.at(-2)).toMatchObject({ type: 'result', subtype: 'error_during_execution' });
  expect(run.log.at(-1)).toMatchObject({ type: 'system', subtype: 'log_end' });
  expect(verifyLogText(readFileSync(join(workspace!.root, 'log.jsonl'), 'utf8')).status).toBe(
    'verified',
  );
  expect(run.log.map((line) => line.subtype ?? line.type)).toEqual(
    expect.arrayContaining(['init', 'assistant', 'permission_decision', 'tool_call_end', 'user']),
  );
  expect(run.log.find((line) => line.subtype === 'tool_call_end')).toMatchObject({
    tool_use_id: 'toolu_bash',
    is_error: true,
  });
  // The transcript: the prompt, the tool_use, and its result.
  expect(run.transcript.map((line) => line.type)).toEqual(['user', 'assistant', 'user']);
  const answer = (run.transcript[2]?.message as { content: Array<Record<string, unknown>> })
    .content[0];
  expect(answer).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_bash', is_error: true });
}

describe('the CLI on SIGTERM', () => {
  it('stops a long Bash call within 5 s, kills its processes, and leaves the log, transcript and result', async () => {
    const run = await runAndStop((root) => bashTurn(root), bothStarted);
    expect(run.code).toBe(143);
    expect(run.stopMs).toBeLessThan(5_000);
    expect(await survivors()).toEqual([]);
    expectCompleteFiles(run);
    expect(server?.requests).toHaveLength(1);
  }, 40_000);

  it('does the same while the model is still streaming the message that started the call', async () => {
    const pause = createPause();
    const run = await runAndStop((root) => {
      const [first] = bashTurn(root) as [Array<{ type: 'tool_use'; id: string; name: string }>];
      return [
        {
          content: [...first, { type: 'text', text: 'and this never arrives' }],
          pauseAfter: { event: 'content_block_stop', blockIndex: 0, handle: pause },
        },
      ];
    }, bothStarted);
    expect(pause.isReleased).toBe(false);
    expect(run.code).toBe(143);
    expect(run.stopMs).toBeLessThan(5_000);
    expect(await survivors()).toEqual([]);
    expectCompleteFiles(run);
    const assistant = run.transcript[1]?.message as { content: unknown[]; stop_reason: unknown };
    expect(assistant.content).toHaveLength(1);
    expect(assistant.stop_reason).toBeNull();
  }, 40_000);

  it('exits at once on a second signal, while a SessionEnd hook still runs', async () => {
    let hookStarted = false;
    const settings = JSON.stringify({
      hooks: {
        SessionEnd: [
          { hooks: [{ type: 'command', command: `echo $$ > hook.pid; exec sleep ${HOOK}` }] },
        ],
      },
    });
    const run = await runAndStop((root) => bashTurn(root), bothStarted, {
      args: ['--settings', settings],
      then: async (child) => {
        const marker = workspace!.path('hook.pid');
        while (!existsSync(marker) || readFileSync(marker, 'utf8').trim() === '')
          await new Promise((resolve) => setTimeout(resolve, 20));
        hookStarted = true;
        child.kill('SIGTERM');
      },
    });
    expect(run.code).toBe(143);
    expect(run.stopMs).toBeLessThan(5_000);
    // The result comes after the SessionEnd hooks: the second signal did not wait for them.
    expect(run.stdout.filter((line) => line.type === 'result')).toEqual([]);
    expect(hookStarted).toBe(true);
    // The CLI did not wait for the hook, and the hook did not outlive the CLI.
    expect(await survivorsWith(HOOK)).toEqual([]);
  }, 40_000);
});

function parseLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
}
