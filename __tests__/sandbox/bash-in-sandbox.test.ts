/**
 * The Bash tool with a sandbox in its context, as a session runs it: the command runs inside,
 * the shell's cwd still carries over, /tmp is the sandbox's own, and a network refusal reaches
 * the model with its reason (curl alone says only "403"); a judge the command created is gone
 * before the model reads the result, which says so; a command that could not start a process
 * is told of the sandbox's process limit.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SANDBOX_TASKS, startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { makeContext, makeWorkspace, runTool, type Workspace } from '../helpers/tool-harness.js';

const ready = existsSync('/usr/bin/bwrap') && existsSync('/usr/bin/socat');

describe.skipIf(!ready)('the Bash tool in the sandbox', () => {
  let workspace: Workspace;
  let sandbox: Sandbox;
  beforeAll(async () => {
    workspace = makeWorkspace('ci-agent-bash-sandbox-');
    await workspace.write('sub/file.txt', 'inside\n');
    sandbox = await startSandbox({
      workspaceRoots: [workspace.root],
      home: '/nonexistent-home',
      env: process.env,
      policy: {
        allowedDomains: ['registry.example.test'],
        allowWrite: [],
        denyWrite: [],
        denyRead: [],
        allowRead: [],
      },
      judges: [],
    });
  });
  afterAll(async () => {
    await sandbox.close();
    workspace.cleanup();
  });

  it('runs the command inside, and the cwd it ends in carries over to the next call', async () => {
    const context = makeContext(workspace, { sandbox });
    const first = await runTool(
      bashTool,
      { command: 'cd sub && ls /proc | grep -cE "^[0-9]+$"' },
      context,
    );
    expect(Number(first.text.trim())).toBeLessThan(10);
    expect(context.shell.cwd).toBe(workspace.path('sub'));
    const second = await runTool(bashTool, { command: 'cat file.txt' }, context);
    expect(second.text).toContain('inside');
  });

  it("tells the model why the proxy refused a host, which the client's own message does not", async () => {
    const context = makeContext(workspace, { sandbox });
    const run = await runTool(
      bashTool,
      { command: 'curl -sS -o /dev/null -w "%{http_code}\\n" https://not-allowed.example.com/' },
      context,
    );
    expect(run.text).toContain("The sandbox's network proxy refused:");
    expect(run.text).toContain('not-allowed.example.com');
    expect(run.text).toContain('sandbox.network.allowedDomains');
  });

  it('removes a judge the command created where there was none, and tells the model', async () => {
    const context = makeContext(workspace, { sandbox });
    const run = await runTool(bashTool, { command: "echo '{}' > .mcp.json" }, context);
    expect(run.text).toContain('Permission denied: the command created .mcp.json');
    expect(existsSync(join(workspace.root, '.mcp.json'))).toBe(false);
  });

  describe('when a process could not start', () => {
    // bash's own words at the limit; the real limit is boundary.test.ts's, as the runner user.
    const command = 'echo "bash: fork: retry: Resource temporarily unavailable" >&2; exit 254';

    it("tells the model of the sandbox's process limit, which the shell's message does not name", async () => {
      const held = { ...sandbox, maxTasks: MAX_SANDBOX_TASKS };
      const run = await runTool(bashTool, { command }, makeContext(workspace, { sandbox: held }));
      expect(run.text).toContain(
        `a command in the sandbox may have at most ${MAX_SANDBOX_TASKS} processes and threads at once`,
      );
    });

    it('holds a command to the limit, and says so, unless ci-agent runs as root', async () => {
      expect(sandbox.maxTasks).toBe(process.getuid?.() === 0 ? undefined : MAX_SANDBOX_TASKS);
      const run = await runTool(bashTool, { command }, makeContext(workspace, { sandbox }));
      expect(run.text.includes('processes and threads at once')).toBe(
        sandbox.maxTasks !== undefined,
      );
    });
  });
});
