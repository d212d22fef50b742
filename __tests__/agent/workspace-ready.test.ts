/**
 * SessionOptions.workspaceReady: the action creates its branch once the first model request is
 * out. The request does not wait for it; tool calls, hooks and MCP servers do; a failure stops
 * the run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { runSession } from '../../src/agent/session.js';
import type { SessionOptions } from '../../src/agent/session.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { ReplayScriptEntry, ReplayServer } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { Message } from '../../src/model/types.js';
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

/**
 * A workspace that becomes ready (a file appears in it) only when `settle` is called; `ready`
 * is what the session calls to start the preparation, and `calls` how often it did.
 */
function preparation(root: string) {
  let settle!: (error?: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    settle = (error) => {
      if (error) return reject(error);
      writeFileSync(`${root}/branch.txt`, 'on the new branch\n');
      resolve();
    };
  });
  const started: number[] = [];
  const ready = () => {
    started.push(server?.requests.length ?? -1);
    return promise;
  };
  return { ready, settle, promise, started };
}

async function session(
  turns: ReplayScriptEntry[],
  options: Partial<SessionOptions> & Pick<SessionOptions, 'workspaceReady'>,
) {
  server = await startReplayServer({ apiKey: 'sk-test', turns });
  const events: AgentEvent[] = [];
  const result = await runSession({
    prompt: 'go',
    cwd: workspace!.root,
    model: 'claude-sonnet-5-5',
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    permissionMode: 'bypassPermissions',
    rules: { allow: [], deny: [] },
    env: process.env,
    events: (event) => events.push(event),
    ...options,
  });
  return { result, events };
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages: Message[] }).messages;
  return JSON.stringify(messages.at(-1)?.content);
}

describe('runSession with workspaceReady', () => {
  it('sends the first request before the workspace is ready, and runs tools only after', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { ready, settle, promise, started } = preparation(workspace.root);
    let readyAtFirstRequest: boolean | undefined;
    let isReady = false;
    void promise.then(() => (isReady = true));
    const { result } = await session(
      [
        () => {
          readyAtFirstRequest = isReady;
          setTimeout(() => settle(), 50);
          return [
            {
              type: 'tool_use',
              id: 'toolu_cat',
              name: 'Bash',
              input: { command: 'cat branch.txt' },
            },
          ];
        },
        [{ type: 'text', text: 'done' }],
      ],
      { workspaceReady: ready },
    );

    expect(readyAtFirstRequest).toBe(false);
    // Started once, after the first request had reached the server.
    expect(started).toEqual([1]);
    expect(result.subtype).toBe('success');
    expect(lastUserText(server!.requests[1]?.body)).toContain('on the new branch');
  });

  it('stops the run with the error when the workspace cannot be prepared; no tool runs', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { ready, settle } = preparation(workspace.root);
    const { result, events } = await session(
      [
        () => {
          setTimeout(() => settle(new Error('cannot lock ref refs/heads/ci-agent/issue-1')), 20);
          return [
            {
              type: 'tool_use',
              id: 'toolu_touch',
              name: 'Bash',
              input: { command: 'touch canary' },
            },
          ];
        },
        [{ type: 'text', text: 'should not be asked' }],
      ],
      { workspaceReady: ready },
    );

    expect(result.isError).toBe(true);
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors.join('\n')).toContain(
      'the workspace could not be prepared: cannot lock ref refs/heads/ci-agent/issue-1',
    );
    expect(existsSync(workspace.path('canary'))).toBe(false);
    expect(server!.requests).toHaveLength(1);
    const toolResult = events.find((event) => event.type === 'tool-result');
    expect(toolResult).toMatchObject({ toolUseId: 'toolu_touch', stage: 'aborted' });
  });

  it('ends the run without a tool call even when the workspace never gets ready', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { result } = await session([[{ type: 'text', text: 'nothing to do' }]], {
      workspaceReady: () => new Promise<void>(() => undefined),
    });
    expect(result).toMatchObject({ subtype: 'success', result: 'nothing to do' });
  });

  it('runs SessionStart hooks only once the workspace is ready', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { ready, settle } = preparation(workspace.root);
    setTimeout(() => settle(), 100);
    await session([[{ type: 'text', text: 'done' }]], {
      workspaceReady: ready,
      hooksConfig: {
        SessionStart: [{ hooks: [{ type: 'command', command: 'cat branch.txt', source: 'test' }] }],
      },
    });
    expect(JSON.stringify(server!.requests[0]?.body)).toContain('on the new branch');
  });

  it('runs a Stop hook only once the workspace is ready, on a run with no tool call', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { ready, settle, started } = preparation(workspace.root);
    const { result } = await session(
      [
        () => {
          setTimeout(() => settle(), 100);
          return [{ type: 'text', text: 'done' }];
        },
      ],
      {
        workspaceReady: ready,
        hooksConfig: {
          Stop: [
            { hooks: [{ type: 'command', command: 'cat branch.txt > seen.txt', source: 'test' }] },
          ],
        },
      },
    );
    expect(result.subtype).toBe('success');
    expect(readFileSync(workspace.path('seen.txt'), 'utf8')).toBe('on the new branch\n');
    expect(started).toHaveLength(1);
  });

  it('runs no hook when the workspace cannot be prepared', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { ready, settle } = preparation(workspace.root);
    const { result } = await session(
      [
        () => {
          setTimeout(() => settle(new Error('cannot lock ref')), 20);
          return [{ type: 'text', text: 'done' }];
        },
      ],
      {
        workspaceReady: ready,
        hooksConfig: {
          Stop: [{ hooks: [{ type: 'command', command: 'touch canary', source: 'test' }] }],
          SessionEnd: [{ hooks: [{ type: 'command', command: 'touch canary', source: 'test' }] }],
        },
      },
    );
    expect(existsSync(workspace.path('canary'))).toBe(false);
    expect(result.errors.join('\n')).toContain(
      'the workspace could not be prepared: cannot lock ref',
    );
  });

  it('starts the preparation once, however many calls wait on it', async () => {
    workspace = makeWorkspace('ci-agent-ready-');
    const { ready, settle, started } = preparation(workspace.root);
    setTimeout(() => settle(), 50);
    const reads = ['a', 'b', 'c'].map((name) => ({
      type: 'tool_use' as const,
      id: `toolu_${name}`,
      name: 'Bash',
      input: { command: 'cat branch.txt' },
    }));
    const { result } = await session([reads, [{ type: 'text', text: 'done' }]], {
      workspaceReady: ready,
      hooksConfig: {
        PreToolUse: [{ hooks: [{ type: 'command', command: 'true', source: 'test' }] }],
      },
    });
    expect(result.subtype).toBe('success');
    expect(started).toHaveLength(1);
    expect(JSON.stringify(server!.requests[1]?.body).match(/on the new branch/g)).toHaveLength(3);
  });
});
