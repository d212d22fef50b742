/**
 * A whole run with MCP servers from npm: the real session, the real Anthropic SDK against the
 * replay server, server-everything over stdio from the project's .mcp.json.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import type { SessionOptions } from '../../src/agent/session.js';
import { runSession } from '../../src/agent/session.js';
import type { McpServerStatus } from '../../src/mcp/start-mcp-servers.js';
import { McpStartupError } from '../../src/mcp/start-mcp-servers.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { ReplayScriptEntry, ReplayServer } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import { EVERYTHING_BIN, groupAlive, waitForGroupGone } from './mcp-fixture.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
  server = undefined;
  workspace = undefined;
});

/** server-everything started through a shell that writes its pid (= process group) to a file. */
const everythingWithPidFile = {
  command: '/bin/sh',
  args: ['-c', `echo $$ > server.pid; exec "${EVERYTHING_BIN}"`],
};

interface Run {
  events: AgentEvent[];
  servers: McpServerStatus[];
  warnings: string[];
  result: Awaited<ReturnType<typeof runSession>>;
}

async function run(
  turns: ReplayScriptEntry[],
  options: Partial<SessionOptions> & { mcpJson?: unknown } = {},
): Promise<Run> {
  workspace ??= makeWorkspace('ci-agent-mcp-session-');
  const mcpJson = options.mcpJson ?? { mcpServers: { everything: everythingWithPidFile } };
  await workspace.write('.mcp.json', JSON.stringify(mcpJson));
  server = await startReplayServer({ apiKey: 'sk-test', turns });
  const events: AgentEvent[] = [];
  let servers: McpServerStatus[] = [];
  let warnings: string[] = [];
  const result = await runSession({
    prompt: 'use the tools',
    cwd: workspace.root,
    model: 'claude-sonnet-5-5',
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    permissionMode: 'default',
    rules: { allow: [], deny: [] },
    env: process.env,
    events: (event) => {
      events.push(event);
      options.events?.(event);
    },
    ...options,
    mcp: {
      graceMs: 300,
      ...options.mcp,
      onStart: (report) => ({ servers, warnings } = report),
    },
  });
  return { events, servers, warnings, result };
}

function resultsSent(): Map<string, ToolResultBlock> {
  const results = new Map<string, ToolResultBlock>();
  for (const request of server?.requests ?? []) {
    const body = request.body as { messages?: Message[] } | undefined;
    for (const message of body?.messages ?? []) {
      if (message.role !== 'user' || typeof message.content === 'string') continue;
      for (const block of message.content) {
        if (block.type === 'tool_result') results.set(block.tool_use_id, block);
      }
    }
  }
  return results;
}

function textOf(block: ToolResultBlock | undefined): string {
  if (!block) return '(no result)';
  if (typeof block.content === 'string') return block.content;
  return block.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
    .join('');
}

function toolsOffered(): Array<{ name: string; input_schema: Record<string, unknown> }> {
  return (
    server?.requests[0]?.body as {
      tools: Array<{ name: string; input_schema: Record<string, unknown> }>;
    }
  ).tools;
}

function serverPid(): number {
  return Number(readFileSync(workspace?.path('server.pid') ?? '', 'utf8').trim());
}

const use = (id: string, name: string, input: Record<string, unknown>) => ({
  type: 'tool_use' as const,
  id,
  name,
  input,
});
const done: ReplayScriptEntry = [{ type: 'text', text: 'Done.' }];

