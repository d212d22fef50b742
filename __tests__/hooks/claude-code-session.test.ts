/**
 * Hooks through a whole session, compared field by field with what Claude Code 2.1.197 sent the
 * same hook scripts in the same session (observed with `claude -p` against a loopback model):
 * a settings file with hooks on every event and an `env`, and the model calling Bash, Write and
 * Edit. Claude Code is not needed here: its observed shapes are the expectations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../src/agent/session.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
});

type Payload = Record<string, unknown>;

const call = (id: string, name: string, input: Record<string, unknown>) => ({
  type: 'tool_use' as const,
  id,
  name,
  input,
});

/** Logs each payload, with what the hook saw of two variables, one JSON line each. */
const LOG_HOOK = `#!/bin/bash
in=$(cat)
printf '%s\\n' "$in" >> "$CLAUDE_PROJECT_DIR/payloads.ndjson"
printf '{"strict":"%s","path":"%s"}\\n' "$HOOK_STRICTNESS" "$PATH" >> "$CLAUDE_PROJECT_DIR/hook-env.ndjson"
`;
/** Blocks `rm -rf` with a deny JSON and stderr text, exiting 2. */
const GUARD_HOOK = `#!/bin/bash
case "$(cat)" in *'rm -rf'*)
  echo 'stderr text from the guard' >&2
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"JSON reason: no rm -rf"}}'
  exit 2;;
esac
`;

async function runObservedSession() {
  workspace = makeWorkspace('ci-agent-cc-session-');
  const log = await workspace.write('hooks/log.sh', LOG_HOOK);
  const guard = await workspace.write('hooks/guard.sh', GUARD_HOOK);
  const handler = (command: string) => ({ type: 'command', command: `bash ${command}` });
  const every = { hooks: [handler(log)] };
  await workspace.write(
    '.claude/settings.json',
    JSON.stringify({
      env: { HOOK_STRICTNESS: 'high', PATH: '/opt/planted:/usr/bin:/bin', GH_TOKEN: 'ghp_x' },
      hooks: {
        SessionStart: [every],
        UserPromptSubmit: [every],
        PreToolUse: [{ matcher: '', hooks: [handler(log), handler(guard)] }],
        PostToolUse: [{ matcher: '', ...every }],
        Stop: [every],
        SessionEnd: [every],
      },
    }),
  );
  const file = workspace.path('b.txt');
  server = await startReplayServer({
    apiKey: 'sk-test',
    turns: [
      [call('toolu_01', 'Bash', { command: 'echo "strict=$HOOK_STRICTNESS path=$PATH"' })],
      [call('toolu_02', 'Bash', { command: 'mkdir -p d' })],
      [call('toolu_03', 'Write', { file_path: file, content: 'hello\nworld\n' })],
      [call('toolu_04', 'Edit', { file_path: file, old_string: 'hello', new_string: 'bye' })],
      [call('toolu_05', 'Bash', { command: 'rm -rf d' })],
      [{ type: 'text', text: 'All done.' }],
    ],
  });
  const policy = await loadPolicy({ projectDir: workspace.root });
  const result = await runSession({
    prompt: 'Do the task.',
    cwd: workspace.root,
    model: 'claude-sonnet-5-5',
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    permissionMode: 'bypassPermissions',
    rules: { allow: [], deny: [] },
    env: process.env,
    events: () => undefined,
    retry: false,
    hooksConfig: policy.hooks,
    settingsEnv: policy.env,
    transcriptPath: workspace.path('transcript.jsonl'),
    sessionId: 'session-1',
  });
  const readLines = (name: string) =>
    readFileSync(workspace?.path(name) ?? '', 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Payload);
  const requests = server.requests.map((request) => request.body as { messages: Message[] });
  const results = new Map<string, ToolResultBlock>();
  for (const message of requests.at(-1)?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content)
      if (block.type === 'tool_result') results.set(block.tool_use_id, block);
  }
  return {
    result,
    policy,
    payloads: readLines('payloads.ndjson'),
    hookEnv: readLines('hook-env.ndjson'),
    results,
  };
}

const text = (block: ToolResultBlock | undefined) =>
  typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content);

