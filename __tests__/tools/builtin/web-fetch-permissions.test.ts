/**
 * WebFetch's domain rules and its public-address check through the real pipeline and session: a
 * refused host is never connected to — the loopback server counts the connections and requests
 * it receives.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSession } from '../../../src/agent/session.js';
import { executeSingleToolUse } from '../../../src/execution/pipeline.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import type { ReplayServer } from '../../../testkit/replay-server.js';
import type { Message, ToolResultBlock } from '../../../src/model/types.js';
import { parseRule } from '../../../src/permissions/rules.js';
import type { PermissionMode } from '../../../src/permissions/types.js';
import { createWebFetchTool, webFetchTool } from '../../../src/tools/builtin/web-fetch.js';
import type { Tool } from '../../../src/tools/tool.js';
import { makePipeline } from '../../helpers/pipeline-harness.js';
import { makeWorkspace } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { page, redirect, serverTrust, startHttpsServer } from './web/https-server.js';
import type { HttpsServer } from './web/https-server.js';

let server: HttpsServer;
beforeEach(async () => {
  server = await startHttpsServer({ '/doc': page('<p>the page</p>') });
});
afterEach(() => server.close());

async function call(
  url: string,
  policy: { mode?: PermissionMode; allow?: string[]; deny?: string[]; ask?: string[] },
  tool: Tool = createWebFetchTool(serverTrust()),
) {
  const parse = (texts: string[] = []) => texts.map((text) => parseRule(text, 'ci-agent.yml'));
  const { deps } = makePipeline([tool], {
    policy: {
      mode: policy.mode ?? 'default',
      allow: parse(policy.allow),
      deny: parse(policy.deny),
      ask: parse(policy.ask),
    },
  });
  const block = {
    type: 'tool_use' as const,
    id: 'toolu_web',
    name: 'WebFetch',
    input: { url, prompt: 'p' },
  };
  return executeSingleToolUse(block, deps, new AbortController().signal);
}

function text(result: ToolResultBlock): string {
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

describe('WebFetch domain rules in the pipeline', () => {
  describe('when a rule or the mode refuses the host', () => {
    it.each([
      [
        'a deny rule for the host, even in bypassPermissions',
        { mode: 'bypassPermissions', deny: ['WebFetch(domain:127.0.0.1)'] },
      ],
      ['a deny rule for every host', { mode: 'bypassPermissions', deny: ['WebFetch(domain:*)'] }],
      ['a bare WebFetch deny rule', { mode: 'bypassPermissions', deny: ['WebFetch'] }],
      [
        'a deny rule beside an allow rule for the same host',
        { allow: ['WebFetch(domain:127.0.0.1)'], deny: ['WebFetch(domain:127.0.0.1)'] },
      ],
      ['no rule at all in the default mode', {}],
      ['an allow rule for another host only', { allow: ['WebFetch(domain:docs.example.com)'] }],
      [
        'an ask rule nobody can answer',
        { mode: 'bypassPermissions', ask: ['WebFetch(domain:127.0.0.1)'] },
      ],
    ] as const)('denies with %s and never connects', async (_name, policy) => {
      const outcome = await call(`${server.url}/doc`, policy as Parameters<typeof call>[1]);

      expect(outcome.stage).toBe('permission');
      expect(outcome.result.is_error).toBe(true);
      expect(outcome.denial?.tool_name).toBe('WebFetch');
      expect(server.requests).toEqual([]);
    });

    it('names the rule that refused it', async () => {
      const outcome = await call(`${server.url}/doc`, { deny: ['WebFetch(domain:127.0.0.1)'] });

      expect(text(outcome.result)).toContain("'WebFetch(domain:127.0.0.1)' (ci-agent.yml)");
      expect(outcome.decision?.source).toBe('deny-rule');
    });

    it('matches the host however the URL spells it (http, upper case) before connecting', async () => {
      const outcome = await call(`http://127.0.0.1:${server.port}/doc`, {
        mode: 'bypassPermissions',
        deny: ['WebFetch(domain:127.0.0.1)'],
      });

      expect(outcome.stage).toBe('permission');
      expect(server.requests).toEqual([]);
    });

    it('denies a URL that does not parse under any domain deny rule, before validating it', async () => {
      const outcome = await call('not a url', {
        mode: 'bypassPermissions',
        deny: ['WebFetch(domain:evil.example)'],
      });

      expect(outcome.stage).toBe('permission');
    });
  });

  describe('when a rule allows the host', () => {
    it('fetches the page in the default mode', async () => {
      const outcome = await call(`${server.url}/doc`, { allow: ['WebFetch(domain:127.0.0.1)'] });

      expect(outcome.stage).toBe('completed');
      expect(text(outcome.result)).toBe('the page');
      expect(server.requests).toHaveLength(1);
    });

    it('fetches the page in bypassPermissions without a rule', async () => {
      const outcome = await call(`${server.url}/doc`, { mode: 'bypassPermissions' });

      expect(text(outcome.result)).toBe('the page');
    });
  });
});

describe('WebFetch to an address that is not public, in the pipeline', () => {
  const allowAttacker = { allow: ['WebFetch(domain:attacker.test)'] };

  it('refuses with an error result naming the host, the address and why, although a rule allows the host', async () => {
    const tool = createWebFetchTool({
      ...serverTrust(),
      testAddresses: [],
      resolve: async () => ['169.254.169.254'],
    });

    const outcome = await call(`https://attacker.test:${server.port}/doc`, allowAttacker, tool);

    expect(outcome.stage).toBe('call');
    expect(outcome.result.is_error).toBe(true);
    expect(text(outcome.result)).toBe(
      "Error: WebFetch refused to connect: attacker.test resolves to 169.254.169.254, a cloud metadata address. WebFetch fetches pages from public internet addresses only (it runs outside the sandbox, on the runner's own network); no rule, mode or other spelling of the URL changes that.",
    );
    expect(server.connections).toBe(0);
  });

  it('refuses the loopback server in bypassPermissions when the tool is the built-in one, which names no test address', async () => {
    const outcome = await call(`${server.url}/doc`, { mode: 'bypassPermissions' }, webFetchTool);

    expect(outcome.result.is_error).toBe(true);
    expect(text(outcome.result)).toContain(
      'WebFetch refused to connect: 127.0.0.1 is a loopback address.',
    );
    expect(server.connections).toBe(0);
  });

  it('reports a redirect to a private address unfollowed, and refuses the call that follows it', async () => {
    const tool = createWebFetchTool(serverTrust());
    const redirecting = await startHttpsServer({ '/go': redirect('https://10.0.0.1/admin') });
    try {
      const first = await call(`${redirecting.url}/go`, { mode: 'bypassPermissions' }, tool);
      const second = await call('https://10.0.0.1/admin', { mode: 'bypassPermissions' }, tool);

      expect(text(first.result)).toContain('Redirect URL: https://10.0.0.1/admin');
      expect(second.result.is_error).toBe(true);
      expect(text(second.result)).toContain('10.0.0.1 is a private-network address');
    } finally {
      await redirecting.close();
    }
  });
});

describe('WebFetch in a session', () => {
  let workspace: Workspace;
  let replay: ReplayServer;
  beforeEach(() => {
    workspace = makeWorkspace('ci-agent-webfetch-session-');
  });
  afterEach(async () => {
    await replay.close();
    workspace.cleanup();
  });

  it('is offered to the model, and a denied host is reported without any connection', async () => {
    replay = await startReplayServer({
      apiKey: 'sk-test',
      turns: [
        [
          {
            type: 'tool_use',
            id: 'toolu_web',
            name: 'WebFetch',
            input: { url: `${server.url}/doc`, prompt: 'read it' },
          },
        ],
        [{ type: 'text', text: 'Could not read it.' }],
      ],
    });

    const result = await runSession({
      prompt: 'read the page',
      cwd: workspace.root,
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'sk-test', baseURL: replay.url }),
      permissionMode: 'bypassPermissions',
      rules: {
        allow: [],
        deny: [parseRule('WebFetch(domain:127.0.0.1)', '.claude/settings.json')],
      },
      env: process.env,
      events: () => undefined,
    });

    const first = replay.requests[0]?.body as { tools: { name: string }[] };
    expect(first.tools.map((tool) => tool.name)).toContain('WebFetch');
    const messages = (replay.requests[1]?.body as { messages: Message[] }).messages;
    expect(JSON.stringify(messages.at(-1))).toContain('WebFetch(domain:127.0.0.1)');
    expect(result.permissionDenials.map((denial) => denial.tool_use_id)).toEqual(['toolu_web']);
    expect(server.requests).toEqual([]);
  });
});
