import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { editTool } from '../../src/tools/builtin/edit.js';
import { notebookEditTool } from '../../src/tools/builtin/notebook-edit.js';
import { writeTool } from '../../src/tools/builtin/write.js';
import type { Tool } from '../../src/tools/tool.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

/** Every file and link under `root` with its content or target, read without following links. */
function snapshot(root: string, dir = root): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = lstatSync(path);
    if (info.isSymbolicLink()) entries[path] = `-> ${readlinkSync(path)}`;
    else if (info.isDirectory()) Object.assign(entries, { [path]: 'dir' }, snapshot(root, path));
    else entries[path] = readFileSync(path, 'utf8');
  }
  return entries;
}

interface Scenario {
  name: string;
  /** Relative to the workspace: what the model names. */
  path: string;
  setup(inside: Workspace, outside: Workspace): Promise<void> | void;
  /** What the refusal says: the last component is a link, or the path leads outside. */
  refusal: RegExp;
}

const LINK = /is a symbolic link \(to .*\), and files are not written through links/;
const OUTSIDE = /may not change files outside the workspace/;

const scenarios: Scenario[] = [
  {
    name: 'a dangling link to a file outside',
    path: 'notes.ipynb',
    setup: (inside, outside) =>
      symlinkSync(outside.path('created.ipynb'), inside.path('notes.ipynb')),
    refusal: LINK,
  },
  {
    name: 'a dangling link to a protected name outside (~/.npmrc)',
    path: 'docs/setup.ipynb',
    setup: (inside, outside) => {
      mkdirSync(inside.path('docs'));
      symlinkSync(outside.path('.npmrc'), inside.path('docs/setup.ipynb'));
    },
    refusal: LINK,
  },
  {
    name: 'a link to an existing file outside',
    path: 'link.ipynb',
    setup: async (inside, outside) => {
      symlinkSync(await outside.write('target.ipynb', 'original\n'), inside.path('link.ipynb'));
    },
    refusal: LINK,
  },
  {
    name: 'a link to a file inside',
    path: 'link.ipynb',
    setup: async (inside) => {
      symlinkSync(await inside.write('target.ipynb', 'original\n'), inside.path('link.ipynb'));
    },
    refusal: LINK,
  },
  {
    name: 'a link to a protected file inside (.git/hooks/x)',
    path: 'hook.ipynb',
    setup: (inside) => {
      mkdirSync(inside.path('.git/hooks'), { recursive: true });
      symlinkSync('.git/hooks/x', inside.path('hook.ipynb'));
    },
    refusal: LINK,
  },
  {
    name: 'a directory on the way that is a link to outside',
    path: 'sub/new.ipynb',
    setup: (inside, outside) => symlinkSync(outside.root, inside.path('sub')),
    refusal: OUTSIDE,
  },
  {
    name: 'a directory on the way that is a dangling link to outside',
    path: 'sub/new.ipynb',
    setup: (inside, outside) => symlinkSync(outside.path('later'), inside.path('sub')),
    refusal: OUTSIDE,
  },
];

const tools: { name: string; tool: Tool; input: (path: string) => Record<string, unknown> }[] = [
  { name: 'Write', tool: writeTool, input: (path) => ({ file_path: path, content: 'pwned\n' }) },
  {
    name: 'Edit',
    tool: editTool,
    input: (path) => ({ file_path: path, old_string: '', new_string: 'pwned\n' }),
  },
  {
    name: 'NotebookEdit',
    tool: notebookEditTool,
    input: (path) => ({
      notebook_path: path,
      new_source: 'pwned',
      cell_type: 'code',
      edit_mode: 'insert',
    }),
  },
];

const editRules = ['Edit', 'Write', 'NotebookEdit'].map((text) => parseRule(text, 'settings.json'));
const policies: [string, Partial<PermissionPolicy>][] = [
  ['default mode, asks resolved to allow', { mode: 'default', askDefault: 'allow' }],
  ['acceptEdits mode', { mode: 'acceptEdits' }],
  ['default mode with allow rules for the edit tools', { mode: 'default', allow: editRules }],
  ['bypassPermissions mode', { mode: 'bypassPermissions' }],
];