describe('hooks in a session, as Claude Code 2.1.197 runs them', () => {
  it('sends every event the fields Claude Code sends, and tool inputs and responses in its shapes', async () => {
    const { result, payloads } = await runObservedSession();
    expect(result.subtype).toBe('success');
    const root = workspace?.root ?? '';
    const file = `${root}/b.txt`;
    const common = {
      session_id: 'session-1',
      transcript_path: `${root}/transcript.jsonl`,
      cwd: root,
    };
    const promptId = payloads[1]?.prompt_id;
    expect(promptId).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    const inPrompt = { ...common, prompt_id: promptId, permission_mode: 'bypassPermissions' };
    const effort = { effort: { level: 'high' } };
    const pre = (id: string, name: string, input: Payload) => ({
      ...inPrompt,
      ...effort,
      hook_event_name: 'PreToolUse',
      tool_name: name,
      tool_input: input,
      tool_use_id: id,
    });
    const post = (id: string, name: string, input: Payload, response: Payload) => ({
      ...pre(id, name, input),
      hook_event_name: 'PostToolUse',
      tool_response: response,
      duration_ms: expect.any(Number) as number,
    });
    const bashOut = (stdout: string, noOutputExpected: boolean) => ({
      stdout,
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected,
      exitCode: 0,
    });
    const echo = { command: 'echo "strict=$HOOK_STRICTNESS path=$PATH"' };
    const write = { file_path: file, content: 'hello\nworld\n' };
    const edit = { file_path: file, old_string: 'hello', new_string: 'bye', replace_all: false };
    const path = process.env.PATH ?? '';

    expect(payloads).toEqual([
      // Before the prompt exists: no prompt_id (Claude Code also leaves out permission_mode).
      {
        ...common,
        permission_mode: 'bypassPermissions',
        hook_event_name: 'SessionStart',
        source: 'startup',
      },
      { ...inPrompt, hook_event_name: 'UserPromptSubmit', prompt: 'Do the task.' },
      pre('toolu_01', 'Bash', echo),
      post('toolu_01', 'Bash', echo, bashOut(`strict=high path=${path}`, false)),
      pre('toolu_02', 'Bash', { command: 'mkdir -p d' }),
      post('toolu_02', 'Bash', { command: 'mkdir -p d' }, bashOut('', true)),
      pre('toolu_03', 'Write', write),
      post('toolu_03', 'Write', write, {
        type: 'create',
        filePath: file,
        content: 'hello\nworld\n',
        structuredPatch: [],
        originalFile: null,
        userModified: false,
      }),
      // The model left replace_all out; Claude Code fills it in for hooks.
      pre('toolu_04', 'Edit', edit),
      post(
        'toolu_04',
        'Edit',
        edit,
        expect.objectContaining({
          filePath: file,
          oldString: 'hello',
          newString: 'bye',
          originalFile: 'hello\nworld\n',
          userModified: false,
          replaceAll: false,
        }) as Payload,
      ),
      pre('toolu_05', 'Bash', { command: 'rm -rf d' }),
      {
        ...inPrompt,
        ...effort,
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: 'All done.',
        background_tasks: [],
        session_crons: [],
      },
      { ...inPrompt, hook_event_name: 'SessionEnd', reason: 'other' },
    ]);
  });

  it("gives the model the deny JSON's reason of a hook that exits 2, not its stderr", async () => {
    const { results } = await runObservedSession();
    const blocked = results.get('toolu_05');
    expect(blocked?.is_error).toBe(true);
    expect(text(blocked)).toContain('JSON reason: no rm -rf');
    expect(text(blocked)).not.toContain('stderr text from the guard');
    // The block held: the directory is still there.
    expect(existsSync(`${workspace?.root ?? ''}/d`)).toBe(true);
  });

  it("applies the settings' env to commands and hooks, but not a refused variable, and warns of it", async () => {
    const { results, hookEnv, policy } = await runObservedSession();
    const path = process.env.PATH ?? '';
    expect(text(results.get('toolu_01'))).toBe(`strict=high path=${path}`);
    expect(hookEnv.length).toBeGreaterThan(0);
    for (const seen of hookEnv) expect(seen).toEqual({ strict: 'high', path });
    expect(policy.env).toEqual({ HOOK_STRICTNESS: 'high' });
    expect(policy.warnings).toEqual([
      expect.stringMatching(
        /^\.claude\/settings\.json:1:\d+: env\.PATH: PATH is not passed to tools and hooks: it changes which program a command runs/,
      ),
      expect.stringMatching(
        /^\.claude\/settings\.json:1:\d+: env\.GH_TOKEN: GH_TOKEN is not passed to tools and hooks: it carries or locates a credential/,
      ),
    ]);
  });
});
