import { mkdir, symlink, utimes } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeContext, makeWorkspace, runTool } from '../../helpers/tool-harness.js';
import type { Workspace } from '../../helpers/tool-harness.js';
import { globTool } from '../../../src/tools/builtin/glob.js';
import type { GlobOutput } from '../../../src/tools/builtin/glob.js';
import type { ToolContext } from '../../../src/tools/tool.js';

const NOTE = '(Results are truncated. Consider using a more specific path or pattern.)';

describe('globTool', () => {
  let workspace: Workspace;
  let context: ToolContext;

  beforeEach(() => {
    workspace = makeWorkspace();
    context = makeContext(workspace);
  });
  afterEach(() => workspace.cleanup());

  async function writeAt(relative: string, seconds: number): Promise<string> {
    const path = await workspace.write(relative, '');
    await utimes(path, seconds, seconds);
    return path;
  }

  it('lists matching files as absolute paths, newest first, ties by path', async () => {
    const old = await writeAt('src/old.ts', 1000);
    const newest = await writeAt('src/deep/newest.ts', 3000);
    const tieB = await writeAt('b.ts', 2000);
    const tieA = await writeAt('a.ts', 2000);
    await writeAt('notes.md', 4000);
    const run = await runTool(globTool, { pattern: '**/*.ts' }, context);
    expect(run.text).toBe([newest, tieA, tieB, old].join('\n'));
    expect(run.data).toEqual({
      durationMs: expect.any(Number) as number,
      numFiles: 4,
      filenames: [newest, tieA, tieB, old],
      truncated: false,
    });
  });

  it('says when nothing matches', async () => {
    await workspace.write('a.txt', '');
    const run = await runTool(globTool, { pattern: '*.ts' }, context);
    expect(run.text).toBe('No files found');
    expect(run.block.is_error).toBeFalsy();
  });

  it('keeps the 100 newest files and adds a note', async () => {
    for (let index = 0; index < 105; index++) {
      await writeAt(`f${String(index).padStart(3, '0')}.txt`, 1000 + index);
    }
    const run = await runTool(globTool, { pattern: '*.txt' }, context);
    const lines = run.text.split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(workspace.path('f104.txt'));
    expect(lines[99]).toBe(workspace.path('f005.txt'));
    expect(lines[100]).toBe(NOTE);
    expect((run.data as GlobOutput).truncated).toBe(true);
    expect((run.data as GlobOutput).numFiles).toBe(100);
  });

  it('includes hidden and git-ignored files but not .git internals', async () => {
    await workspace.write('.git/config', '');
    await workspace.write('.gitignore', 'ignored.txt\n');
    const ignored = await writeAt('ignored.txt', 2000);
    const hidden = await writeAt('.hidden/a.txt', 1000);
    const run = await runTool(globTool, { pattern: '**/*' }, context);
    // .gitignore was written just now, so it is the newest.
    expect((run.data as GlobOutput).filenames).toEqual([
      workspace.path('.gitignore'),
      ignored,
      hidden,
    ]);
    expect(run.text).not.toContain('.git/');
  });

  it('does not follow symbolic links', async () => {
    const real = await workspace.write('real/a.txt', '');
    await symlink(workspace.path('real'), workspace.path('linked'));
    const run = await runTool(globTool, { pattern: '**/*.txt' }, context);
    expect(run.text).toBe(real);
  });

  it('resolves a relative path against the project directory', async () => {
    const inside = await workspace.write('sub/a.ts', '');
    await workspace.write('b.ts', '');
    const run = await runTool(globTool, { pattern: '*.ts', path: 'sub' }, context);
    expect(run.text).toBe(inside);
  });

  it('searches the directory an absolute pattern names', async () => {
    const other = makeWorkspace();
    try {
      const target = await other.write('lib/x.js', '');
      const input = { pattern: `${other.root}/lib/*.js` };
      expect((await runTool(globTool, input, context)).text).toBe(target);
      expect(globTool.checkPermissions(input, context)).toEqual({
        access: 'read',
        ruleContent: other.path('lib'),
        paths: [other.path('lib')],
      });
    } finally {
      other.cleanup();
    }
  });

  it('reports the parent directory a leading .. reaches for permission checks', async () => {
    await mkdir(workspace.path('project'));
    const projectContext = makeContext(workspace, { projectDir: workspace.path('project') });
    const found = await workspace.write('sibling.txt', '');
    const input = { pattern: '../*.txt' };
    expect(globTool.checkPermissions(input, projectContext)).toMatchObject({
      ruleContent: workspace.root,
    });
    expect((await runTool(globTool, input, projectContext)).text).toBe(found);
  });

  it('finds nothing when the fixed part of the pattern names no directory', async () => {
    const run = await runTool(globTool, { pattern: 'missing/**/*.ts' }, context);
    expect(run.text).toBe('No files found');
  });

  describe('when the directory does not exist', () => {
    it('refuses the call and names the directory', async () => {
      const run = await runTool(globTool, { pattern: '*', path: 'nope' }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(
        `<tool_use_error>Directory does not exist: ${workspace.path('nope')}</tool_use_error>`,
      );
    });
  });

  describe('when the path is a file', () => {
    it('refuses the call', async () => {
      const file = await workspace.write('a.txt', '');
      const run = await runTool(globTool, { pattern: '*', path: file }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toBe(`<tool_use_error>Path is not a directory: ${file}</tool_use_error>`);
    });
  });

  describe('when the pattern climbs out after a wildcard', () => {
    it('refuses the call', async () => {
      const run = await runTool(globTool, { pattern: '*/../../*' }, context);
      expect(run.block.is_error).toBe(true);
      expect(run.text).toContain('cannot climb out');
    });
  });

  describe('when the call is aborted', () => {
    it('rejects', async () => {
      await workspace.write('a.txt', '');
      const controller = new AbortController();
      controller.abort(new Error('halt'));
      const aborted = makeContext(workspace, { signal: controller.signal });
      await expect(runTool(globTool, { pattern: '**/*' }, aborted)).rejects.toThrow();
    });
  });

  describe('when Read deny rules hide files', () => {
    const denied = (path: string) => path.endsWith('.env') || path.includes('/secrets/');

    it('leaves them out, counts them and says so', async () => {
      const visible = await writeAt('config/app.env.example', 1000);
      await writeAt('.env', 2000);
      await writeAt('config/.env', 3000);
      await writeAt('secrets/key.env.pem', 4000);
      const run = await runTool(
        globTool,
        { pattern: '**/*.env*' },
        makeContext(workspace, { isReadDenied: denied }),
      );
      expect(run.text).toBe(`${visible}\n(3 files hidden by permission rules)`);
      expect(run.data).toMatchObject({ numFiles: 1, filenames: [visible], hiddenByPermissions: 3 });
    });

    it('says so when every match is hidden', async () => {
      await writeAt('.env', 1000);
      const run = await runTool(
        globTool,
        { pattern: '.env' },
        makeContext(workspace, { isReadDenied: denied }),
      );
      expect(run.text).toBe('No files found\n(1 file hidden by permission rules)');
    });

    it('fills the 100 results with files the rules let through', async () => {
      for (let index = 0; index < 100; index++) await writeAt(`f${index}.txt`, 1000 + index);
      for (let index = 0; index < 5; index++) await writeAt(`s${index}.env`, 5000 + index);
      const run = await runTool(
        globTool,
        { pattern: '*' },
        makeContext(workspace, { isReadDenied: denied }),
      );
      const data = run.data as GlobOutput;
      expect(data.numFiles).toBe(100);
      expect(data.truncated).toBe(false);
      expect(data.filenames.some((path) => path.endsWith('.env'))).toBe(false);
      expect(run.text.endsWith('(5 files hidden by permission rules)')).toBe(true);
    });

    it('adds nothing when the rules hide nothing', async () => {
      await writeAt('a.ts', 1000);
      const run = await runTool(
        globTool,
        { pattern: '*.ts' },
        makeContext(workspace, { isReadDenied: denied }),
      );
      expect(run.text).toBe(workspace.path('a.ts'));
      expect(run.data).not.toHaveProperty('hiddenByPermissions');
    });
  });

  describe('checkPermissions', () => {
    it('asks for read access to the searched directory', () => {
      expect(globTool.checkPermissions({ pattern: 'src/**/*.ts' }, context)).toEqual({
        access: 'read',
        ruleContent: workspace.path('src'),
        paths: [workspace.path('src')],
      });
      expect(globTool.checkPermissions({ pattern: '**/*.ts' }, context)).toMatchObject({
        ruleContent: workspace.root,
      });
    });
  });

  describe('declarations', () => {
    it('is read-only and safe to run concurrently', () => {
      expect(globTool.isReadOnly({ pattern: '*' })).toBe(true);
      expect(globTool.isConcurrencySafe({ pattern: '*' })).toBe(true);
    });
  });
});