describe('runSession with MCP servers', () => {
  describe('when .mcp.json configures server-everything', () => {
    it('offers its tools by mcp__ name with their JSON Schema, calls them, and stops the server', async () => {
      const { result, servers } = await run(
        [
          [
            use('toolu_echo', 'mcp__everything__echo', { message: 'hi' }),
            use('toolu_bad', 'mcp__everything__get-sum', { a: 1, b: 'two' }),
            use('toolu_unallowed', 'mcp__everything__get-env', {}),
          ],
          done,
        ],
        {
          rules: {
            allow: [
              parseRule('mcp__everything__echo', '--allowedTools'),
              parseRule('mcp__everything__get-sum', '--allowedTools'),
            ],
            deny: [],
          },
        },
      );
      expect(result.subtype).toBe('success');
      expect(servers).toEqual([{ name: 'everything', status: 'connected' }]);
      const echo = toolsOffered().find((tool) => tool.name === 'mcp__everything__echo');
      expect(echo?.input_schema).toEqual({
        type: 'object',
        properties: { message: { type: 'string', description: 'Message to echo' } },
        required: ['message'],
      });

      const results = resultsSent();
      expect(textOf(results.get('toolu_echo'))).toBe('Echo: hi');
      expect(results.get('toolu_echo')?.is_error).toBeUndefined();
      expect(textOf(results.get('toolu_bad'))).toBe(
        '<tool_use_error>InputValidationError: mcp__everything__get-sum failed due to the following issue:\nThe parameter `b` type is expected as `number` but provided as `string`</tool_use_error>',
      );
      expect(results.get('toolu_unallowed')?.is_error).toBe(true);
      expect(result.permissionDenials.map((denial) => denial.tool_use_id)).toEqual([
        'toolu_unallowed',
      ]);
      expect(await waitForGroupGone(serverPid())).toBe(true);
    });

    it('answers an isError result from the server as an is_error tool_result', async () => {
      await run(
        [
          [use('toolu_server', 'mcp__everything__get-resource-reference', { resourceId: 1.5 })],
          [use('toolu_enum', 'mcp__everything__get-structured-content', { location: 'Paris' })],
          done,
        ],
        { permissionMode: 'bypassPermissions' },
      );
      const fromServer = resultsSent().get('toolu_server');
      expect(textOf(fromServer)).toContain(
        'Invalid resourceId: 1.5. Must be a finite positive integer.',
      );
      expect(fromServer?.is_error).toBe(true);
      // The schema's enum is checked here, before the server, in the model's words.
      const fromSchema = resultsSent().get('toolu_enum');
      expect(textOf(fromSchema)).toContain(
        'The parameter `location` must be one of the allowed values: "New York", "Chicago", "Los Angeles"',
      );
      expect(fromSchema?.is_error).toBe(true);
    });
  });

  describe('when a deny rule names the server', () => {
    it('removes all its tools from what the model is offered', async () => {
      await run([done], {
        rules: { allow: [], deny: [parseRule('mcp__everything', '.claude/settings.json')] },
      });
      expect(toolsOffered().filter((tool) => tool.name.startsWith('mcp__'))).toEqual([]);
    });
  });

  describe('when a PreToolUse hook matches an mcp__ tool', () => {
    it('blocks the call with the hook’s reason and lets other tools of the server run', async () => {
      workspace = makeWorkspace('ci-agent-mcp-session-');
      const hook = await workspace.write(
        'hooks/no-echo.sh',
        '#!/bin/sh\necho "echo is not for CI" >&2\nexit 2\n',
      );
      const { result } = await run(
        [
          [
            use('toolu_echo', 'mcp__everything__echo', { message: 'hi' }),
            use('toolu_sum', 'mcp__everything__get-sum', { a: 2, b: 3 }),
          ],
          done,
        ],
        {
          permissionMode: 'bypassPermissions',
          hooksConfig: {
            PreToolUse: [
              {
                matcher: 'mcp__everything__echo',
                hooks: [{ type: 'command', command: `sh ${hook}`, source: 'test' }],
              },
            ],
          },
        },
      );
      const results = resultsSent();
      expect(textOf(results.get('toolu_echo'))).toContain('echo is not for CI');
      expect(results.get('toolu_echo')?.is_error).toBe(true);
      expect(textOf(results.get('toolu_sum'))).toBe('The sum of 2 and 3 is 5.');
      expect(result.subtype).toBe('success');
    });
  });

  describe('when the server crashes mid-run', () => {
    it('answers its tools with a clear error and the run goes on', async () => {
      // Killed from here: a Bash call sees only its own processes (util/process-scope.ts).
      const { result } = await run(
        [
          [use('toolu_kill', 'Bash', { command: 'sleep 0.3' })],
          [use('toolu_echo', 'mcp__everything__echo', { message: 'anyone?' })],
          done,
        ],
        {
          permissionMode: 'bypassPermissions',
          events: (event) => {
            if (event.type === 'tool-call-start' && event.toolUseId === 'toolu_kill') {
              process.kill(serverPid(), 'SIGKILL');
            }
          },
        },
      );
      const echo = resultsSent().get('toolu_echo');
      expect(textOf(echo)).toMatch(
        /^Error: MCP server "everything" is no longer running \(it was killed by SIGKILL.*\); its tools cannot be used for the rest of this run$/s,
      );
      expect(echo?.is_error).toBe(true);
      expect(result.subtype).toBe('success');
    });
  });

  describe('when the run is cancelled during an MCP call', () => {
    it('stops the call and leaves no server process behind', async () => {
      const controller = new AbortController();
      const { result } = await run(
        [
          [
            use('toolu_long', 'mcp__everything__trigger-long-running-operation', {
              duration: 30,
              steps: 30,
            }),
          ],
          done,
        ],
        {
          permissionMode: 'bypassPermissions',
          signal: controller.signal,
          events: (event) => {
            if (event.type === 'tool-progress') controller.abort(new Error('SIGTERM'));
          },
        },
      );
      expect(result.isError).toBe(true);
      const pid = serverPid();
      expect(groupAlive(pid)).toBe(false);
    });
  });

  describe('when a server fails to start', () => {
    const broken = {
      mcpServers: {
        everything: everythingWithPidFile,
        broken: { command: '/nonexistent/server' },
      },
    };

    it('warns, reports it as failed, and runs with the other servers', async () => {
      const { result, servers, warnings } = await run([done], { mcpJson: broken });
      expect(servers).toEqual([
        { name: 'everything', status: 'connected' },
        { name: 'broken', status: 'failed' },
      ]);
      expect(warnings).toContain(
        'MCP server "broken" failed to start: cannot start /nonexistent/server: spawn /nonexistent/server ENOENT; the run goes on without its tools',
      );
      expect(result.subtype).toBe('success');
    });

    it('stops the run before it starts when the policy requires that server', async () => {
      const attempt = run([done], {
        mcpJson: broken,
        mcp: {
          policy: { servers: {}, trusted: [], required: ['broken'], allowEnv: [] },
        },
      });
      await expect(attempt).rejects.toThrow(McpStartupError);
      await expect(attempt).rejects.toThrow(
        'required MCP server "broken" failed to start: cannot start /nonexistent/server',
      );
      expect(server?.requests).toEqual([]);
      expect(await waitForGroupGone(serverPid())).toBe(true);
    });
  });
});
