import { afterEach, describe, expect, it } from 'vitest';
import { runSystemCommand } from '../../src/agent/system-command.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => workspace?.cleanup());

describe('runSystemCommand', () => {
  it('runs in the given directory and reports the exit status and output', async () => {
    workspace = makeWorkspace();
    await workspace.write('marker.txt', 'here\n');
    const result = await runSystemCommand('cat marker.txt; exit 4', {
      cwd: workspace.root,
      env: process.env,
      timeoutMs: 10_000,
    });
    expect(result).toEqual({ exitCode: 4, output: 'Exit code 4\nhere', interrupted: false });
  });

  it('keeps secrets out of the command environment', async () => {
    workspace = makeWorkspace();
    const result = await runSystemCommand('echo "[$ANTHROPIC_API_KEY][$GITHUB_TOKEN][$KEEP]"', {
      cwd: workspace.root,
      env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-x', GITHUB_TOKEN: 'ghp_x', KEEP: 'kept' },
      timeoutMs: 10_000,
    });
    expect(result.output).toBe('[][][kept]');
  });

  it('uses the system timeout, which the model cannot set, and reports the interruption', async () => {
    workspace = makeWorkspace();
    const result = await runSystemCommand('sleep 5', {
      cwd: workspace.root,
      env: process.env,
      timeoutMs: 200,
    });
    expect(result.interrupted).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.output).toMatch(/timed out after 0\.2s/);
  });
});
