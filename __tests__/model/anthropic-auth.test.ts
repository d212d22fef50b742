/**
 * Anthropic's API with each credential Claude Code takes (an API key, a Claude Code OAuth token,
 * a gateway's bearer token) and ANTHROPIC_CUSTOM_HEADERS, through the real SDK against the
 * loopback Messages API, which checks the credential and records the headers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configureModelProvider } from '../../src/model/model-provider.js';
import type { ModelRequest, ModelStreamEvent } from '../../src/model/model-client.js';
import { ModelError } from '../../src/model/model-client.js';
import { envLookup } from '../../src/model/provider-env.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer, ReplayServerOptions } from '../../testkit/replay-server.js';

let server: ReplayServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REQUEST: ModelRequest = {
  model: 'claude-sonnet-5-5',
  system: 'You are a careful CI agent.',
  messages: [{ role: 'user', content: 'Run the tests.' }],
  tools: [],
  maxTokens: 256,
};

async function run(
  env: Record<string, string>,
  options: ReplayServerOptions,
): Promise<{ events: ModelStreamEvent[]; error?: ModelError; server: ReplayServer }> {
  server = await startReplayServer({ turns: [[{ type: 'text', text: 'ok' }]], ...options });
  const provider = configureModelProvider({
    lookup: envLookup({ ...env, ANTHROPIC_BASE_URL: server.url }),
    cwd: process.cwd(),
  });
  const client = await provider.client();
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of client.stream(REQUEST)) events.push(event);
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return { events, error, server };
  }
  return { events, server };
}

describe("Anthropic's API credentials", () => {
  it('sends a Claude Code OAuth token as the bearer, with the OAuth beta header', async () => {
    const token = 'sk-ant-oat01-loopback-token';
    const { events, server } = await run({ CLAUDE_CODE_OAUTH_TOKEN: token }, { apiKey: token });
    expect(events.at(-1)?.type).toBe('message-complete');
    expect(server.requests[0]?.headers['anthropic-beta']).toBe('oauth-2025-04-20');
  });

  it('adds the OAuth beta to the betas the custom headers ask for', async () => {
    const token = 'sk-ant-oat01-loopback-token';
    const { server } = await run(
      { CLAUDE_CODE_OAUTH_TOKEN: token, ANTHROPIC_CUSTOM_HEADERS: 'anthropic-beta: other-2025' },
      { apiKey: token },
    );
    expect(server.requests[0]?.headers['anthropic-beta']).toBe('other-2025,oauth-2025-04-20');
  });

  it("sends a gateway's token as the bearer, without the OAuth beta, with the custom headers", async () => {
    const { events, server } = await run(
      {
        ANTHROPIC_AUTH_TOKEN: 'gateway-token-1',
        ANTHROPIC_API_KEY: 'sk-ant-unused',
        ANTHROPIC_CUSTOM_HEADERS: 'X-Gateway-Team: ci\nX-Trace: on',
      },
      { apiKey: 'gateway-token-1' },
    );
    expect(events.at(-1)?.type).toBe('message-complete');
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-gateway-team']).toBe('ci');
    expect(headers['x-trace']).toBe('on');
    expect(headers['anthropic-beta']).toBeUndefined();
  });

  it('sends the API key without the OAuth beta', async () => {
    const { events, server } = await run({ ANTHROPIC_API_KEY: 'sk-ant-k' }, { apiKey: 'sk-ant-k' });
    expect(events.at(-1)?.type).toBe('message-complete');
    expect(server.requests[0]?.headers['anthropic-beta']).toBeUndefined();
  });

  it('names the OAuth token when the API refuses it, and does not retry', async () => {
    const { error } = await run({ CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-stale' }, { apiKey: 'x' });
    expect(error).toMatchObject({ kind: 'authentication', retryable: false, status: 401 });
    expect(error?.message).toBe(
      'The Anthropic API rejected the Claude Code OAuth token (401 authentication_error: invalid x-api-key). Check that CLAUDE_CODE_OAUTH_TOKEN holds a current token (`claude setup-token` makes one that lasts a year).',
    );
  });

  it("names the gateway's token when the gateway refuses it", async () => {
    const { error } = await run({ ANTHROPIC_AUTH_TOKEN: 'wrong' }, { apiKey: 'right' });
    expect(error?.message).toMatch(
      /^The Anthropic API rejected the token \(401 .*\)\. Check that ANTHROPIC_AUTH_TOKEN holds a token the gateway at ANTHROPIC_BASE_URL accepts\.$/,
    );
  });
});
