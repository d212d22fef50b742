/**
 * WebSearch in a whole session: the server tool is in the requests only when the policy allows
 * it, and the search blocks of a response stay in the conversation without being run as tools.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runSession } from '../../../src/agent/session.js';
import type { SessionOptions } from '../../../src/agent/session.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { ReplayServer, ReplayTurnInput } from '../../../testkit/replay-server.js';
import type { Message } from '../../../src/model/types.js';
import { parseRule } from '../../../src/permissions/rules.js';
import { makeWorkspace } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';

const RESULTS = [
  {
    type: 'web_search_result',
    url: 'https://vitest.dev/blog',
    title: 'Vitest 4',
    encrypted_content: 'Eqg...',
    page_age: null,
  },
];

let workspace: Workspace;
let server: ReplayServer;
beforeEach(() => {
  workspace = makeWorkspace('ci-agent-websearch-');
});
afterEach(async () => {
  await server.close();
  workspace.cleanup();
});

async function run(turns: ReplayTurnInput[], options: Partial<SessionOptions> = {}) {
  server = await startReplayServer({ apiKey: 'sk-test', turns });
  const events: AgentEvent[] = [];
  const result = await runSession({
    prompt: 'Which Vitest is current?',
    cwd: workspace.root,
    model: 'claude-sonnet-5-5',
    modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
    permissionMode: 'default',
    rules: { allow: [], deny: [] },
    env: process.env,
    events: (event) => events.push(event),
    ...options,
  });
  return { result, events };
}

function toolsSent(index: number): unknown[] {
  const body = server.requests[index]?.body as { tools?: Record<string, unknown>[] };
  return (body.tools ?? []).map(({ cache_control: _ignored, ...tool }) => tool);
}

const allowSearch = { rules: { allow: [parseRule('WebSearch', 'ci-agent.yml')], deny: [] } };

describe('runSession with WebSearch', () => {
  it('offers the web_search server tool when an allow rule names WebSearch', async () => {
    await run([[{ type: 'text', text: 'ok' }]], allowSearch);

    expect(toolsSent(0).at(-1)).toEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: 8,
    });
  });

  it('does not offer it without a rule in the default mode', async () => {
    await run([[{ type: 'text', text: 'ok' }]]);

    expect(JSON.stringify(toolsSent(0))).not.toContain('web_search');
  });

  it('does not offer it when a deny rule names it, even in bypassPermissions', async () => {
    await run([[{ type: 'text', text: 'ok' }]], {
      permissionMode: 'bypassPermissions',
      rules: { allow: [], deny: [parseRule('WebSearch', 'ci-agent.yml')] },
    });

    expect(JSON.stringify(toolsSent(0))).not.toContain('web_search');
  });

  it('keeps the search blocks, runs only the client tool and sends the blocks back', async () => {
    await workspace.write('package.json', '{"devDependencies":{"vitest":"^3.0.0"}}');
    const { result, events } = await run(
      [
        [
          {
            type: 'server_tool_use',
            id: 'srvtoolu_1',
            name: 'web_search',
            input: { query: 'vitest' },
          },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: RESULTS },
          {
            type: 'text',
            text: 'Vitest 4 is current.',
            citations: [
              {
                type: 'web_search_result_location',
                url: 'https://vitest.dev/blog',
                title: 'Vitest 4',
                encrypted_index: 'Eo',
                cited_text: 'Vitest 4',
              },
            ],
          },
          {
            type: 'tool_use',
            id: 'toolu_read',
            name: 'Read',
            input: { file_path: 'package.json' },
          },
        ],
        [{ type: 'text', text: 'You are on Vitest 3; 4 is current.' }],
      ],
      allowSearch,
    );

    expect(result.subtype).toBe('success');
    expect(result.result).toBe('You are on Vitest 3; 4 is current.');
    const messages = (server.requests[1]?.body as { messages: Message[] }).messages;
    const assistant = JSON.stringify(messages[1]);
    expect(assistant).toContain('"type":"server_tool_use"');
    expect(assistant).toContain('"encrypted_content":"Eqg..."');
    expect(assistant).toContain('"encrypted_index":"Eo"');
    const results = messages[2]?.content as { type: string; tool_use_id: string }[];
    expect(results.map((block) => block.tool_use_id)).toEqual(['toolu_read']);
    const started = events.flatMap((event) =>
      event.type === 'tool-result' ? [event.toolUseId] : [],
    );
    expect(started).toEqual(['toolu_read']);
  });

  it('sends a paused turn back as it is so the search can go on', async () => {
    const { result } = await run(
      [
        {
          content: [
            { type: 'text', text: 'Searching.' },
            {
              type: 'server_tool_use',
              id: 'srvtoolu_1',
              name: 'web_search',
              input: { query: 'vitest' },
            },
          ],
          stopReason: 'pause_turn',
        },
        [
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: RESULTS },
          { type: 'text', text: 'Vitest 4 is current.' },
        ],
      ],
      allowSearch,
    );

    expect(result.subtype).toBe('success');
    expect(result.result).toBe('Vitest 4 is current.');
    expect(result.numTurns).toBe(2);
    const messages = (server.requests[1]?.body as { messages: Message[] }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(messages[1])).toContain('"id":"srvtoolu_1"');
  });
});
