/**
 * Critical removals: the real Bash tool's permission request for `rm`, `rmdir` and `unlink`, decided
 * in bypassPermissions mode with an allow-all rule, where everything else is allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/permissions/decide.js';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionMode, PermissionPolicy } from '../../src/permissions/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

let workspace: Workspace;
let home: Workspace;

beforeAll(() => {
  workspace = makeWorkspace('ci-agent-critical-');
  home = makeWorkspace('ci-agent-critical-home-');
});
afterAll(() => {
  workspace.cleanup();
  home.cleanup();
});

function decideFor(command: string, mode: PermissionMode = 'bypassPermissions') {
  const context = makeContext(workspace, {
    env: { PATH: process.env.PATH ?? '', HOME: home.root },
  });
  const input: unknown = bashTool.inputSchema.parse({ command });
  const request: DecisionRequest = {
    toolName: 'Bash',
    aliases: [],
    request: bashTool.checkPermissions(input, context),
    projectDir: workspace.root,
    homeDir: home.root,
    readOnly: bashTool.isReadOnly(input),
    requiresUserInteraction: false,
  };
  const policy: PermissionPolicy = {
    mode,
    allow: [parseRule('Bash', 'test')],
    deny: [],
    ask: [],
    askDefault: 'allow',
    workspaceRoots: [workspace.root],
  };
  return decide(request, policy);
}

describe('critical removals', () => {
  it.each([
    'rm -rf /',
    'rm -rf /usr',
    'sudo rm -rf /home',
    'rm -rf ~',
    'rm -rf $HOME',
    'rm -rf "${HOME}"',
    'rm -rf ~/*',
    'rm -rf .',
    'rm -rf ..',
    'cd src && rm -rf ../..',
    'rmdir /tmp',
    'rm -rf "$BUILD_DIR"/*',
    'echo cleaning && rm -rf /*',
  ])('refuses %j even in bypassPermissions', (command) => {
    const decision = decideFor(command);
    expect(decision).toMatchObject({
      behavior: 'deny',
      source: 'critical-path',
      askResolved: false,
    });
    expect(decision.reason).toContain('a critical path');
  });

  it.each([
    'rm -rf node_modules',
    'rm -rf ./dist/*',
    'rm -f "$TMPFILE"',
    'rm -rf "$BUILD_DIR"/cache',
    'rm -rf ~/.cache/npm',
    'rm -rf /tmp/ci-agent-build',
    'echo / && ls /',
  ])('leaves %j to the mode', (command) => {
    expect(decideFor(command)).toMatchObject({ behavior: 'allow', source: 'mode' });
  });

  it('names the targets in the reason, as resolved paths', () => {
    expect(decideFor('rm -rf .').reason).toBe(
      `Bash would remove ${workspace.root}: a critical path (the root, a top-level directory, the home or project directory or a parent of it, or a recursive removal of what is named only at run time, such as \`rm -rf "$DIR"\` or \`rm -rf "$DIR"/*\`, which is the root or the home when the variable is); nothing allows that in CI. To remove a build or scratch directory, name the directory to remove literally (\`rm -rf build\`)`,
    );
    expect(decideFor('rm -rf $HOME', 'acceptEdits').reason).toContain(`remove ${home.root}:`);
  });
});
