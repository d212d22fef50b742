/**
 * server-filesystem from npm over stdio, started the way a run starts its servers, its tools
 * called through the real pipeline: trust, rules and the server's own refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { EMPTY_MCP_POLICY } from '../../src/mcp/mcp-policy.js';
import type { McpServers } from '../../src/mcp/start-mcp-servers.js';
import { startMcpServers } from '../../src/mcp/start-mcp-servers.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { filesystemStdio, waitForGroupGone } from './mcp-fixture.js';

let workspace: Workspace;
let servers: McpServers;
beforeAll(async () => {
  workspace = makeWorkspace('ci-agent-mcp-fs-');
  await workspace.write('notes.txt', 'first line\n');
  servers = await startMcpServers({
    config: {
      servers: [{ name: 'files', source: '.mcp.json', config: filesystemStdio(workspace.root) }],
      broken: [],
      warnings: [],
    },
    policy: { ...EMPTY_MCP_POLICY, trusted: ['files'] },
    projectDir: workspace.root,
    parentEnv: process.env,
    graceMs: 300,
  });
});
afterAll(async () => {
  await servers.close();
  workspace.cleanup();
});

const use = (id: string, name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

function pipeline(policy: Partial<PermissionPolicy> = {}) {
  return makePipeline(servers.tools, {
    root: workspace.root,
    policy: { mode: 'default', ...policy },
  });
}

describe('server-filesystem as MCP tools', () => {
  it('lists its tools under mcp__files__', () => {
    expect(servers.servers).toEqual([{ name: 'files', status: 'connected' }]);
    expect(servers.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining([
        'mcp__files__read_text_file',
        'mcp__files__write_file',
        'mcp__files__list_directory',
      ]),
    );
  });

  it('lets a trusted server’s read-only tool run in the default mode without a rule', async () => {
    const outcome = await executeSingleToolUse(
      use('l', 'mcp__files__list_directory', { path: workspace.root }),
      pipeline().deps,
      new AbortController().signal,
    );
    expect(outcome.result.content).toBe('[FILE] notes.txt');
    expect(outcome.decision?.behavior).toBe('allow');
  });

  it('asks for a tool that changes files, which in CI is a denial', async () => {
    const outcome = await executeSingleToolUse(
      use('w', 'mcp__files__write_file', { path: workspace.path('new.txt'), content: 'x' }),
      pipeline().deps,
      new AbortController().signal,
    );
    expect(outcome.stage).toBe('permission');
    expect(outcome.result.is_error).toBe(true);
  });

  it('writes when an allow rule names the tool, and a server-wide deny rule wins over it', async () => {
    const allow = [parseRule('mcp__files__write_file', '--allowedTools')];
    const written = await executeSingleToolUse(
      use('w', 'mcp__files__write_file', {
        path: workspace.path('new.txt'),
        content: 'made by MCP',
      }),
      pipeline({ allow }).deps,
      new AbortController().signal,
    );
    expect(written.result.is_error).toBeUndefined();
    const denied = await executeSingleToolUse(
      use('w2', 'mcp__files__write_file', { path: workspace.path('other.txt'), content: 'x' }),
      pipeline({ allow, deny: [parseRule('mcp__files', '.claude/settings.json')] }).deps,
      new AbortController().signal,
    );
    expect(denied.stage).toBe('permission');
    expect(denied.decision?.matchedRules.map((rule) => rule.text)).toEqual(['mcp__files']);
  });

  it('answers the server’s own refusal as an is_error result', async () => {
    const outcome = await executeSingleToolUse(
      use('r', 'mcp__files__read_text_file', { path: '/etc/hostname' }),
      pipeline().deps,
      new AbortController().signal,
    );
    expect(outcome.result.is_error).toBe(true);
    expect(outcome.result.content).toContain('Access denied - path outside allowed directories');
  });

  it('leaves no server process once closed', async () => {
    const started = await startMcpServers({
      config: {
        servers: [{ name: 'files', source: '.mcp.json', config: filesystemStdio(workspace.root) }],
        broken: [],
        warnings: [],
      },
      policy: EMPTY_MCP_POLICY,
      projectDir: workspace.root,
      parentEnv: process.env,
      graceMs: 300,
    });
    const [pid] = started.pids();
    expect(pid).toBeGreaterThan(0);
    await started.close();
    expect(await waitForGroupGone(pid ?? 0)).toBe(true);
  });
});
