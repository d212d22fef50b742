import { afterEach, describe, expect, it } from 'vitest';
import { createPause, FALLBACK_TEXT, startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../testkit/replay-server.js';

const KEY = 'sk-ant-replay';
let server: ReplayServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: ReplayServerOptions = {}): Promise<ReplayServer> {
  server = await startReplayServer(options);
  return server;
}

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/v1/messages',
): Promise<Sent> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const streamingBody = {
  model: 'claude-test',
  max_tokens: 100,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};

/** Parses `event: x\ndata: {...}\n\n` frames strictly, so a framing mistake fails the test. */
function parseSse(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const match = /^event: ([a-z_]+)\ndata: (.*)$/.exec(frame);
      if (match === null) throw new Error(`not an SSE frame: ${JSON.stringify(frame)}`);
      const data = JSON.parse(match[2] ?? '') as Record<string, unknown>;
      expect(data['type']).toBe(match[1]);
      return { event: match[1] ?? '', data };
    });
}

describe('startReplayServer', () => {
  it('binds to 127.0.0.1 on a free port', async () => {
    const first = await start();
    const second = await startReplayServer();
    try {
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(second.url).not.toBe(first.url);
    } finally {
      await second.close();
    }
  });

  describe('when a turn is streamed', () => {
    it('speaks the Messages API SSE wire format with content type and request-id', async () => {
      const { url } = await start({
        turns: [[{ type: 'text', text: 'Hello from the script' }]],
        textChunkSize: 5,
      });

      const response = await post(url, streamingBody);

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(response.headers.get('request-id')).toBe('req_replay_0');
      const events = parseSse(response.text);
      expect(events.map((event) => event.event)).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        ...Array<string>(5).fill('content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(events[0]?.data).toMatchObject({
        message: { id: 'msg_replay_0', type: 'message', role: 'assistant', model: 'claude-test' },
      });
      expect(events.at(-2)?.data).toMatchObject({
        delta: { stop_reason: 'end_turn', stop_sequence: null },
      });
    });

    it('splits tool input JSON into chunks of the configured size and stops with tool_use', async () => {
      const input = { file_path: '/repo/src/index.ts', limit: 40 };
      const { url } = await start({
        turns: [[{ type: 'tool_use', id: 'toolu_1', name: 'Read', input }]],
        jsonChunkSize: 7,
      });

      const events = parseSse((await post(url, streamingBody)).text);

      const chunks = events
        .filter((event) => event.event === 'content_block_delta')
        .map((event) => (event.data['delta'] as { partial_json: string }).partial_json);
      expect(chunks.every((chunk) => chunk.length <= 7)).toBe(true);
      expect(chunks.join('')).toBe(JSON.stringify(input));
      expect(events.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
    });

    it('reports the scripted usage in message_start and message_delta', async () => {
      const { url } = await start({
        turns: [
          {
            content: [{ type: 'text', text: 'ok' }],
            usage: { input_tokens: 11, output_tokens: 22, cache_read_input_tokens: 33 },
          },
        ],
      });

      const events = parseSse((await post(url, streamingBody)).text);

      expect(events[0]?.data).toMatchObject({
        message: { usage: { input_tokens: 11, cache_read_input_tokens: 33 } },
      });
      expect(events.at(-2)?.data).toMatchObject({ usage: { output_tokens: 22 } });
    });

    it('waits streamMs spread evenly over the gaps between events, plus delayMs', async () => {
      const waits: number[] = [];
      const { url } = await start({
        turns: [{ content: [{ type: 'text', text: 'abc' }], streamMs: 600, delayMs: 5 }],
        textChunkSize: 1,
        sleep: async (milliseconds) => {
          waits.push(milliseconds);
        },
      });

      const events = parseSse((await post(url, streamingBody)).text);

      expect(waits).toHaveLength(events.length - 1);
      expect(waits.every((wait) => Math.abs(wait - (5 + 600 / (events.length - 1))) < 1e-9)).toBe(
        true,
      );
    });

    it('holds the stream at the pause point until released', async () => {
      const pause = createPause();
      const { url, requests } = await start({
        turns: [
          {
            content: [
              { type: 'text', text: 'one' },
              { type: 'text', text: 'two' },
            ],
            pauseAfter: { blockIndex: 0, event: 'content_block_stop', handle: pause },
          },
        ],
      });

      const response = post(url, streamingBody);
      await pause.reached;

      expect(pause.isReached).toBe(true);
      expect(requests[0]?.sentEvents.at(-1)).toBe('content_block_stop');
      expect(requests[0]?.sentEvents).not.toContain('message_stop');
      pause.release();
      expect(parseSse((await response).text).at(-1)?.event).toBe('message_stop');
    });

    it('answers a request without stream: true with one JSON message', async () => {
      const { url } = await start({
        turns: [[{ type: 'tool_use', id: 'toolu_9', name: 'Glob', input: { pattern: '*.ts' } }]],
      });

      const response = await post(url, { ...streamingBody, stream: false });

      expect(response.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(response.text)).toMatchObject({
        type: 'message',
        content: [{ type: 'tool_use', id: 'toolu_9', name: 'Glob', input: { pattern: '*.ts' } }],
        stop_reason: 'tool_use',
      });
    });
  });

  describe('when the script is dynamic or runs out', () => {
    it('passes the recorded request to a function turn', async () => {
      const { url } = await start({
        turns: [
          (request) => {
            const body = request.body as { messages: Array<{ content: string }> };
            return [{ type: 'text', text: `echo: ${body.messages[0]?.content ?? ''}` }];
          },
        ],
        textChunkSize: 100,
      });

      const events = parseSse((await post(url, streamingBody)).text);

      expect(events[3]?.data).toMatchObject({ delta: { type: 'text_delta', text: 'echo: hi' } });
    });

    it('replies with a fallback end_turn text once the turns are used up', async () => {
      const { url } = await start({ turns: [[{ type: 'text', text: 'only turn' }]] });
      await post(url, streamingBody);

      const events = parseSse((await post(url, streamingBody)).text);

      const text = events
        .filter((event) => event.event === 'content_block_delta')
        .map((event) => (event.data['delta'] as { text: string }).text)
        .join('');
      expect(text).toBe(FALLBACK_TEXT);
      expect(events.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'end_turn' } });
    });
  });

  describe('when requests arrive', () => {
    it('records method, path, parsed body and headers without the credentials', async () => {
      const { url, requests } = await start();

      await post(url, streamingBody, { authorization: `Bearer ${KEY}`, 'anthropic-version': 'x' });

      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        index: 0,
        method: 'POST',
        path: '/v1/messages',
        body: streamingBody,
        status: 200,
      });
      expect(requests[0]?.headers['anthropic-version']).toBe('x');
      expect(requests[0]?.headers).not.toHaveProperty('x-api-key');
      expect(requests[0]?.headers).not.toHaveProperty('authorization');
    });

    it.each([
      ['x-api-key', { 'x-api-key': KEY }],
      ['a bearer token', { 'x-api-key': '', authorization: `Bearer ${KEY}` }],
    ])('accepts the expected key sent as %s', async (_how, headers) => {
      const { url } = await start({ apiKey: KEY });

      expect((await post(url, streamingBody, headers)).status).toBe(200);
    });

    it('rejects a wrong key with 401 and an authentication_error body', async () => {
      const { url, requests } = await start({ apiKey: KEY });

      const response = await post(url, streamingBody, { 'x-api-key': 'sk-ant-other' });

      expect(response.status).toBe(401);
      expect(JSON.parse(response.text)).toEqual({
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      });
      expect(requests[0]?.status).toBe(401);
    });

    it('answers count_tokens with 404', async () => {
      const { url } = await start();

      const response = await post(url, streamingBody, {}, '/v1/messages/count_tokens');

      expect(response.status).toBe(404);
      expect(JSON.parse(response.text)).toMatchObject({ error: { type: 'not_found_error' } });
    });

    it('rejects a body that is not a JSON object with 400', async () => {
      const { url } = await start();

      const response = await post(url, 'not json');

      expect(response.status).toBe(400);
      expect(JSON.parse(response.text)).toMatchObject({ error: { type: 'invalid_request_error' } });
    });
  });

  describe('when a fault is scripted', () => {
    it('answers with the error status, Anthropic error body and retry-after header', async () => {
      const { url } = await start({
        faults: {
          0: { kind: 'http-error', status: 429, errorType: 'rate_limit_error', retryAfter: '3' },
        },
      });

      const response = await post(url, streamingBody);

      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('3');
      expect(JSON.parse(response.text)).toEqual({
        type: 'error',
        error: { type: 'rate_limit_error', message: 'rate_limit_error' },
      });
    });

    it('leaves the turn of a faulted request for the next request', async () => {
      const { url } = await start({
        turns: [[{ type: 'text', text: 'first' }], [{ type: 'text', text: 'second' }]],
        faults: {
          0: { kind: 'http-error', status: 529, errorType: 'overloaded_error' },
          1: { kind: 'drop', afterEvents: 2, how: 'end' },
        },
        textChunkSize: 100,
      });

      await post(url, streamingBody);
      await post(url, streamingBody);
      const events = parseSse((await post(url, streamingBody)).text);

      expect(events[3]?.data).toMatchObject({ delta: { text: 'first' } });
    });

    it('ends the stream after the given number of events without message_stop', async () => {
      const { url, requests } = await start({
        turns: [[{ type: 'text', text: 'cut short' }]],
        faults: { 0: { kind: 'drop', afterEvents: 3, how: 'end' } },
      });

      const events = parseSse((await post(url, streamingBody)).text);

      expect(events.map((event) => event.event)).toEqual([
        'message_start',
        'ping',
        'content_block_start',
      ]);
      expect(requests[0]?.sentEvents).toHaveLength(3);
    });

    it('resets the connection mid-stream', async () => {
      const { url } = await start({
        turns: [[{ type: 'text', text: 'cut short' }]],
        faults: { 0: { kind: 'drop', afterEvents: 2 } },
      });

      await expect(post(url, streamingBody)).rejects.toThrow();
    });

    it('sends an error event inside the stream', async () => {
      const { url } = await start({
        turns: [[{ type: 'text', text: 'partial' }]],
        faults: { 0: { kind: 'error-event', afterEvents: 1, errorType: 'overloaded_error' } },
      });

      const events = parseSse((await post(url, streamingBody)).text);

      expect(events.map((event) => event.event)).toEqual(['message_start', 'error']);
      expect(events[1]?.data).toEqual({
        type: 'error',
        error: { type: 'overloaded_error', message: 'overloaded_error' },
      });
    });
  });

  describe('close', () => {
    it('ends a stream held at a pause so the server can stop', async () => {
      const pause = createPause();
      const { url } = await start({
        turns: [
          {
            content: [{ type: 'text', text: 'held' }],
            pauseAfter: { event: 'message_start', handle: pause },
          },
        ],
      });
      const response = post(url, streamingBody);
      await pause.reached;

      await server?.close();
      server = undefined;

      await expect(response).rejects.toThrow();
    });
  });
});
