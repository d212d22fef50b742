import { mkdirSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  expandPath,
  isInside,
  isInsideWorkspace,
  permissionPaths,
  realPathOf,
} from '../../src/tools/paths.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

let workspace: Workspace | undefined;
afterEach(() => workspace?.cleanup());

describe('expandPath', () => {
  it.each([
    ['/abs/x/../y', '/base', '/abs/y'],
    ['rel/z', '/base', '/base/rel/z'],
    ['../up', '/base/dir', '/base/up'],
    ['~/notes', '/base', join(homedir(), 'notes')],
    ['~', '/base', homedir()],
  ])('%s from %s is %s', (path, base, expected) => {
    expect(expandPath(path, base)).toBe(expected);
  });
});

describe('isInside', () => {
  it.each([
    ['/w', '/w', true],
    ['/w/a/b', '/w', true],
    ['/w/..hidden', '/w', true],
    ['/wx', '/w', false],
    ['/w/../etc', '/w', false],
    ['/', '/w', false],
  ])('%s inside %s → %s', (path, root, expected) => {
    expect(isInside(path, root)).toBe(expected);
  });
});

describe('realPathOf and the workspace check', () => {
  it('resolves symlinks of the existing part of a path that does not exist yet', () => {
    workspace = makeWorkspace();
    const outside = makeWorkspace('ci-agent-outside-');
    try {
      symlinkSync(outside.root, join(workspace.root, 'escape'));
      mkdirSync(join(workspace.root, 'real'));
      const target = join(workspace.root, 'escape', 'new', 'file.txt');
      expect(realPathOf(target)).toBe(join(outside.root, 'new', 'file.txt'));
      expect(isInsideWorkspace(target, [workspace.root])).toBe(false);
      expect(permissionPaths(target)).toEqual([target, join(outside.root, 'new', 'file.txt')]);
      const inside = join(workspace.root, 'real', 'x.txt');
      expect(isInsideWorkspace(inside, [workspace.root])).toBe(true);
      expect(permissionPaths(inside)).toEqual([inside]);
    } finally {
      outside.cleanup();
    }
  });

  it('treats a link from outside into the workspace as outside', () => {
    workspace = makeWorkspace();
    const outside = makeWorkspace('ci-agent-outside-');
    try {
      symlinkSync(workspace.root, join(outside.root, 'into'));
      expect(isInsideWorkspace(join(outside.root, 'into', 'a'), [workspace.root])).toBe(false);
    } finally {
      outside.cleanup();
    }
  });

  describe('with links that lead nowhere yet', () => {
    let inside: Workspace;
    let outside: Workspace;
    beforeEach(() => {
      inside = makeWorkspace();
      outside = makeWorkspace('ci-agent-outside-');
    });
    afterEach(() => {
      inside.cleanup();
      outside.cleanup();
    });

    it('follows a dangling link in the last component to where a write would create it', () => {
      const link = inside.path('notes.md');
      symlinkSync(join(outside.root, 'created.txt'), link);
      expect(realPathOf(link)).toBe(join(outside.root, 'created.txt'));
      expect(isInsideWorkspace(link, [inside.root])).toBe(false);
      expect(permissionPaths(link)).toEqual([link, join(outside.root, 'created.txt')]);
    });

    it('follows a relative dangling link, a chain of links, and a dangling directory link', () => {
      mkdirSync(inside.path('docs'));
      symlinkSync('../.git/hooks/pre-commit', inside.path('docs/hook.md'));
      expect(realPathOf(inside.path('docs/hook.md'))).toBe(inside.path('.git/hooks/pre-commit'));
      symlinkSync(inside.path('docs/hook.md'), inside.path('second'));
      expect(realPathOf(inside.path('second'))).toBe(inside.path('.git/hooks/pre-commit'));
      symlinkSync(join(outside.root, 'not-yet'), inside.path('dir'));
      expect(realPathOf(inside.path('dir/a/b.txt'))).toBe(join(outside.root, 'not-yet/a/b.txt'));
    });

    it('resolves `..` in a link target from where the link really leads', () => {
      mkdirSync(join(outside.root, 'deep/er'), { recursive: true });
      symlinkSync(join(outside.root, 'deep/er'), inside.path('er'));
      mkdirSync(inside.path('sub'));
      symlinkSync('../er/../x.txt', inside.path('sub/up'));
      expect(realPathOf(inside.path('sub/up'))).toBe(join(outside.root, 'deep/x.txt'));
    });

    it('stops at a loop of links instead of running on', () => {
      symlinkSync(inside.path('b'), inside.path('a'));
      symlinkSync(inside.path('a'), inside.path('b'));
      expect(isInside(realPathOf(inside.path('a/c')), inside.root)).toBe(true);
    });
  });
});
