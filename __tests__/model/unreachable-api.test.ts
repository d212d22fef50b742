/**
 * A model API that cannot be reached, on real loopback sockets: a closed port (nothing listens:
 * ECONNREFUSED) gives up after a few quick retries, a server that resets every connection and
 * an overloaded one get the full ten. Each retry says what failed and where. The backoff runs on
 * a clock the test drives, so nothing sleeps.
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicBaseUrlFromEnv,
  anthropicOptionsFromEnv,
  createAnthropicClient,
} from '../../src/model/anthropic-client.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import { ModelError } from '../../src/model/model-client.js';
import { DEFAULT_RETRY_POLICY, retryLimit, retryLine } from '../../src/model/retry-policy.js';
import { withRetries } from '../../src/model/retrying-client.js';
import type { RetryNotice } from '../../src/model/retrying-client.js';
import { ManualClock } from '../helpers/manual-clock.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A loopback port that was just free: bound, then closed, so nothing listens there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts each connection and resets it at once (a TCP RST). */
async function resettingServer(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((socket: Socket) => {
    connections++;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as { port: number }).port, connections: () => connections };
}

async function attempt(baseURL: string) {
  const clock = new ManualClock();
  const notices: RetryNotice[] = [];
  // The default policy: what the CLI and the action run with.
  const client = withRetries(createAnthropicClient({ apiKey: 'sk-test', baseURL }), {
    clock,
    onRetry: (notice) => notices.push(notice),
  });
  const request = {
    model: 'claude-sonnet-5-5',
    system: '',
    messages: [{ role: 'user' as const, content: 'hi' }],
    tools: [],
    maxTokens: 100,
  };
  try {
    for await (const event of client.stream(request)) void event;
  } catch (error) {
    return { clock, notices, error: error as ModelError };
  }
  throw new Error('expected the request to fail');
}

const lineOf = (notice: RetryNotice) =>
  retryLine({
    ...notice,
    message: notice.error.message,
    ...(notice.error.detail === undefined ? {} : { cause: notice.error.detail }),
    ...(notice.error.url === undefined ? {} : { url: notice.error.url }),
  });

describe('an unreachable model API', () => {
  it('gives up on a refused connection after 3 quick retries, naming the cause and the URL', async () => {
    const port = await closedPort();
    const { clock, notices, error } = await attempt(`http://127.0.0.1:${port}`);

    const url = `http://127.0.0.1:${port}/v1/messages`;
    expect(notices.map((notice) => notice.maxRetries)).toEqual([3, 3, 3]);
    expect(notices.map(lineOf)).toEqual([
      `model API request failed (connect ECONNREFUSED 127.0.0.1:${port}) at ${url}; retry 1 of 3 in 0.4 s`,
      `model API request failed (connect ECONNREFUSED 127.0.0.1:${port}) at ${url}; retry 2 of 3 in 0.9 s`,
      `model API request failed (connect ECONNREFUSED 127.0.0.1:${port}) at ${url}; retry 3 of 3 in 1.8 s`,
    ]);
    // Seconds in all, where ten retries waited about 140.
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(5_000);
    expect(error).toMatchObject({
      kind: 'connection',
      retryable: false,
      networkCode: 'ECONNREFUSED',
    });
    expect(error.message).toBe(
      `Could not reach the Anthropic API at ${url} (connect ECONNREFUSED 127.0.0.1:${port}). Check ANTHROPIC_BASE_URL and that the runner can reach that host. Gave up after 3 retries.`,
    );
  });

  it('retries a connection the server resets the full 10 times', async () => {
    const server = await resettingServer();
    const { notices, error } = await attempt(`http://127.0.0.1:${server.port}`);

    expect(notices).toHaveLength(10);
    expect(notices.every((notice) => notice.maxRetries === 10)).toBe(true);
    expect(server.connections()).toBe(11);
    expect(error.networkCode).toBe('ECONNRESET');
    expect(lineOf(notices[0]!)).toMatch(
      new RegExp(
        `^model API request failed \\(.*ECONNRESET.*\\) at http://127\\.0\\.0\\.1:${server.port}/v1/messages; retry 1 of 10 in 0\\.4 s$`,
      ),
    );
    expect(error.message).toContain('Gave up after 10 retries.');
  });

  it('retries an overloaded API the full 10 times, each line with the status and the URL', async () => {
    const overloaded = { kind: 'http-error', status: 529, errorType: 'overloaded_error' } as const;
    const replay: ReplayServer = await startReplayServer({
      faults: Object.fromEntries(Array.from({ length: 11 }, (_, index) => [index, overloaded])),
    });
    closers.push(() => replay.close());
    const { notices } = await attempt(replay.url);

    expect(notices).toHaveLength(10);
    expect(lineOf(notices[9]!)).toMatch(
      /^model API request failed \(529 overloaded_error: .*\) at http:\/\/127\.0\.0\.1:\d+\/v1\/messages; retry 10 of 10 in 28 s$/,
    );
  });

  it('does not retry a port fetch refuses to connect to, and says to change ANTHROPIC_BASE_URL', async () => {
    const { notices, error } = await attempt('http://127.0.0.1:9');

    expect(notices).toEqual([]);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('http://127.0.0.1:9/v1/messages');
    expect(error.message).toContain('"bad port"');
    expect(error.message).toContain('ANTHROPIC_BASE_URL');
  });
});

describe('retryLimit', () => {
  const connection = (networkCode: string) =>
    new ModelError('x', { kind: 'connection', retryable: true, networkCode });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH'])(
    'gives a connection that cannot be made (%s) 3 retries',
    (code) => expect(retryLimit(connection(code), DEFAULT_RETRY_POLICY)).toBe(3),
  );

  it.each(['ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN'])('gives %s the full 10', (code) =>
    expect(retryLimit(connection(code), DEFAULT_RETRY_POLICY)).toBe(10),
  );

  it('never gives more than maxRetries', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 1 };
    expect(retryLimit(connection('ECONNREFUSED'), policy)).toBe(1);
  });
});

describe('ANTHROPIC_BASE_URL', () => {
  it.each(['api.anthropic.com', 'htps//api.anthropic.com', 'ftp://api.anthropic.com', 'http://'])(
    'refuses %j, naming the variable and the expected form',
    (value) => {
      expect(() => anthropicBaseUrlFromEnv({ ANTHROPIC_BASE_URL: value })).toThrow(
        `ANTHROPIC_BASE_URL: expected an http(s) URL such as https://api.anthropic.com, got ${JSON.stringify(value)}`,
      );
      expect(() =>
        anthropicOptionsFromEnv({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: value }),
      ).toThrow('ANTHROPIC_BASE_URL: expected an http(s) URL');
    },
  );

  it('takes an http(s) URL, with a path for a gateway, and treats an empty one as unset', () => {
    expect(anthropicBaseUrlFromEnv({ ANTHROPIC_BASE_URL: ' http://127.0.0.1:8080 ' })).toBe(
      'http://127.0.0.1:8080',
    );
    expect(anthropicBaseUrlFromEnv({ ANTHROPIC_BASE_URL: 'https://gw.example/anthropic' })).toBe(
      'https://gw.example/anthropic',
    );
    expect(anthropicBaseUrlFromEnv({ ANTHROPIC_BASE_URL: '' })).toBeUndefined();
    expect(anthropicBaseUrlFromEnv({})).toBeUndefined();
  });
});
