import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concurrencySafetyOf, groupByConcurrencySafety } from '../../src/execution/dispatcher.js';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { McpConnection } from '../../src/mcp/mcp-connection.js';
import { createMcpTool, mcpToolName } from '../../src/mcp/mcp-tool.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { Tool } from '../../src/tools/tool.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { everythingStdio } from './mcp-fixture.js';

let connection: McpConnection;
beforeAll(async () => {
  connection = await McpConnection.open({
    name: 'everything',
    config: everythingStdio,
    cwd: process.cwd(),
    parentEnv: process.env,
    startupTimeoutMs: 15_000,
    graceMs: 300,
  });
});
afterAll(async () => {
  await connection.close({ force: true });
});

function toolOf(name: string, trusted = false): Tool {
  const info = connection.tools.find((tool) => tool.name === name);
  if (!info) throw new Error(`server-everything has no ${name}`);
  return createMcpTool({
    server: 'everything',
    info,
    caller: connection,
    trusted,
    timeoutMs: 10_000,
  });
}

const use = (id: string, name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

describe('mcpToolName', () => {
  it.each([
    ['github', 'create_issue', 'mcp__github__create_issue'],
    ['brave-search', 'search', 'mcp__brave-search__search'],
    ['files', 'read file.v2', 'mcp__files__read_file_v2'],
  ])('names %s/%s %s', (server, tool, name) => {
    expect(mcpToolName(server, tool)).toBe(name);
  });

  it('keeps long names within the API’s 64 characters, distinct and well-formed', () => {
    const a = mcpToolName(
      'a-server-with-a-long-name',
      'a_tool_with_an_even_longer_name_than_the_server_1',
    );
    const b = mcpToolName(
      'a-server-with-a-long-name',
      'a_tool_with_an_even_longer_name_than_the_server_2',
    );
    for (const name of [a, b]) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a.startsWith('mcp__a-server-with-a-long-name__a_tool')).toBe(true);
  });
});

describe('createMcpTool', () => {
  it('offers the model the server’s schema and description under the mcp__ name', () => {
    const tool = toolOf('echo');
    expect(tool.name).toBe('mcp__everything__echo');
    expect(tool.description).toBe('Echoes back the input string');
    expect(tool.userFacingName()).toBe('everything - Echo Tool (MCP)');
    expect(tool.jsonSchema()).toEqual({
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
    });
  });

  describe('when the server is not trusted', () => {
    it('treats every tool as one that may change anything, whatever its readOnlyHint', () => {
      const echo = toolOf('echo');
      expect(echo.isConcurrencySafe({ message: 'x' })).toBe(false);
      expect(echo.isReadOnly({ message: 'x' })).toBe(false);
      expect(echo.checkPermissions({ message: 'x' }, undefined as never)).toEqual({
        access: 'other',
      });
    });

    it('runs its calls one group each', () => {
      const registry = new ToolRegistry([toolOf('echo'), toolOf('get-sum')]);
      const groups = groupByConcurrencySafety(
        [
          use('1', 'mcp__everything__echo', { message: 'a' }),
          use('2', 'mcp__everything__get-sum', { a: 1, b: 2 }),
        ],
        concurrencySafetyOf(registry),
      );
      expect(groups.map((group) => group.blocks.length)).toEqual([1, 1]);
    });
  });

  describe('when the policy trusts the server', () => {
    it('believes readOnlyHint: read-only tools are read access and run together', () => {
      const registry = new ToolRegistry([
        toolOf('echo', true),
        toolOf('get-sum', true),
        toolOf('toggle-simulated-logging', true),
      ]);
      const groups = groupByConcurrencySafety(
        [
          use('1', 'mcp__everything__echo', { message: 'a' }),
          use('2', 'mcp__everything__get-sum', { a: 1, b: 2 }),
          use('3', 'mcp__everything__toggle-simulated-logging', {}),
        ],
        concurrencySafetyOf(registry),
      );
      expect(groups.map((group) => [group.concurrent, group.blocks.length])).toEqual([
        [true, 2],
        [false, 1],
      ]);
      expect(
        registry.find('mcp__everything__echo')?.checkPermissions({}, undefined as never),
      ).toEqual({
        access: 'read',
      });
      expect(
        registry
          .find('mcp__everything__toggle-simulated-logging')
          ?.checkPermissions({}, undefined as never),
      ).toEqual({ access: 'other' });
    });
  });

  it('refuses a schema that is not JSON Schema', () => {
    expect(() =>
      createMcpTool({
        server: 's',
        info: {
          name: 't',
          inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } },
        },
        caller: connection,
        trusted: false,
        timeoutMs: 1_000,
      }),
    ).toThrow(/type/);
  });
});

describe('an MCP tool in the pipeline', () => {
  it('is decided by rules on its mcp__ name: allowed, denied by a server rule, asked by default', async () => {
    const tools = [toolOf('echo'), toolOf('get-sum'), toolOf('get-env')];
    const { deps } = makePipeline(tools, {
      policy: {
        mode: 'default',
        allow: [
          parseRule('mcp__everything__echo', 'test'),
          parseRule('mcp__everything__get-*', 'test'),
        ],
        deny: [parseRule('mcp__everything__get-env', 'test')],
      },
    });
    const signal = new AbortController().signal;
    const echo = await executeSingleToolUse(
      use('e', 'mcp__everything__echo', { message: 'hi' }),
      deps,
      signal,
    );
    const sum = await executeSingleToolUse(
      use('s', 'mcp__everything__get-sum', { a: 1, b: 2 }),
      deps,
      signal,
    );
    const env = await executeSingleToolUse(use('v', 'mcp__everything__get-env', {}), deps, signal);
    expect(echo.result.content).toBe('Echo: hi');
    expect(sum.result.content).toBe('The sum of 1 and 2 is 3.');
    expect(env.stage).toBe('permission');
    expect(env.decision?.matchedRules.map((rule) => rule.text)).toEqual([
      'mcp__everything__get-env',
    ]);
  });

  it('asks (and so is denied in CI) when no rule allows an untrusted tool', async () => {
    const { deps } = makePipeline([toolOf('echo')], { policy: { mode: 'default' } });
    const outcome = await executeSingleToolUse(
      use('e', 'mcp__everything__echo', { message: 'hi' }),
      deps,
      new AbortController().signal,
    );
    expect(outcome.stage).toBe('permission');
    expect(outcome.result.is_error).toBe(true);
  });

  it('passes the server’s progress notifications on as tool-progress events', async () => {
    const { deps, events } = makePipeline([toolOf('trigger-long-running-operation')]);
    const outcome = await executeSingleToolUse(
      use('p', 'mcp__everything__trigger-long-running-operation', { duration: 0.2, steps: 2 }),
      deps,
      new AbortController().signal,
    );
    expect(outcome.result.content).toBe(
      'Long running operation completed. Duration: 0.2 seconds, Steps: 2.',
    );
    expect(
      events.filter((event) => event.type === 'tool-progress').map((event) => event.message),
    ).toEqual(['1 of 2', '2 of 2']);
  });

  it('returns images as image blocks', async () => {
    const { deps } = makePipeline([toolOf('get-tiny-image')]);
    const outcome = await executeSingleToolUse(
      use('i', 'mcp__everything__get-tiny-image', {}),
      deps,
      new AbortController().signal,
    );
    const content = outcome.result.content;
    expect(Array.isArray(content) && content.map((block) => block.type)).toContain('image');
  });
});
