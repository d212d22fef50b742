/**
 * The model provider's credential files (floors.ts 2b): whatever the mode, the rules or a hook
 * say, no tool reads or changes them, and Bash commands that name them are refused too.
 */
import { describe, expect, it } from 'vitest';
import { bashDecisionRequest } from '../helpers/bash-request.js';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { credentialFilePredicate } from '../../src/permissions/credential-files.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionMode, PermissionPolicy } from '../../src/permissions/types.js';

const ROOT = '/home/runner/work/repo/repo';
const CREDS = `${ROOT}/gha-creds-1a2b3c4d5e6f.json`;

function policy(mode: PermissionMode): PermissionPolicy {
  return {
    mode,
    allow: ['Read', 'Grep', 'Edit', 'Write', 'Bash'].map((tool) => parseRule(tool, 'test')),
    deny: [],
    ask: [],
    askDefault: 'allow',
    workspaceRoots: [ROOT],
    isCredentialFile: credentialFilePredicate([CREDS]),
  };
}

function fileTool(toolName: string, access: 'read' | 'edit', path: string): DecisionRequest {
  return {
    toolName,
    aliases: [],
    request: { access, ruleContent: path, paths: [path] },
    readOnly: access === 'read',
    requiresUserInteraction: false,
    projectDir: ROOT,
    homeDir: '/home/runner',
  };
}

function bash(command: string): DecisionRequest {
  return bashDecisionRequest(command, { projectDir: ROOT, homeDir: '/home/runner' });
}

const ATTEMPTS: [string, DecisionRequest][] = [
  ['Read', fileTool('Read', 'read', CREDS)],
  ['Grep on the file', fileTool('Grep', 'read', CREDS)],
  ['Edit', fileTool('Edit', 'edit', CREDS)],
  ['Write', fileTool('Write', 'edit', CREDS)],
  ['cat', bash('cat gha-creds-1a2b3c4d5e6f.json')],
  ['cp to elsewhere', bash(`cp ${CREDS} /tmp/x.json`)],
  ['base64 through a pipe', bash('base64 < gha-creds-1a2b3c4d5e6f.json | head')],
];

describe('decide: the credentials floor', () => {
  for (const mode of ['default', 'acceptEdits', 'bypassPermissions'] as const) {
    it.each(ATTEMPTS)(`refuses %s in ${mode} mode, with everything allowed`, (_, request) => {
      const hook = { behavior: 'allow' as const, source: 'allow-everything.sh' };
      const decision = decide({ ...request, hook }, policy(mode));
      expect(decision).toMatchObject({ behavior: 'deny', source: 'credentials' });
      expect(decision.reason).toContain(CREDS);
      expect(decision.reason).toContain("it holds the model provider's credentials");
    });
  }

  it('leaves the other files of the workspace alone', () => {
    const decision = decide(fileTool('Read', 'read', `${ROOT}/package.json`), policy('default'));
    expect(decision.behavior).toBe('allow');
  });

  it('knows no credential file when none was found', () => {
    expect(credentialFilePredicate([])).toBeUndefined();
  });
});
