import { mkdirSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../src/tools/builtin/bash.js';
import type { BashOutput } from '../../../src/tools/builtin/bash/output.js';
import type { ToolContext, ToolProgress } from '../../../src/tools/tool.js';
import { buildChildEnv } from '../../../src/util/child-env.js';
import { makeContext, makeWorkspace, runTool, type Workspace } from '../../helpers/tool-harness.js';
import { sleepMarkers, survivorsWith } from '../../helpers/processes.js';

let workspace: Workspace;
let context: ToolContext;
/** `sleep` arguments this file's processes can be found by, and cleaned up by. */
const { marker, killAll: killMarked } = sleepMarkers();

beforeEach(() => {
  workspace = makeWorkspace();
  context = makeContext(workspace);
});

afterEach(() => {
  killMarked();
  workspace.cleanup();
});

function bash(input: Record<string, unknown>, options: { internal?: boolean } = {}) {
  return runTool(bashTool, input, context, options);
}

/** Runs a call step by step, handing each progress event to `onProgress`. */
async function drive(
  input: Record<string, unknown>,
  onProgress: (event: ToolProgress) => void,
): Promise<BashOutput> {
  const generator = bashTool.call(bashTool.inputSchema.parse(input), context);
  for (;;) {
    const step = await generator.next();
    if (step.done) return step.value.data as BashOutput;
    onProgress(step.value);
  }
}

describe('bashTool', () => {
  describe('when the command succeeds', () => {
    it('returns stdout, then stderr', async () => {
      const run = await bash({ command: 'echo out; echo err >&2' });
      expect(run.text).toBe('out\nerr');
      expect(run.block.is_error).toBeUndefined();
      expect(run.data).toEqual({
        stdout: 'out',
        stderr: 'err',
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
        exitCode: 0,
      });
    });

    it('passes stderr alone through as a success', async () => {
      const run = await bash({ command: 'echo "warning: careful" >&2' });
      expect([run.text, run.block.is_error]).toEqual(['warning: careful', undefined]);
    });

    it('runs with stdin closed', async () => {
      expect((await bash({ command: 'cat; echo done' })).text).toBe('done');
    });
  });

  describe('when the command exits non-zero', () => {
    it('returns an error led by the exit code', async () => {
      const run = await bash({ command: 'echo out; echo err >&2; exit 3' });
      expect(run.text).toBe('Exit code 3\nout\nerr');
      expect(run.block.is_error).toBe(true);
      expect(run.data).toMatchObject({ exitCode: 3, interrupted: false });
    });

    it('does not count grep finding nothing as a failure', async () => {
      await workspace.write('notes.txt', 'alpha\n');
      const run = await bash({ command: 'grep beta notes.txt' });
      expect([run.text, run.block.is_error]).toEqual(['No matches found', undefined]);
      expect(run.data).toMatchObject({ exitCode: 1, returnCodeInterpretation: 'No matches found' });
    });

    it('counts exit 1 of a pipeline ending in grep as a failure', async () => {
      const run = await bash({ command: 'echo alpha | grep beta' });
      expect([run.text, run.block.is_error]).toEqual(['Exit code 1', true]);
    });
  });

  describe('when the output is large', () => {
    it('keeps the head up to BASH_MAX_OUTPUT_LENGTH and counts the lines cut', async () => {
      context = makeContext(workspace, { env: { ...context.env, BASH_MAX_OUTPUT_LENGTH: '100' } });
      const run = await bash({ command: 'seq 1 1000' });
      // 100 characters hold lines 1-36 and the "3" of line 37; lines 37-1000 are cut.
      expect(run.text).toMatch(/^1\n2\n[\s\S]*\n36\n3\n\n\.\.\. \[964 lines truncated\] \.\.\.$/);
    });
  });

  describe('when the timeout expires', () => {
    it('kills the command and what it started, and says so', async () => {
      const [background, foreground] = [marker(), marker()];
      const command = `sleep ${background} & sleep ${foreground}; wait`;
      const run = await bash({ command, timeout: 300 });
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('Command timed out after 0.3s');
      expect(run.data).toMatchObject({ interrupted: true, exitCode: null });
      expect([await survivorsWith(background, 0), await survivorsWith(foreground, 0)]).toEqual([
        [],
        [],
      ]);
    });
  });

  describe('when the call is aborted', () => {
    it('kills the process group and appends the abort note', async () => {
      const controller = new AbortController();
      context = makeContext(workspace, { signal: controller.signal });
      const sleep = marker();
      const output = await drive({ command: `bash -c "sleep ${sleep} & echo started; wait"` }, () =>
        controller.abort(),
      );
      expect(output.interrupted).toBe(true);
      expect(output.stderr).toBe('<error>Command was aborted before completion</error>');
      expect(await survivorsWith(sleep, 0)).toEqual([]);
    });

    it('stops the command when the consumer stops listening', async () => {
      const sleep = marker();
      const command = `sleep ${sleep} & echo started; wait`;
      const generator = bashTool.call({ command }, context);
      const first = await generator.next();
      expect(first.done ? '' : first.value.message).toContain('started');
      await generator.return(undefined as never);
      // The group is stopped before return() resolves.
      expect(await survivorsWith(sleep, 0)).toEqual([]);
    });
  });

  describe('when output arrives over time', () => {
    it('relays it as progress before the command ends', async () => {
      const progress: string[] = [];
      const output = await drive(
        { command: 'echo first; while [ ! -e go ]; do sleep 0.01; done; echo second' },
        (event) => {
          progress.push(event.message);
          mkdirSync(workspace.path('go'), { recursive: true });
        },
      );
      expect(progress[0]).toBe('first\n');
      expect(output.stdout).toBe('first\nsecond');
    });
  });

  describe('when the command changes directory', () => {
    it('keeps the new cwd for the next call', async () => {
      mkdirSync(workspace.path('sub'));
      await bash({ command: 'cd sub' });
      expect((await bash({ command: 'pwd' })).text).toBe(workspace.path('sub'));
      expect(context.shell.cwd).toBe(workspace.path('sub'));
    });

    it('keeps the cwd and the exit code of a command that exits itself', async () => {
      mkdirSync(workspace.path('sub'));
      const run = await bash({ command: 'cd sub; exit 4' });
      expect(run.text).toBe('Exit code 4');
      expect(context.shell.cwd).toBe(workspace.path('sub'));
    });

    it('resets a cwd outside the workspace and says so', async () => {
      const run = await bash({ command: 'cd / && pwd' });
      expect(run.text).toBe(`/\nShell cwd was reset to ${workspace.root}`);
      expect(run.data).toMatchObject({ cwdReset: workspace.root });
      expect(context.shell.cwd).toBe(workspace.root);
    });

    it('starts from the project directory when the kept cwd was deleted', async () => {
      mkdirSync(workspace.path('gone'));
      context.shell.cwd = workspace.path('gone');
      rmSync(workspace.path('gone'), { recursive: true });
      const run = await bash({ command: 'pwd' });
      expect(run.text).toBe(`${workspace.root}\nShell cwd was reset to ${workspace.root}`);
    });

    it('does not keep environment changes', async () => {
      await bash({ command: 'export CI_AGENT_PROBE=1' });
      expect((await bash({ command: 'echo "[$CI_AGENT_PROBE]"' })).text).toBe('[]');
    });
  });

  describe('when the environment holds secrets', () => {
    it('does not pass them to the command', async () => {
      const env = buildChildEnv({
        ...process.env,
        ANTHROPIC_API_KEY: 'sk-ant-secret',
        GITHUB_TOKEN: 'ghs_secret',
        CI_AGENT_VISIBLE: 'visible',
      });
      context = makeContext(workspace, { env });
      const run = await bash({
        command: 'echo "[$ANTHROPIC_API_KEY][$GITHUB_TOKEN][$CI_AGENT_VISIBLE]"',
      });
      expect(run.text).toBe('[][][visible]');
    });
  });

  describe('when the input asks for what CI cannot do', () => {
    it('refuses background execution', async () => {
      const run = await bash({ command: 'sleep 1', run_in_background: true });
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('Background execution is not available in CI');
    });

    it('refuses an empty command', async () => {
      const run = await bash({ command: '  ' });
      expect([run.block.is_error, run.text]).toEqual([
        true,
        '<tool_use_error>The command is empty.</tool_use_error>',
      ]);
    });
  });

  describe('when the system sets _systemTimeoutMs', () => {
    it('is not part of the model-facing schema', () => {
      const parsed = bashTool.inputSchema.safeParse({ command: 'ls', _systemTimeoutMs: 900_000 });
      expect(parsed.success).toBe(false);
      expect(JSON.stringify(bashTool.jsonSchema())).not.toContain('_systemTimeoutMs');
    });

    it('is accepted internally and replaces the timeout', async () => {
      const run = await bash(
        { command: 'sleep 30', timeout: 100_000, _systemTimeoutMs: 300 },
        { internal: true },
      );
      expect(run.text).toContain('Command timed out after 0.3s');
    });
  });

  describe('declarations', () => {
    it('marks read-only commands as read access, safe to run concurrently', () => {
      const input = { command: 'git status && ls' };
      expect(bashTool.isReadOnly(input)).toBe(true);
      expect(bashTool.isConcurrencySafe(input)).toBe(true);
      expect(bashTool.checkPermissions(input, context)).toEqual({
        access: 'read',
        ruleContent: 'git status && ls',
        // What it reads: the cwd, and its words taken for paths there.
        paths: [workspace.root, workspace.path('status')],
      });
    });

    it('says what a read-only command reads that cannot be placed inside', () => {
      const input = { command: 'cat /proc/$PPID/environ' };
      expect(bashTool.checkPermissions(input, context)).toMatchObject({
        access: 'read',
        paths: [workspace.root],
        readsOutside: ['/proc/$PPID/environ (known only when it runs)'],
      });
    });

    it('marks other commands as execute access, not concurrency-safe', () => {
      const input = { command: 'npm test' };
      expect(bashTool.isReadOnly(input)).toBe(false);
      expect(bashTool.isConcurrencySafe(input)).toBe(false);
      expect(bashTool.checkPermissions(input, context)).toEqual({
        access: 'execute',
        ruleContent: 'npm test',
        // Every word may name what it changes, for the judges floor (bash/possible-writes.ts).
        mayWrite: [{ path: workspace.path('test'), access: 'write' }],
      });
    });

    it('names the files a command reads and writes, from the shell cwd', () => {
      mkdirSync(workspace.path('sub'));
      context.shell.cwd = workspace.path('sub');
      const input = { command: 'grep KEY ../.env > out.txt' };
      expect(bashTool.checkPermissions(input, context)).toEqual({
        access: 'execute',
        ruleContent: 'grep KEY ../.env > out.txt',
        fileOperands: [
          { path: workspace.path('sub/out.txt'), access: 'write' },
          { path: workspace.path('.env'), access: 'read' },
        ],
        // grep's pattern and its output, not the file it reads.
        mayWrite: [
          { path: workspace.path('sub/KEY'), access: 'write' },
          { path: workspace.path('sub/out.txt'), access: 'write' },
        ],
      });
    });

    it('shows the model this schema', () => {
      expect(bashTool.jsonSchema()).toMatchInlineSnapshot(`
        {
          "additionalProperties": false,
          "properties": {
            "command": {
              "description": "The shell command to run",
              "type": "string",
            },
            "description": {
              "description": "What the command does, in 5-10 words, for the log (e.g. "Run the unit tests")",
              "type": "string",
            },
            "run_in_background": {
              "description": "Not available in this environment: commands always run in the foreground",
              "type": "boolean",
            },
            "timeout": {
              "description": "How long the command may run, in milliseconds (default 120000, at most 600000)",
              "exclusiveMinimum": 0,
              "type": "number",
            },
          },
          "required": [
            "command",
          ],
          "type": "object",
        }
      `);
    });
  });
});
