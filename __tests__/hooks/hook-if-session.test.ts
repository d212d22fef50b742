/**
 * A hook's `if` rule through a whole session: the pipeline hands each call to the hook runner,
 * which runs the guarded hook only for the calls its rule matches.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../src/agent/session.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let server: ReplayServer | undefined;
let workspace: Workspace | undefined;
afterEach(async () => {
  await server?.close();
  workspace?.cleanup();
});

const bash = (id: string, command: string) => ({
  type: 'tool_use' as const,
  id,
  name: 'Bash',
  input: { command, description: 'Run it' },
});

describe('a PreToolUse hook with an "if" rule, in a session', () => {
  it('judges only the calls its rule matches', async () => {
    workspace = makeWorkspace('ci-agent-hook-if-');
    const seen = workspace.path('seen.ndjson');
    server = await startReplayServer({
      apiKey: 'sk-test',
      turns: [
        [bash('toolu_echo', 'echo hello'), bash('toolu_push', 'cd . && git push origin main')],
        [{ type: 'text', text: 'Done.' }],
      ],
    });
    const result = await runSession({
      prompt: 'Push it.',
      cwd: workspace.root,
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: server.url }),
      permissionMode: 'bypassPermissions',
      rules: { allow: [], deny: [] },
      env: process.env,
      events: () => undefined,
      retry: false,
      hooksConfig: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: `cat >> ${seen}; echo; echo 'pushing is for people' >&2; exit 2`,
                if: 'Bash(git push:*)',
                source: '.claude/settings.json',
              },
            ],
          },
        ],
      },
    });

    expect(result.subtype).toBe('success');
    const messages = (server.requests[1]?.body as { messages: Message[] }).messages;
    const last = messages[messages.length - 1]?.content as ToolResultBlock[];
    const byId = Object.fromEntries(last.map((block) => [block.tool_use_id, block]));
    expect(byId.toolu_echo?.is_error ?? false).toBe(false);
    expect(JSON.stringify(byId.toolu_echo?.content)).toContain('hello');
    expect(byId.toolu_push?.is_error).toBe(true);
    expect(JSON.stringify(byId.toolu_push?.content)).toContain('pushing is for people');
    expect(existsSync(seen)).toBe(true);
    const payloads = readFileSync(seen, 'utf8').trim().split('\n').filter(Boolean);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toContain('git push origin main');
  });
});