describe('executeSingleToolUse with file tools and symbolic links', () => {
  let inside: Workspace;
  let outside: Workspace;

  beforeEach(() => {
    inside = makeWorkspace('ci-agent-write-links-');
    outside = makeWorkspace('ci-agent-outside-');
  });
  afterEach(() => {
    inside.cleanup();
    outside.cleanup();
  });

  describe.each(policies)('in %s', (_, policy) => {
    describe.each(scenarios)('through $name', (scenario) => {
      it.each(tools)(
        'refuses $name and leaves both sides as they were',
        async ({ tool, input }) => {
          await scenario.setup(inside, outside);
          const before = { ...snapshot(inside.root), ...snapshot(outside.root) };
          const { deps } = makePipeline([tool], { root: inside.root, policy });
          const outcome = await executeSingleToolUse(
            {
              type: 'tool_use',
              id: 'toolu_1',
              name: tool.name,
              input: input(inside.path(scenario.path)),
            },
            deps,
            new AbortController().signal,
          );
          expect(outcome.result.is_error).toBe(true);
          // An invalid call the policy refuses anyway gets the policy's refusal (where the link
          // leads: outside, or a protected path); otherwise the tool's own.
          const refusal =
            outcome.stage === 'permission'
              ? /may not change files outside the workspace|a protected path/
              : tool !== notebookEditTool || scenario.refusal === LINK
                ? scenario.refusal
                : /File does not exist/;
          expect(JSON.stringify(outcome.result.content)).toMatch(refusal);
          expect({ ...snapshot(inside.root), ...snapshot(outside.root) }).toEqual(before);
        },
      );
    });
  });
});

describe('executeSingleToolUse with Write through a directory link that stays inside', () => {
  let inside: Workspace;
  beforeEach(() => {
    inside = makeWorkspace('ci-agent-write-links-');
  });
  afterEach(() => inside.cleanup());

  it('writes into the directory the link leads to', async () => {
    mkdirSync(inside.path('packages/core/src'), { recursive: true });
    symlinkSync('packages/core/src', inside.path('src'));
    const { deps } = makePipeline([writeTool], {
      root: inside.root,
      policy: { mode: 'acceptEdits' },
    });
    const outcome = await executeSingleToolUse(
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'Write',
        input: { file_path: inside.path('src/new/a.ts'), content: 'x\n' },
      },
      deps,
      new AbortController().signal,
    );
    expect(outcome.result.is_error).toBeFalsy();
    expect(readFileSync(inside.path('packages/core/src/new/a.ts'), 'utf8')).toBe('x\n');
  });
});

describe('decide on an edit through a symbolic link', () => {
  let inside: Workspace;
  let outside: Workspace;

  beforeEach(() => {
    inside = makeWorkspace('ci-agent-write-links-');
    outside = makeWorkspace('ci-agent-outside-');
  });
  afterEach(() => {
    inside.cleanup();
    outside.cleanup();
  });

  /** The decision alone, as the policy would take it on Write's own permission request. */
  const decision = (path: string, policy: Partial<PermissionPolicy>) => {
    const input = { file_path: path, content: 'x' };
    const full: PermissionPolicy = {
      mode: 'acceptEdits',
      allow: [],
      deny: [],
      ask: [],
      askDefault: 'allow',
      workspaceRoots: [inside.root],
      ...policy,
    };
    return decide(
      {
        toolName: 'Write',
        aliases: [],
        request: writeTool.checkPermissions(input, makeContext(inside)),
        projectDir: inside.root,
        homeDir: homedir(),
        readOnly: false,
        requiresUserInteraction: false,
      },
      full,
    );
  };

  it.each(policies.filter(([name]) => !name.startsWith('bypass')))(
    'sees a dangling link to outside, and links to protected files inside, for what they are, in %s',
    (_, policy) => {
      symlinkSync(outside.path('created.txt'), inside.path('notes.md'));
      mkdirSync(inside.path('.git/hooks'), { recursive: true });
      symlinkSync('.git/hooks/pre-commit', inside.path('hook.md'));
      expect(decision(inside.path('notes.md'), policy)).toMatchObject({
        behavior: 'deny',
        source: 'workspace',
      });
      const hook = decision(inside.path('hook.md'), policy);
      expect(hook).toMatchObject({ behavior: 'deny', source: 'protected-path' });
      expect(hook.reason).toContain(inside.path('.git/hooks/pre-commit'));
      symlinkSync('.git', inside.path('cfg'));
      const throughDirectory = decision(inside.path('cfg/hooks/post-checkout'), policy);
      expect(throughDirectory).toMatchObject({ behavior: 'deny', source: 'protected-path' });
    },
  );
});
