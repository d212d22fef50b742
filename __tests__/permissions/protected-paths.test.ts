import { describe, expect, it } from 'vitest';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { protectedPaths } from '../../src/permissions/protected-paths.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';

const ROOT = '/work/repo';

function policy(overrides: Partial<PermissionPolicy> = {}): PermissionPolicy {
  return {
    mode: 'acceptEdits',
    allow: [parseRule('Edit', 'test'), parseRule('Write', 'test')],
    deny: [],
    ask: [],
    askDefault: 'allow',
    workspaceRoots: [ROOT],
    ...overrides,
  };
}

function edit(relativePath: string, hook?: DecisionRequest['hook']): DecisionRequest {
  const path = `${ROOT}/${relativePath}`;
  return {
    toolName: 'Edit',
    aliases: [],
    request: { access: 'edit', ruleContent: path, paths: [path] },
    readOnly: false,
    requiresUserInteraction: false,
    ...(hook && { hook }),
  };
}

describe('protectedPaths', () => {
  it.each([
    '.git/config',
    '.git/hooks/pre-push',
    'sub/module/.git/config',
    '.GIT/config',
    '.claude/settings.json',
    '.husky/pre-commit',
    '.vscode/settings.json',
    '.idea/workspace.xml',
    '.devcontainer/devcontainer.json',
    '.gitmodules',
    'tools/.npmrc',
    '.mcp.json',
    '.bashrc',
  ])('protects %s', (path) => {
    expect(protectedPaths([`${ROOT}/${path}`], [ROOT])).toEqual([`${ROOT}/${path}`]);
  });

  it.each([
    'src/a.ts',
    '.gitignore',
    '.github/workflows/ci.yml',
    '.claude/worktrees/w/a.ts',
    'git/config',
  ])('leaves %s alone', (path) => {
    expect(protectedPaths([`${ROOT}/${path}`], [ROOT])).toEqual([]);
  });

  it('reads a path from its workspace root: a protected name above the workspace does not count', () => {
    const root = '/home/me/.idea/project';
    expect(protectedPaths([`${root}/src/a.ts`], [root])).toEqual([]);
    expect(protectedPaths([`${root}/.idea/a.xml`], [root])).toEqual([`${root}/.idea/a.xml`]);
  });

  it('judges a path outside every root by its whole path', () => {
    expect(protectedPaths(['/home/me/.bashrc', '/home/me/notes.txt'], [ROOT])).toEqual([
      '/home/me/.bashrc',
    ]);
  });
});

describe('decide on a protected path', () => {
  it('refuses the change although acceptEdits, an allow rule and an allow answer to asks would allow it', () => {
    const decision = decide(edit('.git/hooks/post-commit'), policy());
    expect(decision).toMatchObject({
      behavior: 'deny',
      source: 'protected-path',
      askResolved: false,
      matchedRules: [],
    });
    expect(decision.reason).toBe(
      `Edit would change ${ROOT}/.git/hooks/post-commit: a protected path (git, Claude Code, editor and shell configuration); only bypassPermissions mode allows that in CI`,
    );
  });

  it("refuses it whatever a PreToolUse hook's allow says", () => {
    const decision = decide(
      edit('.vscode/settings.json', { behavior: 'allow', source: 'approve.sh' }),
      policy(),
    );
    expect(decision).toMatchObject({ behavior: 'deny', source: 'protected-path' });
  });

  it('refuses it in dontAsk and default mode too, and allows it in bypassPermissions', () => {
    expect(decide(edit('.vscode/settings.json'), policy({ mode: 'dontAsk' })).source).toBe(
      'protected-path',
    );
    expect(decide(edit('.vscode/settings.json'), policy({ mode: 'default' })).behavior).toBe(
      'deny',
    );
    expect(
      decide(edit('.vscode/settings.json'), policy({ mode: 'bypassPermissions' })),
    ).toMatchObject({ behavior: 'allow', source: 'mode' });
  });

  it('leaves a deny rule its own reason, and other files to the usual order', () => {
    const denied = decide(
      edit('.git/config'),
      policy({ deny: [parseRule('Edit(.git/**)', 'policy.yml')] }),
    );
    expect(denied).toMatchObject({ behavior: 'deny', source: 'deny-rule' });
    expect(decide(edit('src/a.ts'), policy())).toMatchObject({ behavior: 'allow', source: 'mode' });
  });

  it('refuses a command that writes a protected file, though a rule allows the command', () => {
    const request: DecisionRequest = {
      toolName: 'Bash',
      aliases: [],
      request: {
        access: 'execute',
        ruleContent: 'echo x > .git/hooks/pre-push',
        fileOperands: [{ path: `${ROOT}/.git/hooks/pre-push`, access: 'write' }],
      },
      commandParts: ['echo x > .git/hooks/pre-push'],
      readOnly: false,
      requiresUserInteraction: false,
    };
    const decision = decide(request, policy({ allow: [parseRule('Bash(echo:*)', 'test')] }));
    expect(decision).toMatchObject({ behavior: 'deny', source: 'protected-path' });
    const reading: DecisionRequest = {
      ...request,
      request: {
        access: 'read',
        ruleContent: 'cat .git/config',
        fileOperands: [{ path: `${ROOT}/.git/config`, access: 'read' }],
      },
      commandParts: ['cat .git/config'],
      readOnly: true,
    };
    expect(decide(reading, policy())).toMatchObject({ behavior: 'allow' });
  });
});
