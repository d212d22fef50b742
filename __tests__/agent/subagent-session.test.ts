/**
 * The Agent tool through a whole session: the real SDK client against the replay server, the
 * real tools in a temp workspace, real hook commands, and the stream-json lines the log gets.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionOptions } from '../../src/agent/session.js';
import { StreamJsonMapper } from '../../src/log/stream-json.js';
import type { StreamJsonLine } from '../../src/log/stream-json.js';
import { costUSD } from '../../src/model/pricing.js';
import type {
  RecordedRequest,
  ReplayScriptEntry,
  ReplayServer,
} from '../../testkit/replay-server.js';
import { createPause } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import {
  SESSION_MODEL,
  runTestSession,
  startSessionServer,
  usage,
} from '../helpers/session-harness.js';
import type { SessionRun } from '../helpers/session-harness.js';
import { deferred } from '../helpers/test-tools.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

const MODEL = SESSION_MODEL;

async function run(
  turns: ReplayScriptEntry[],
  options: Partial<SessionOptions> = {},
): Promise<SessionRun> {
  workspace ??= makeWorkspace('ci-agent-subagent-session-');
  server = await startSessionServer(turns);
  return runTestSession(server, workspace, options);
}

function messagesOf(request: RecordedRequest | undefined): Message[] {
  return (request?.body as { messages: Message[] }).messages;
}

function systemOf(request: RecordedRequest): string {
  return (request.body as { system: { text: string }[] }).system.map((b) => b.text).join('\n');
}

function toolNamesOf(request: RecordedRequest | undefined): string[] {
  return (request?.body as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

function resultsIn(request: RecordedRequest | undefined): ToolResultBlock[] {
  const messages = messagesOf(request);
  const last = messages[messages.length - 1];
  if (!last || typeof last.content === 'string') return [];
  return last.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

const agentCall = (id: string, prompt: string, subagentType?: string) => ({
  type: 'tool_use' as const,
  id,
  name: 'Agent',
  input: { description: 'Do a part', prompt, ...(subagentType && { subagent_type: subagentType }) },
});

/** Parent reads notes.txt, a general-purpose agent edits it, the parent tries to edit it too. */
async function delegatedEdit(options: Partial<SessionOptions> = {}): Promise<SessionRun> {
  workspace = makeWorkspace('ci-agent-subagent-session-');
  const notes = await workspace.write('notes.txt', 'one\n');
  const hookLog = workspace.path('hook-payloads.ndjson');
  return run(
    [
      {
        content: [
          { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: notes } },
        ],
        usage: usage(1000, 10),
      },
      {
        content: [
          { type: 'text', text: 'Delegating.' },
          agentCall('toolu_agent', 'Change one to two in notes.txt.'),
        ],
        usage: usage(1100, 10),
      },
      {
        content: [
          { type: 'tool_use', id: 'toolu_sub_read', name: 'Read', input: { file_path: notes } },
        ],
        usage: usage(100, 5),
      },
      {
        content: [
          {
            type: 'tool_use',
            id: 'toolu_sub_edit',
            name: 'Edit',
            input: { file_path: notes, old_string: 'one', new_string: 'two' },
          },
        ],
        usage: usage(200, 5),
      },
      {
        content: [{ type: 'text', text: 'Changed one to two in notes.txt.' }],
        usage: usage(300, 7),
      },
      {
        content: [
          {
            type: 'tool_use',
            id: 'toolu_edit',
            name: 'Edit',
            input: { file_path: notes, old_string: 'two', new_string: 'three' },
          },
        ],
        usage: usage(1500, 20),
      },
      { content: [{ type: 'text', text: 'All done.' }], usage: usage(1600, 5) },
    ],
    {
      hooksConfig: {
        PreToolUse: [
          {
            matcher: '*',
            hooks: [{ type: 'command', command: `{ cat; echo; } >> ${hookLog}`, source: 'test' }],
          },
        ],
      },
      ...options,
    },
  );
}

