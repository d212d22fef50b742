/** How the loop uses context management: what it sends, and how a failed compaction ends a run. */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runAgent } from '../../../src/agent/loop.js';
import type { ContextSettings } from '../../../src/agent/context/context-settings.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import type {
  RecordedRequest,
  ReplayServer,
  ReplayTurnInput,
} from '../../../testkit/replay-server.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { SessionHookRunner } from '../../../src/hooks/types.js';
import { makePipeline } from '../../helpers/pipeline-harness.js';
import { makeHookProject, on } from '../../hooks/hook-fixture.js';
import { controlledTool, makeCallLog } from '../../helpers/test-tools.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Six turns of one tool call each, then text; `summary` answers requests without tools. */
async function run(
  contextManagement: Partial<ContextSettings> | false,
  summary: ReplayTurnInput,
  sessionHooks?: SessionHookRunner,
) {
  let turn = 0;
  const respond = (request: RecordedRequest): ReplayTurnInput => {
    if (!('tools' in (request.body as object))) return summary;
    turn++;
    if (turn > 6) return [{ type: 'text', text: 'Done.' }];
    return [
      { type: 'text', text: `Step ${turn}: ${'checking the build output carefully. '.repeat(4)}` },
      {
        type: 'tool_use',
        id: `toolu_${turn}`,
        name: 'Check',
        input: { id: `c${turn}`, auto: true },
      },
    ];
  };
  server = await startReplayServer({ turns: Array.from({ length: 20 }, () => respond) });
  const { deps } = makePipeline([controlledTool('Check', true, makeCallLog())]);
  const events: AgentEvent[] = [];
  const result = await runAgent({
    prompt: 'make the build pass',
    model: 'claude-sonnet-5-5',
    systemPrompt: 'you are a test',
    modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
    pipeline: deps,
    permissionMode: 'default',
    cwd: '/repo',
    retry: false,
    events: (event) => events.push(event),
    contextManagement,
    ...(sessionHooks && { sessionHooks }),
  });
  return { result, events, requests: server.requests };
}

const summaryOk: ReplayTurnInput = [{ type: 'text', text: 'Checked steps so far; all fine.' }];

const sentMessages = (request: RecordedRequest | undefined) =>
  (request?.body as { messages: unknown[] }).messages;

describe('runAgent', () => {
  describe('when the conversation nears the context window', () => {
    it('compacts before the request and goes on with the task and the summary', async () => {
      const { result, events, requests } = await run({ contextWindow: 600, keepRecentTurns: 1 }, [
        { type: 'text', text: 'Checked steps so far; all fine.' },
      ]);
      expect(result.subtype).toBe('success');
      expect(events.filter((event) => event.type === 'compact-boundary').length).toBeGreaterThan(0);
      const last = requests.at(-1);
      expect(JSON.stringify(sentMessages(last)[0])).toContain('Checked steps so far; all fine.');
      expect(sentMessages(last).length).toBeLessThan(13);
    });

    it('asks PreCompact hooks first; one that blocks keeps the conversation whole', async () => {
      const project = makeHookProject();
      try {
        const allowing = project.runner(on('PreCompact', ['(cat; echo) >> fired.jsonl']));
        const allowed = await run(
          { contextWindow: 600, keepRecentTurns: 1 },
          summaryOk,
          allowing.hooks,
        );
        const fired = project.read('fired.jsonl').trim().split('\n');
        expect(fired.length).toBe(
          allowed.events.filter((event) => event.type === 'compact-boundary').length,
        );
        expect(JSON.parse(fired[0]!)).toMatchObject({
          hook_event_name: 'PreCompact',
          trigger: 'auto',
        });
        expect(allowed.events.filter((event) => event.type === 'hook-run')).not.toHaveLength(0);

        const blocking = project.runner(on('PreCompact', ['echo "keep it all" >&2; exit 2']));
        const blocked = await run(
          { contextWindow: 600, keepRecentTurns: 1 },
          summaryOk,
          blocking.hooks,
        );
        expect(blocked.result.subtype).toBe('success');
        expect(blocked.events.filter((event) => event.type === 'compact-boundary')).toEqual([]);
        // No summary was asked for, and the last request carries every turn.
        expect(blocked.requests.every((request) => 'tools' in (request.body as object))).toBe(true);
        expect(sentMessages(blocked.requests.at(-1)).length).toBe(13);
        expect(blocking.records.length).toBeGreaterThan(0);
        expect(blocking.records[0]?.decision).toBe('block');
      } finally {
        project.cleanup();
      }
    });

    it('ends the run with an error when the model gives no summary', async () => {
      const { result } = await run({ contextWindow: 600, keepRecentTurns: 1 }, [
        { type: 'tool_use', id: 'toolu_x', name: 'Check', input: {} },
      ]);
      expect(result.subtype).toBe('error_during_execution');
      expect(result.errors).toEqual([
        'compacting the conversation failed: the model answered with no summary',
      ]);
    });
  });

  describe('when context management is off', () => {
    it('sends the whole conversation every turn', async () => {
      const { result, events, requests } = await run(false, [{ type: 'text', text: 'unused' }]);
      expect(result.subtype).toBe('success');
      expect(events.some((event) => event.type === 'compact-boundary')).toBe(false);
      expect(requests.map((request) => sentMessages(request).length)).toEqual([
        1, 3, 5, 7, 9, 11, 13,
      ]);
    });
  });
});
