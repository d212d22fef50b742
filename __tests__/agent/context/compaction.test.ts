import { afterEach, describe, expect, it } from 'vitest';
import {
  SUMMARY_SYSTEM_PROMPT,
  chooseKeptFrom,
  summarizeConversation,
} from '../../../src/agent/context/compaction.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import { ModelError } from '../../../src/model/model-client.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../../testkit/replay-server.js';
import { big, call, conversation, read } from './conversation.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(options: ReplayServerOptions) {
  server = await startReplayServer(options);
  return createAnthropicClient({ apiKey: 'k', baseURL: server.url });
}

const glob = (index: number) => [call(`g${index}`, 'Glob', { pattern: '*' }, 'a.ts')];

describe('chooseKeptFrom', () => {
  // Message indices: 0 task, then turn n at 2n+1 (assistant) and 2n+2 (its results).
  const five = conversation(glob(0), glob(1), glob(2), glob(3), glob(4));

  it('keeps the last turns, starting at an assistant message', () => {
    expect(chooseKeptFrom(five, { keepTurns: 2, budgetChars: 1e6, after: 1 })).toBe(7);
  });

  it('keeps fewer turns when they would exceed the budget, but always the last one', () => {
    const heavy = conversation(glob(0), [read('r1', '/a', big('a'))], glob(2));
    expect(chooseKeptFrom(heavy, { keepTurns: 3, budgetChars: 1_000, after: 1 })).toBe(5);
    expect(chooseKeptFrom(heavy, { keepTurns: 3, budgetChars: 10, after: 1 })).toBe(5);
  });

  it('finds nothing to summarise when every turn after the last compaction is kept', () => {
    expect(chooseKeptFrom(five, { keepTurns: 5, budgetChars: 1e6, after: 1 })).toBe(3);
    expect(chooseKeptFrom(five, { keepTurns: 2, budgetChars: 1e6, after: 7 })).toBe(9);
    expect(chooseKeptFrom(five, { keepTurns: 2, budgetChars: 1e6, after: 9 })).toBeUndefined();
    expect(
      chooseKeptFrom(conversation(glob(0)), { keepTurns: 1, budgetChars: 1e6, after: 1 }),
    ).toBeUndefined();
  });
});

describe('summarizeConversation', () => {
  it('asks the same model, without tools, to summarise a transcript of the older part', async () => {
    const client = await clientFor({
      turns: [[{ type: 'text', text: '  Read a.ts; fixed f().  ' }]],
    });
    const messages = conversation([read('r1', '/repo/a.ts', '1\tconst f = 1;')]);

    const summary = await summarizeConversation({
      client,
      model: 'claude-sonnet-5-5',
      messages,
      maxTokens: 4096,
    });

    expect(summary).toBe('Read a.ts; fixed f().');
    const body = server?.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'claude-sonnet-5-5', max_tokens: 4096 });
    expect(body).not.toHaveProperty('tools');
    expect(JSON.stringify(body['system'])).toContain(SUMMARY_SYSTEM_PROMPT);
    const prompt = JSON.stringify(body['messages']);
    expect(prompt).toContain('USER: fix the build');
    expect(prompt).toContain('ASSISTANT called Read (r1)');
    expect(prompt).toContain('TOOL result for r1: 1\\tconst f = 1;');
    expect(prompt).toContain('the plan, which steps are done and which remain');
  });

  describe('when the model gives no summary', () => {
    it('fails with a message saying compaction failed', async () => {
      const client = await clientFor({
        turns: [[{ type: 'tool_use', id: 't', name: 'Read', input: {} }]],
      });
      await expect(
        summarizeConversation({
          client,
          model: 'm',
          messages: conversation(glob(0)),
          maxTokens: 10,
        }),
      ).rejects.toThrow('compacting the conversation failed: the model answered with no summary');
    });
  });

  describe('when the model request fails', () => {
    it('passes the model error on as it is', async () => {
      const client = await clientFor({
        faults: { 0: { kind: 'http-error', status: 400, errorType: 'invalid_request_error' } },
      });
      const error: unknown = await summarizeConversation({
        client,
        model: 'm',
        messages: conversation(glob(0)),
        maxTokens: 10,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).status).toBe(400);
    });
  });

  describe('when the stream ends without a message', () => {
    it('fails with a message saying compaction failed', async () => {
      const client = { stream: async function* () {} };
      await expect(
        summarizeConversation({ client, model: 'm', messages: [], maxTokens: 10 }),
      ).rejects.toThrow('the summary stream ended without a message');
    });
  });
});
