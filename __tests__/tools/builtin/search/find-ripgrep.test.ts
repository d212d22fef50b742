import { chmod, mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import { findRipgrep } from '../../../../src/tools/builtin/search/find-ripgrep.js';

describe('findRipgrep', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  async function executable(relative: string): Promise<string> {
    const path = await workspace.write(relative, '#!/bin/sh\n');
    await chmod(path, 0o755);
    return path;
  }

  it('returns the first executable rg on the PATH', async () => {
    await executable('second/rg');
    const first = await executable('first/rg');
    const path = [workspace.path('empty'), workspace.path('first'), workspace.path('second')].join(
      ':',
    );
    expect(findRipgrep(path, 'linux')).toBe(first);
  });

  it('passes over a file that is not executable and a directory named rg', async () => {
    await workspace.write('plain/rg', 'not a program');
    await mkdir(workspace.path('dir/rg'), { recursive: true });
    const found = await executable('good/rg');
    const path = ['plain', 'dir', 'good'].map((name) => workspace.path(name)).join(':');
    expect(findRipgrep(path, 'linux')).toBe(found);
  });

  it('ignores empty and relative PATH entries', async () => {
    await executable('rel/rg');
    expect(findRipgrep(`:rel:./rel`, 'linux')).toBeNull();
  });

  it('returns null without a PATH or without rg on it', () => {
    expect(findRipgrep(undefined, 'linux')).toBeNull();
    expect(findRipgrep('', 'linux')).toBeNull();
    expect(findRipgrep(workspace.root, 'linux')).toBeNull();
  });

  it('looks for rg.exe on Windows', async () => {
    const exe = await executable('win/rg.exe');
    expect(findRipgrep(workspace.path('win'), 'win32')).toBe(exe);
  });
});