describe('runSession with the Agent tool', () => {
  describe('when the model hands a task to a general-purpose agent', () => {
    it('gets back only the agent’s final text and a usage line; the agent did the work', async () => {
      const { result } = await delegatedEdit();
      const requests = server!.requests;
      expect(requests).toHaveLength(7);
      // The agent's first request: a fresh conversation, the subagent prompt, no Agent tool.
      expect(messagesOf(requests[2])).toEqual([
        { role: 'user', content: 'Change one to two in notes.txt.' },
      ]);
      expect(systemOf(requests[2]!)).toContain('# You are a subagent');
      expect(toolNamesOf(requests[2])).not.toContain('Agent');
      expect(toolNamesOf(requests[0])).toContain('Agent');
      const sent = resultsIn(requests[5]);
      expect(sent.map((block) => [block.tool_use_id, block.is_error])).toEqual([
        ['toolu_agent', undefined],
      ]);
      const content = sent[0]?.content as { type: string; text: string }[];
      expect(content.map((block) => block.type)).toEqual(['text', 'text']);
      expect(content[0]?.text).toBe('Changed one to two in notes.txt.');
      expect(content[1]?.text).toMatch(
        /^<usage>total_tokens: 617\ntool_uses: 2\nduration_ms: \d+<\/usage>$/,
      );
      expect(result.subtype).toBe('success');
      expect(result.numTurns).toBe(4);
    });

    it('counts the agent’s spend in the run’s usage and cost', async () => {
      const { result } = await delegatedEdit();
      const all = [
        usage(1000, 10),
        usage(1100, 10),
        usage(100, 5),
        usage(200, 5),
        usage(300, 7),
        usage(1500, 20),
        usage(1600, 5),
      ];
      expect(result.usage).toEqual(usage(5800, 62));
      expect(result.totalCostUsd).toBeCloseTo(
        all.reduce((total, each) => total + costUSD(MODEL, each), 0),
        12,
      );
    });

    it('keeps the parent’s read record its own: an edit after the agent’s change is refused as stale', async () => {
      await delegatedEdit();
      const [edit] = resultsIn(server!.requests[6]);
      expect(edit?.is_error).toBe(true);
      expect(JSON.stringify(edit?.content)).toContain('File has been modified since read');
      expect(readFileSync(workspace!.path('notes.txt'), 'utf8')).toBe('two\n');
    });

    it('gives hooks the agent’s id and type for the agent’s calls, and not for the parent’s', async () => {
      const { events } = await delegatedEdit();
      const payloads = readFileSync(workspace!.path('hook-payloads.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const byCall = new Map(payloads.map((payload) => [payload.tool_use_id, payload]));
      const agentId = events.find((event) => event.type === 'subagent-event')?.agentId;
      expect(agentId).toMatch(/^a[0-9a-f]{16}$/);
      for (const id of ['toolu_sub_read', 'toolu_sub_edit']) {
        expect(byCall.get(id)).toMatchObject({ agent_id: agentId, agent_type: 'general-purpose' });
      }
      for (const id of ['toolu_read', 'toolu_agent']) {
        expect(byCall.get(id)).not.toHaveProperty('agent_id');
      }
      expect(byCall.get('toolu_agent')).toMatchObject({
        tool_name: 'Agent',
        tool_input: { description: 'Do a part', prompt: 'Change one to two in notes.txt.' },
      });
    });

    it('writes the agent’s lines under the Agent call, framed by subagent_start and subagent_end', async () => {
      const { events } = await delegatedEdit();
      const mapper = new StreamJsonMapper({ version: 'test' });
      const lines: StreamJsonLine[] = events.flatMap((event) => mapper.map(event));
      expect(lines.filter((line) => line.type === 'result')).toHaveLength(1);
      expect(lines.filter((line) => line.subtype === 'init')).toHaveLength(1);
      const start = lines.find((line) => line.subtype === 'subagent_start');
      expect(start).toMatchObject({
        parent_tool_use_id: 'toolu_agent',
        agent_type: 'general-purpose',
        model: MODEL,
      });
      expect(lines.find((line) => line.subtype === 'subagent_end')).toMatchObject({
        parent_tool_use_id: 'toolu_agent',
        agent_id: start?.agent_id,
        status: 'success',
        num_turns: 3,
        usage: usage(600, 17),
      });
      const parentOf = (type: string, id: string) =>
        lines.find(
          (line) =>
            line.type === type &&
            JSON.stringify((line.message as { content: unknown }).content).includes(`"${id}"`),
        )?.parent_tool_use_id;
      expect(parentOf('assistant', 'toolu_sub_edit')).toBe('toolu_agent');
      expect(parentOf('user', 'toolu_sub_edit')).toBe('toolu_agent');
      expect(parentOf('assistant', 'toolu_agent')).toBeNull();
      expect(parentOf('user', 'toolu_agent')).toBeNull();
      expect(
        lines.find(
          (line) => line.subtype === 'tool_call_end' && line.tool_use_id === 'toolu_sub_read',
        ),
      ).toMatchObject({ parent_tool_use_id: 'toolu_agent', is_error: false });
      // The session id is the parent's throughout.
      expect(new Set(lines.map((line) => line.session_id)).size).toBe(1);
    });
  });

  describe('when the agent’s call is denied', () => {
    it('lists the denial in the run’s result', async () => {
      const { result } = await run(
        [
          [agentCall('toolu_agent', 'Clean the build directory.')],
          [{ type: 'tool_use', id: 'toolu_rm', name: 'Bash', input: { command: 'rm -rf build' } }],
          [{ type: 'text', text: 'Not allowed to clean.' }],
          [{ type: 'text', text: 'The agent could not clean.' }],
        ],
        { rules: { allow: [], deny: [parseRule('Bash(rm:*)', '.github/ci-agent.yml')] } },
      );
      expect(result.permissionDenials).toMatchObject([
        { tool_use_id: 'toolu_rm', tool_name: 'Bash', rules: ['Bash(rm:*)'] },
      ]);
    });
  });

  describe('when a SubagentStop hook says the agent is not done', () => {
    it('sends the agent back to work once, with agent fields, and no session hook fires for it', async () => {
      workspace = makeWorkspace('ci-agent-subagent-session-');
      const payloads = workspace.path('subagent-stop.ndjson');
      const starts = workspace.path('session-start.ndjson');
      // Blocks the first stop only: the second payload has stop_hook_active set.
      const hook = `input=$(cat); echo "$input" >> ${payloads}; case "$input" in *'"stop_hook_active":true'*) exit 0;; esac; echo 'run the checks first' >&2; exit 2`;
      const { result, events } = await run(
        [
          { content: [agentCall('toolu_agent', 'Look around.', 'Explore')], usage: usage(100, 5) },
          { content: [{ type: 'text', text: 'Looked.' }], usage: usage(50, 5) },
          { content: [{ type: 'text', text: 'Checked too.' }], usage: usage(60, 5) },
          { content: [{ type: 'text', text: 'Done.' }], usage: usage(120, 5) },
        ],
        {
          hooksConfig: {
            SubagentStop: [
              { matcher: 'Explore', hooks: [{ type: 'command', command: hook, source: 'test' }] },
              {
                matcher: 'general-purpose',
                hooks: [{ type: 'command', command: 'exit 2', source: 'test' }],
              },
            ],
            SessionStart: [
              { hooks: [{ type: 'command', command: `cat >> ${starts}`, source: 'test' }] },
            ],
          },
        },
      );

      expect(result.subtype).toBe('success');
      const sent = server!.requests.map((request) => messagesOf(request));
      // The agent's third request carries the hook's reason as the next user message.
      const retold = sent[2]!;
      expect(JSON.stringify(retold[retold.length - 1])).toContain('run the checks first');
      expect(JSON.stringify(resultsIn(server!.requests[3])[0]?.content)).toContain('Checked too.');
      const stops = readFileSync(payloads, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(stops.map((payload) => payload.stop_hook_active)).toEqual([false, true]);
      expect(stops[0]).toMatchObject({
        hook_event_name: 'SubagentStop',
        agent_type: 'Explore',
        last_assistant_message: 'Looked.',
      });
      expect(typeof stops[0]?.agent_id).toBe('string');
      // SessionStart fired once, for the session, not for the agent.
      expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(1);
      const runs = events.flatMap((event) =>
        event.type === 'subagent-event' && event.event.type === 'hook-run' ? [event.event.run] : [],
      );
      expect(runs.map((run) => run.event)).toEqual(['SubagentStop', 'SubagentStop']);
    });
  });

  describe('when a bare Task deny rule is in force', () => {
    it('does not offer the Agent tool', async () => {
      await run([[{ type: 'text', text: 'ok' }]], {
        rules: { allow: [], deny: [parseRule('Task', '.claude/settings.json')] },
      });
      expect(toolNamesOf(server!.requests[0])).not.toContain('Agent');
      expect(toolNamesOf(server!.requests[0])).toContain('Read');
    });
  });

  describe('when the model starts two Explore agents in one message', () => {
    it('runs them side by side', async () => {
      // Each agent's first request is answered only once both have arrived: run one after the
      // other, they would never finish.
      const bothAsked = deferred();
      const asked = new Set<string>();
      const route = async (request: RecordedRequest) => {
        if (!systemOf(request).includes('# You are a subagent')) {
          return messagesOf(request).length === 1
            ? [
                agentCall('toolu_a', 'Find the tests.', 'Explore'),
                agentCall('toolu_b', 'Find the docs.', 'Explore'),
              ]
            : [{ type: 'text' as const, text: 'Both found.' }];
        }
        const prompt = messagesOf(request)[0]?.content as string;
        asked.add(prompt);
        if (asked.size === 2) bothAsked.resolve();
        await bothAsked.promise;
        return [{ type: 'text' as const, text: `Answer to: ${prompt}` }];
      };
      const { result } = await run([route, route, route, route]);
      expect(result.subtype).toBe('success');
      const sent = resultsIn(server!.requests[3]);
      expect(sent.map((block) => block.tool_use_id)).toEqual(['toolu_a', 'toolu_b']);
      expect(JSON.stringify(sent[0]?.content)).toContain('Answer to: Find the tests.');
      expect(JSON.stringify(sent[1]?.content)).toContain('Answer to: Find the docs.');
    });
  });

  describe('when the run is cancelled while an agent works', () => {
    it('stops the agent and ends the run, the Agent call failing', async () => {
      const pause = createPause();
      const controller = new AbortController();
      const running = run(
        [
          [agentCall('toolu_agent', 'Take your time.')],
          {
            content: [{ type: 'text', text: 'Working on it' }],
            pauseAfter: { event: 'content_block_delta', handle: pause },
          },
          [{ type: 'text', text: 'never asked' }],
        ],
        { signal: controller.signal },
      );
      await pause.reached;
      controller.abort(new Error('SIGTERM'));
      const { result, events } = await running;
      pause.release();
      expect(result.subtype).toBe('error_during_execution');
      expect(server!.requests).toHaveLength(2);
      const agentResult = events.find(
        (event) => event.type === 'tool-result' && event.toolUseId === 'toolu_agent',
      );
      expect(agentResult).toMatchObject({ result: { is_error: true } });
      const subEnd = events.find(
        (event) => event.type === 'subagent-event' && event.event.type === 'result',
      );
      expect(subEnd).toMatchObject({
        event: {
          result: { subtype: 'error_during_execution', errors: ['the run was stopped: SIGTERM'] },
        },
      });
    });
  });
});
