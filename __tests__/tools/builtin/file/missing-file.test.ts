import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import {
  findSimilarFile,
  fileNotFoundMessage,
} from '../../../../src/tools/builtin/file/missing-file.js';

describe('findSimilarFile', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('finds a sibling differing in case or extension, and nothing else', async () => {
    await workspace.write('Config.yaml', '');
    await workspace.write('other.txt', '');
    expect(await findSimilarFile(workspace.path('config.yaml'))).toBe(
      workspace.path('Config.yaml'),
    );
    expect(await findSimilarFile(workspace.path('Config.yml'))).toBe(workspace.path('Config.yaml'));
    expect(await findSimilarFile(workspace.path('unrelated.txt'))).toBeUndefined();
  });

  it('gives up quietly when the directory does not exist', async () => {
    expect(await findSimilarFile(workspace.path('no/such/dir/a.txt'))).toBeUndefined();
  });
});

describe('fileNotFoundMessage', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('names the working directory and the suggestion', async () => {
    await workspace.write('A.txt', '');
    expect(await fileNotFoundMessage(workspace.path('a.txt'), '/proj')).toBe(
      `File does not exist. Note: your current working directory is /proj. Did you mean ${workspace.path('A.txt')}?`,
    );
  });
});
