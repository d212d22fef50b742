import { mkdirSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
});
