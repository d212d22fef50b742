import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  editPermissionRequest,
  judgedLocation,
} from '../../../../src/tools/builtin/file/file-permission.js';
import { makeContext, makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';

describe('editPermissionRequest', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('asks for the path and where a dangling link in it leads', () => {
    symlinkSync(workspace.path('missing/target.txt'), workspace.path('link.txt'));
    expect(editPermissionRequest({}, 'link.txt', makeContext(workspace))).toEqual({
      access: 'edit',
      ruleContent: workspace.path('link.txt'),
      paths: [workspace.path('link.txt'), workspace.path('missing/target.txt')],
    });
  });
});

describe('judgedLocation', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
    mkdirSync(workspace.path('real'));
    mkdirSync(workspace.path('other'));
    symlinkSync(workspace.path('real'), workspace.path('d'));
  });
  afterEach(() => workspace.cleanup());

  const retarget = () => {
    rmSync(workspace.path('d'));
    symlinkSync(workspace.path('other'), workspace.path('d'));
  };

  it('is where the path led when its input was judged, even after the link changed', () => {
    const input = {};
    editPermissionRequest(input, 'd/f.txt', makeContext(workspace));
    retarget();
    expect(judgedLocation(input, workspace.path('d/f.txt'))).toBe(workspace.path('real/f.txt'));
  });

  it('is where the path leads now for an input never judged, or judged for another path', () => {
    const judged = {};
    editPermissionRequest(judged, 'd/g.txt', makeContext(workspace));
    retarget();
    expect(judgedLocation({}, workspace.path('d/f.txt'))).toBe(workspace.path('other/f.txt'));
    expect(judgedLocation(judged, workspace.path('d/f.txt'))).toBe(workspace.path('other/f.txt'));
  });
});
