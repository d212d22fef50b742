import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { ModelRequest } from '../../src/model/model-client.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import {
  DEFAULT_WEB_SEARCH_MAX_USES,
  webSearchToolSpec,
  withServerTools,
} from '../../src/model/server-tools.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('webSearchToolSpec', () => {
  it(`is web_search_20250305 with ${DEFAULT_WEB_SEARCH_MAX_USES} searches per request by default`, () => {
    expect(webSearchToolSpec()).toEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: DEFAULT_WEB_SEARCH_MAX_USES,
    });
  });

  it('passes the domain lists and the search count on', () => {
    expect(webSearchToolSpec({ maxUses: 3, allowedDomains: ['nodejs.org'] })).toEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: 3,
      allowed_domains: ['nodejs.org'],
    });
    expect(webSearchToolSpec({ blockedDomains: ['pastebin.com'] })).toMatchObject({
      blocked_domains: ['pastebin.com'],
    });
  });

  describe('when the options are ones the API refuses', () => {
    it('throws for both domain lists at once', () => {
      expect(() =>
        webSearchToolSpec({ allowedDomains: ['a.dev'], blockedDomains: ['b.dev'] }),
      ).toThrow('web search has both allowed_domains and blocked_domains');
    });

    it.each([0, -1, 2.5])('throws for max_uses %s', (maxUses) => {
      expect(() => webSearchToolSpec({ maxUses })).toThrow(
        `web search max_uses is ${maxUses}; expected a whole number of at least 1`,
      );
    });
  });
});

describe('withServerTools', () => {
  const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
    model: 'claude-sonnet-5-5',
    system: '',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ name: 'Read', description: 'reads', input_schema: { type: 'object' } }],
    maxTokens: 50,
    ...overrides,
  });

  async function sentTools(client: ReturnType<typeof createAnthropicClient>, overrides = {}) {
    for await (const _event of client.stream(request(overrides))) {
      // drain
    }
    const body = server?.requests.at(-1)?.body as { tools?: Record<string, unknown>[] };
    return (body.tools ?? []).map(({ cache_control: _ignored, ...tool }) => tool);
  }

  it('sends the server tools after the client tools in every request', async () => {
    server = await startReplayServer({ apiKey: 'k' });
    const client = withServerTools(createAnthropicClient({ apiKey: 'k', baseURL: server.url }), [
      webSearchToolSpec(),
    ]);

    const first = await sentTools(client);
    const second = await sentTools(client, { tools: [] });

    expect(first).toEqual([
      { name: 'Read', description: 'reads', input_schema: { type: 'object' } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 8 },
    ]);
    expect(second).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 8 }]);
  });

  it('returns the client itself when there is nothing to add', async () => {
    server = await startReplayServer({ apiKey: 'k' });
    const client = createAnthropicClient({ apiKey: 'k', baseURL: server.url });

    expect(withServerTools(client, [])).toBe(client);
    expect(await sentTools(client)).toEqual([
      { name: 'Read', description: 'reads', input_schema: { type: 'object' } },
    ]);
  });
});
