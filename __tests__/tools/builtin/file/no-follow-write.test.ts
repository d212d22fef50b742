import { chmodSync, linkSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWithoutFollowing } from '../../../../src/tools/builtin/file/no-follow-write.js';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('writeWithoutFollowing', () => {
  let workspace: Workspace;
  let outside: Workspace;

  beforeEach(() => {
    workspace = makeWorkspace();
    outside = makeWorkspace('ci-agent-outside-');
  });
  afterEach(() => {
    workspace.cleanup();
    outside.cleanup();
  });

  it('creates a file and its missing directories where it was told the path leads', async () => {
    const path = workspace.path('a/b/new.txt');
    const { mtimeMs } = await writeWithoutFollowing(path, bytes('new\n'), path);
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect(mtimeMs).toBe(statSync(path).mtimeMs);
  });

  it('writes an existing file in place: its mode and inode stay, a longer old content is cut', async () => {
    const path = await workspace.write('run.sh', 'echo a long old line\n');
    chmodSync(path, 0o751);
    const before = statSync(path);
    await writeWithoutFollowing(path, bytes('echo b\n'), path);
    const after = statSync(path);
    expect(readFileSync(path, 'utf8')).toBe('echo b\n');
    expect(after.mode & 0o777).toBe(0o751);
    expect(after.ino).toBe(before.ino);
  });

  it('refuses a file with a second hard link, and leaves it as it was', async () => {
    const target = await outside.write('.bashrc', 'original\n');
    const path = workspace.path('notes.md');
    linkSync(target, path);
    await expect(writeWithoutFollowing(path, bytes('x'), path)).rejects.toThrow(
      `Cannot write ${path}: the file has 2 hard links`,
    );
    expect(readFileSync(target, 'utf8')).toBe('original\n');
  });

  describe('when the last component is a symbolic link', () => {
    it('refuses a dangling one and creates nothing where it leads', async () => {
      const link = workspace.path('notes.md');
      symlinkSync(join(outside.root, 'created.txt'), link);
      await expect(writeWithoutFollowing(link, bytes('x'), link)).rejects.toThrow(
        `Cannot write ${link}: it is a symbolic link (to ${join(outside.root, 'created.txt')}), and files are not written through links.`,
      );
      expect(readdirSync(outside.root)).toEqual([]);
    });

    it.each(['outside', 'inside'])(
      'refuses one to an existing file %s and leaves that file as it was',
      async (where) => {
        const target = await (where === 'outside' ? outside : workspace).write('t.txt', 'old\n');
        const link = workspace.path('link.txt');
        symlinkSync(target, link);
        await expect(writeWithoutFollowing(link, bytes('x'), target)).rejects.toThrow(
          `Cannot write ${link}: it is a symbolic link (to ${target})`,
        );
        expect(readFileSync(target, 'utf8')).toBe('old\n');
      },
    );
  });

  describe('when a directory on the way now leads elsewhere than it did when judged', () => {
    // The decision saw `d` as a directory inside; it has since become a link to outside.
    beforeEach(() => symlinkSync(outside.root, workspace.path('d')));

    it('removes the file it created there, and says so', async () => {
      const path = workspace.path('d/f.txt');
      await expect(writeWithoutFollowing(path, bytes('x'), path)).rejects.toThrow(
        `Cannot write ${path}: it led to ${join(outside.root, 'f.txt')} when written, not to ${path}, where the permission check saw it lead`,
      );
      expect(readdirSync(outside.root)).toEqual([]);
    });

    it('leaves an existing file there as it was', async () => {
      await outside.write('f.txt', 'original\n');
      const path = workspace.path('d/f.txt');
      await expect(writeWithoutFollowing(path, bytes('x'), path)).rejects.toThrow(
        'Nothing was written',
      );
      expect(readFileSync(join(outside.root, 'f.txt'), 'utf8')).toBe('original\n');
    });

    it('removes a missing directory it made there before writing anything into it', async () => {
      const path = workspace.path('d/new/f.txt');
      await expect(writeWithoutFollowing(path, bytes('x'), path)).rejects.toThrow(
        `Cannot write ${workspace.path('d/new')}: it led to ${join(outside.root, 'new')}`,
      );
      expect(readdirSync(outside.root)).toEqual([]);
    });
  });
});
