import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import { ModelError } from '../../src/model/model-client.js';
import type { ModelClient } from '../../src/model/model-client.js';
import { createModelQuery } from '../../src/model/model-query.js';
import { createPause, startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../testkit/replay-server.js';
import type { Usage } from '../../src/model/types.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(options: ReplayServerOptions): Promise<ModelClient> {
  server = await startReplayServer({ apiKey: 'k', ...options });
  return createAnthropicClient({ apiKey: 'k', baseURL: server.url });
}

const QUERY = { system: 'Answer briefly.', prompt: 'What is 2+2?', maxTokens: 64 };

describe('createModelQuery', () => {
  it('asks the model once, without tools or history, and returns the text blocks joined', async () => {
    const client = await clientFor({
      turns: [
        [
          { type: 'thinking', thinking: 'adding', signature: 'sig' },
          { type: 'text', text: 'It is ' },
          { type: 'text', text: '4.' },
        ],
      ],
    });
    const usages: [string, Usage][] = [];
    const query = createModelQuery({
      client,
      model: 'claude-haiku-5-5',
      onUsage: (model, usage) => usages.push([model, usage]),
    });

    expect(await query(QUERY)).toBe('It is 4.');
    const body = server?.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'claude-haiku-5-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'What is 2+2?' }],
    });
    expect(JSON.stringify(body['system'])).toContain('Answer briefly.');
    expect(body['tools']).toBeUndefined();
    expect(usages).toHaveLength(1);
    expect(usages[0]?.[0]).toBe('claude-haiku-5-5');
    expect(usages[0]?.[1].output_tokens).toBeGreaterThan(0);
  });

  it('returns an empty answer when the model gives no text', async () => {
    const client = await clientFor({ turns: [[{ type: 'redacted_thinking', data: 'x' }]] });

    expect(await createModelQuery({ client, model: 'm' })(QUERY)).toBe('');
  });

  describe('when the model cannot answer', () => {
    it('throws the ModelError of the client', async () => {
      const client = await clientFor({
        faults: { 0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' } },
      });

      await expect(createModelQuery({ client, model: 'm' })(QUERY)).rejects.toBeInstanceOf(
        ModelError,
      );
    });

    it('stops when its signal aborts', async () => {
      const pause = createPause();
      const client = await clientFor({
        turns: [
          {
            content: [{ type: 'text', text: 'slow' }],
            pauseAfter: { event: 'message_start', handle: pause },
          },
        ],
      });
      const controller = new AbortController();

      const pending = createModelQuery({ client, model: 'm' })({
        ...QUERY,
        signal: controller.signal,
      });
      await pause.reached;
      controller.abort(new Error('stopped'));

      await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
      pause.release();
    });

    it('throws when a client ends its stream without a complete message', async () => {
      const client: ModelClient = {
        async *stream() {
          yield { type: 'message-start', messageId: 'm', model: 'm', usage: {} as Usage };
        },
      };

      await expect(createModelQuery({ client, model: 'm' })(QUERY)).rejects.toThrow(
        'the model answered without a complete message',
      );
    });
  });
});
