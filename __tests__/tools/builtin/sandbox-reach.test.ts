/**
 * The file tools against a real bubblewrap sandbox, from the attacker's side: a link in the
 * workspace to a kernel interface, to the home's credentials or to the runner's temp folder is
 * not read, searched, listed or written through; what Bash wrote to the sandbox's /tmp is found
 * there under that name. The home and the runner's temp folder live outside /tmp here, so that
 * the sandbox hides them with its own mounts, as on a runner.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeSingleToolUse, type PipelineDeps } from '../../../src/execution/pipeline.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { bashTool } from '../../../src/tools/builtin/bash.js';
import { editTool } from '../../../src/tools/builtin/edit.js';
import { globTool } from '../../../src/tools/builtin/glob.js';
import { grepTool } from '../../../src/tools/builtin/grep.js';
import { notebookEditTool } from '../../../src/tools/builtin/notebook-edit.js';
import { readTool } from '../../../src/tools/builtin/read.js';
import { writeTool } from '../../../src/tools/builtin/write.js';
import type { Tool, ToolContext } from '../../../src/tools/tool.js';
import { makePipeline } from '../../helpers/pipeline-harness.js';
import { blockText, makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';

const ready = existsSync('/usr/bin/bwrap');
const SECRET = 'ghp_sandbox-reach-secret';

describe.skipIf(!ready)('the file tools in a sandbox', () => {
  let outside: string;
  let home: string;
  let runnerTemp: string;
  let ws: Workspace;
  let sandbox: Sandbox;
  let context: () => ToolContext;
  beforeAll(async () => {
    outside = mkdtempSync('/var/tmp/ci-agent-reach-');
    home = join(outside, 'home');
    runnerTemp = join(outside, 'runner-temp');
    mkdirSync(home);
    mkdirSync(join(runnerTemp, '_runner_file_commands'), { recursive: true });
    writeFileSync(join(home, '.git-credentials'), `https://x:${SECRET}@github.com\n`);
    writeFileSync(join(runnerTemp, '_runner_file_commands', 'set_env'), `TOKEN=${SECRET}\n`);
    ws = makeWorkspace('ci-agent-reach-ws-');
    await ws.write('ok.txt', 'plain text\n');
    await ws.write('locked/kept.txt', 'kept\n');
    await ws.write('private/key.txt', `TOKEN=${SECRET}\n`);
    symlinkSync('/proc/self/environ', ws.path('environ'));
    symlinkSync(join(home, '.git-credentials'), ws.path('creds'));
    symlinkSync(home, ws.path('homedir'));
    symlinkSync(join(runnerTemp, '_runner_file_commands', 'set_env'), ws.path('set_env'));
    symlinkSync(runnerTemp, ws.path('runner'));
    symlinkSync(ws.path('locked'), ws.path('door'));
    sandbox = await startSandbox({
      workspaceRoots: [ws.root],
      home,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', RUNNER_TEMP: runnerTemp },
      policy: {
        allowedDomains: [],
        allowWrite: [],
        denyWrite: [ws.path('locked')],
        denyRead: [ws.path('private')],
        allowRead: [],
      },
      judges: [],
    });
    context = () => makeContext(ws, { sandbox });
  });
  afterAll(async () => {
    await sandbox.close();
    ws.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  const refusedRead = (text: string, path: string) => {
    expect(text).toContain(`may not read ${path}`);
    expect(text).toContain('the sandbox keeps it out of reach');
    expect(text).not.toContain(SECRET);
  };

  describe('Read', () => {
    it('refuses a link to a kernel interface, naming the link and where it leads', async () => {
      const run = await runTool(readTool, { file_path: ws.path('environ') }, context());
      refusedRead(run.text, ws.path('environ'));
      expect(run.text).toMatch(/leads to \/proc\/\d+\/environ\)/);
    });

    it("refuses a link to the home's credentials, and a path through a link to the home", async () => {
      for (const path of [ws.path('creds'), ws.path('homedir/.git-credentials')]) {
        const run = await runTool(readTool, { file_path: path }, context());
        refusedRead(run.text, path);
        expect(run.text).toContain(`leads to ${join(home, '.git-credentials')}`);
      }
    });

    it("refuses a link to the runner's temp folder", async () => {
      for (const path of [ws.path('set_env'), ws.path('runner/_runner_file_commands/set_env')]) {
        refusedRead((await runTool(readTool, { file_path: path }, context())).text, path);
      }
    });

    it('refuses a file in a folder of the workspace the policy hides from the sandbox', async () => {
      const path = ws.path('private/key.txt');
      refusedRead((await runTool(readTool, { file_path: path }, context())).text, path);
    });

    it('reads a plain file in the workspace as before', async () => {
      const run = await runTool(readTool, { file_path: ws.path('ok.txt') }, context());
      expect(run.text).toMatch(/^1\tplain text\n/);
    });
  });

  describe('Grep', () => {
    it('finds nothing behind the links in the workspace, with either engine', async () => {
      for (const ripgrepPath of [null, '/usr/bin/rg']) {
        if (ripgrepPath && !existsSync(ripgrepPath)) continue;
        for (const output_mode of ['files_with_matches', 'content', 'count'] as const) {
          const run = await runTool(
            grepTool,
            { pattern: 'ghp_|TOKEN|PATH=', output_mode },
            makeContext(ws, { sandbox, ripgrepPath }),
          );
          expect(run.text).not.toContain(SECRET);
          expect(run.text).not.toMatch(/environ|creds|homedir|runner|set_env|private/);
          expect(run.text).toContain('(1 file hidden by permission rules)');
        }
      }
    });

    it('refuses to search a link to the home, or to a kernel interface', async () => {
      for (const path of [ws.path('homedir'), ws.path('environ'), ws.path('runner')]) {
        const run = await runTool(
          grepTool,
          { pattern: '.', path, output_mode: 'content' },
          context(),
        );
        refusedRead(run.text, path);
      }
    });
  });

  describe('Glob', () => {
    it('lists nothing behind the links', async () => {
      const run = await runTool(globTool, { pattern: '**/*' }, context());
      expect(run.text).toContain(ws.path('ok.txt'));
      expect(run.text).not.toMatch(/environ|creds|homedir|runner|set_env|git-credentials|private/);
      expect(run.text).toContain('(1 file hidden by permission rules)');
    });

    it('refuses to list a link to the home, as path or as the fixed part of the pattern', async () => {
      const asPath = await runTool(globTool, { pattern: '*', path: ws.path('homedir') }, context());
      refusedRead(asPath.text, ws.path('homedir'));
      expect(asPath.text).not.toContain('.git-credentials');
      const asPattern = await runTool(globTool, { pattern: 'runner/**/*' }, context());
      refusedRead(asPattern.text, ws.path('runner'));
      expect(asPattern.text).not.toContain('set_env');
    });
  });

  describe('Write, Edit and NotebookEdit', () => {
    const refusedWrite = (text: string, path: string) => {
      expect(text).toContain(`may not write ${path}`);
      expect(text).toContain('the sandbox');
    };

    it('do not write through a link to a folder the sandbox keeps read-only', async () => {
      const target = ws.path('door/planted.txt');
      const run = await runTool(writeTool, { file_path: target, content: 'x' }, context());
      refusedWrite(run.text, target);
      expect(run.text).toContain(`leads to ${ws.path('locked/planted.txt')}`);
      expect(existsSync(ws.path('locked/planted.txt'))).toBe(false);
    });

    it('do not change what the sandbox keeps read-only, named directly', async () => {
      const kept = ws.path('locked/kept.txt');
      const ctx = context();
      await runTool(readTool, { file_path: kept }, ctx);
      const edit = await runTool(
        editTool,
        { file_path: kept, old_string: 'kept', new_string: 'changed' },
        ctx,
      );
      refusedWrite(edit.text, kept);
      const write = await runTool(writeTool, { file_path: kept, content: 'changed' }, ctx);
      refusedWrite(write.text, kept);
      const notebook = ws.path('locked/new.ipynb');
      const cell = await runTool(
        notebookEditTool,
        { notebook_path: notebook, new_source: 'x', cell_type: 'code', edit_mode: 'insert' },
        ctx,
      );
      refusedWrite(cell.text, notebook);
    });

    it('do not write into the home through a link', async () => {
      const target = ws.path('homedir/.bashrc');
      const run = await runTool(writeTool, { file_path: target, content: 'x' }, context());
      refusedWrite(run.text, target);
      expect(run.text).toContain('out of reach');
      expect(existsSync(join(home, '.bashrc'))).toBe(false);
    });

    it('write a plain file in the workspace as before', async () => {
      const run = await runTool(
        writeTool,
        { file_path: ws.path('fresh.txt'), content: 'x' },
        context(),
      );
      expect(run.text).toBe(`File created successfully at: ${ws.path('fresh.txt')}`);
    });
  });

  describe("the sandbox's /tmp", () => {
    let deps: PipelineDeps;
    let counter = 0;
    beforeAll(() => {
      const harness = makePipeline([bashTool, readTool, grepTool, globTool] as Tool[], {
        root: ws.root,
        // As the session sets it: the floor refuses file-tool reads of what the sandbox hides.
        policy: { sandboxHides: (path) => sandbox.isHidden(path) },
      });
      deps = {
        ...harness.deps,
        makeContext: (toolUseId, signal) => ({
          ...harness.deps.makeContext(toolUseId, signal),
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          sandbox,
        }),
      };
    });
    const call = async (name: string, input: Record<string, unknown>) => {
      const block = { type: 'tool_use' as const, id: `toolu_tmp_${++counter}`, name, input };
      const outcome = await executeSingleToolUse(block, deps, new AbortController().signal);
      return { stage: outcome.stage, text: blockText(outcome.result), data: outcome.structured };
    };

    it('is where Read, Grep and Glob find what a sandboxed Bash wrote there', async () => {
      const bash = await call('Bash', {
        command: 'mkdir -p /tmp/build && echo "reach-marker 42" > /tmp/build/out.log',
      });
      expect(bash.stage).toBe('completed');
      expect(existsSync('/tmp/build/out.log')).toBe(false);

      const read = await call('Read', { file_path: '/tmp/build/out.log' });
      expect(read.stage).toBe('completed');
      expect(read.text).toMatch(/^1\treach-marker 42\n/);
      expect(read.data).toMatchObject({ file: { filePath: '/tmp/build/out.log' } });

      const grep = await call('Grep', { pattern: 'reach-marker', path: '/tmp' });
      expect(grep.text).toBe('Found 1 file\n/tmp/build/out.log');
      const lines = await call('Grep', {
        pattern: 'reach-marker',
        path: '/tmp/build',
        output_mode: 'content',
      });
      expect(lines.text).toBe('/tmp/build/out.log:1:reach-marker 42');

      const glob = await call('Glob', { pattern: '/tmp/**/*.log' });
      expect(glob.text).toBe('/tmp/build/out.log');
      const inTmp = await call('Glob', { pattern: '**/*.log', path: '/tmp/build' });
      expect(inTmp.text).toBe('/tmp/build/out.log');
    });

    it('names a missing file there as /tmp/…', async () => {
      // A near miss: the message suggests the file next to it.
      const read = await call('Read', { file_path: '/tmp/build/out.txt' });
      expect(read.text).toContain('Did you mean /tmp/build/out.log?');
      expect(read.text).not.toContain(sandbox.hostPath('/tmp'));
    });
  });
});
