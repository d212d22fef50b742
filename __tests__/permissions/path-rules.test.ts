import { mkdirSync, symlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/permissions/decide.js';
import { compilePathPattern, pathRuleReaches } from '../../src/permissions/path-rules.js';
import type { RuleTarget } from '../../src/permissions/rules.js';
import { allowRulesCovering, parseRule, ruleMatches } from '../../src/permissions/rules.js';
import type { PermissionRule } from '../../src/permissions/types.js';
import { editTool } from '../../src/tools/builtin/edit.js';
import { globTool } from '../../src/tools/builtin/glob.js';
import { grepTool } from '../../src/tools/builtin/grep.js';
import { readTool } from '../../src/tools/builtin/read.js';
import type { Tool } from '../../src/tools/tool.js';
import { makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

type Kind = 'allow' | 'deny' | 'ask';
const PROJECT = '/work/repo';
const HOME = '/home/dev';

function target(toolName: string, ...paths: string[]): RuleTarget {
  return {
    toolName,
    aliases: [],
    request: { access: 'read', ruleContent: paths[0], paths },
    projectDir: PROJECT,
    homeDir: HOME,
  };
}

function rule(text: string, anchorDir?: string): PermissionRule {
  return { ...parseRule(text, 'test'), ...(anchorDir ? { anchorDir } : {}) };
}

describe('pathRuleMatches', () => {
  describe('when anchoring', () => {
    // [rule, kind, path, expected]
    const table: Array<[string, Kind, string, boolean]> = [
      // bare and ./ paths: the project directory
      ['Read(.env)', 'deny', `${PROJECT}/.env`, true],
      ['Read(.env)', 'deny', `${PROJECT}/a/b/.env`, true],
      ['Read(.env)', 'deny', `${PROJECT}/.env.local`, false],
      ['Read(.env)', 'deny', `${HOME}/.env`, false],
      ['Read(*.pem)', 'deny', `${PROJECT}/certs/site.pem`, true],
      ['Read(node_modules)', 'deny', `${PROJECT}/pkg/node_modules/x/index.js`, true],
      ['Read(./secret.env)', 'deny', `${PROJECT}/secret.env`, true],
      ['Read(./secret.env)', 'deny', `${PROJECT}/sub/secret.env`, false],
      ['Read(src/*.ts)', 'deny', `${PROJECT}/src/a.ts`, true],
      ['Read(src/*.ts)', 'deny', `${PROJECT}/src/sub/a.ts`, false],
      ['Read(src/*.ts)', 'deny', `${PROJECT}/lib/src/a.ts`, false],
      ['Read(src/**/*.ts)', 'deny', `${PROJECT}/src/a/b/c.ts`, true],
      ['Read(src/**)', 'deny', `${PROJECT}/src/a/b/c.ts`, true],
      ['Read(src)', 'deny', `${PROJECT}/lib/src/a.ts`, true],
      ['Read(src/)', 'deny', `${PROJECT}/src/a.ts`, true],
      ['Read(../shared/**)', 'deny', '/work/shared/notes.md', true],
      ['Read(!keep)', 'deny', `${PROJECT}/other`, false],
      // a single-segment dir/**: any depth to deny or ask, only <project>/dir to allow
      ['Read(secrets/**)', 'deny', `${PROJECT}/pkg/secrets/key`, true],
      ['Read(secrets/**)', 'ask', `${PROJECT}/pkg/secrets/key`, true],
      ['Read(secrets/**)', 'allow', `${PROJECT}/pkg/secrets/key`, false],
      ['Read(secrets/**)', 'allow', `${PROJECT}/secrets/key`, true],
      // //: the filesystem root
      ['Read(//etc/**)', 'deny', '/etc/passwd', true],
      ['Read(//etc/**)', 'deny', `${PROJECT}/etc/passwd`, false],
      ['Read(//tmp/*.log)', 'allow', '/tmp/run.log', true],
      // /: the rule's source directory, else the project
      ['Read(/etc/**)', 'deny', `${PROJECT}/etc/passwd`, true],
      ['Read(/etc/**)', 'deny', '/etc/passwd', false],
      // ~/: the home directory
      ['Read(~/.ssh/**)', 'deny', `${HOME}/.ssh/id_ed25519`, true],
      ['Read(~/.ssh/**)', 'deny', `${PROJECT}/.ssh/id_ed25519`, false],
      ['Read(~/.aws)', 'deny', `${HOME}/.aws/credentials`, true],
      ['Read(~)', 'deny', `${HOME}/anything`, true],
      // * stays within a segment and matches dotfiles
      ['Read(config/*)', 'deny', `${PROJECT}/config/.hidden`, true],
    ];
    it.each(table)('%s as %s reaches %s → %s', (text, kind, path, expected) => {
      expect(ruleMatches(rule(text), target('Read', path), kind)).toBe(expected);
    });

    it('anchors /path at the directory of the settings source', () => {
      const fromUser = rule('Read(/notes/**)', `${HOME}/.claude`);
      expect(ruleMatches(fromUser, target('Read', `${HOME}/.claude/notes/a.md`), 'deny')).toBe(
        true,
      );
      expect(ruleMatches(fromUser, target('Read', `${PROJECT}/notes/a.md`), 'deny')).toBe(false);
    });

    it('never allows, and always denies, when the anchor directory is unknown', () => {
      const unanchored: RuleTarget = {
        ...target('Read', `${PROJECT}/.env`),
        projectDir: undefined,
      };
      expect(ruleMatches(rule('Read(.env)'), unanchored, 'allow')).toBe(false);
      expect(ruleMatches(rule('Read(other)'), unanchored, 'deny')).toBe(true);
      const homeless: RuleTarget = { ...target('Read', `${HOME}/x`), homeDir: undefined };
      expect(ruleMatches(rule('Read(~/x)'), homeless, 'allow')).toBe(false);
      expect(ruleMatches(rule('Read(//x)'), homeless, 'allow')).toBe(false);
      expect(ruleMatches(rule('Read(//home/dev/x)'), homeless, 'allow')).toBe(true);
    });

    it('never allows, and always denies, a request without a path', () => {
      const pathless: RuleTarget = { ...target('Read'), request: { access: 'read' } };
      expect(ruleMatches(rule('Read(**)'), pathless, 'allow')).toBe(false);
      expect(ruleMatches(rule('Read(.env)'), pathless, 'deny')).toBe(true);
    });
  });

  describe('when the rule and the call are different file tools', () => {
    const table: Array<[string, Kind, string, boolean]> = [
      ['Edit(src/**)', 'allow', 'Read', true],
      ['Edit(src/**)', 'allow', 'Grep', true],
      ['Read(src/**)', 'allow', 'Edit', false],
      ['Read(src/**)', 'deny', 'Edit', true],
      ['Read(src/**)', 'deny', 'Write', true],
      ['Read(src/**)', 'ask', 'NotebookEdit', true],
      ['Edit(src/**)', 'deny', 'Read', false],
      ['Edit(src/**)', 'deny', 'Write', true],
      ['Edit(src/**)', 'deny', 'NotebookEdit', true],
      ['Read(src/**)', 'deny', 'Bash', false],
      ['Write(src/**)', 'deny', 'Write', false],
    ];
    it.each(table)('%s as %s reaches %s → %s', (text, kind, tool, expected) => {
      expect(ruleMatches(rule(text), target(tool, `${PROJECT}/src/a.ts`), kind)).toBe(expected);
    });
  });

  describe('when the call searches a directory', () => {
    const table: Array<[string, Kind, string, string, boolean]> = [
      ['Read(.env)', 'deny', 'Grep', PROJECT, false],
      ['Read(.env)', 'deny', 'Grep', `${PROJECT}/.env`, true],
      ['Read(src/**)', 'deny', 'Glob', `${PROJECT}/src`, true],
      ['Read(src/*)', 'deny', 'Glob', `${PROJECT}/src`, true],
      ['Read(src/*.ts)', 'deny', 'Glob', `${PROJECT}/src`, false],
      ['Read(src)', 'deny', 'Glob', `${PROJECT}/src/deep`, true],
      ['Read(src/**)', 'deny', 'Glob', PROJECT, false],
      ['Read(**)', 'deny', 'Glob', PROJECT, true],
      ['Read(src/**)', 'allow', 'Glob', `${PROJECT}/src`, true],
      ['Read(src/**)', 'allow', 'Glob', PROJECT, false],
      ['Read(//tmp/**)', 'allow', 'Grep', '/tmp', true],
    ];
    it.each(table)('%s as %s reaches %s in %s → %s', (text, kind, tool, path, expected) => {
      expect(ruleMatches(rule(text), target(tool, path), kind)).toBe(expected);
    });
  });
});

describe('pathRuleReaches', () => {
  it.each([
    ['Read', 'Read', 'allow', true],
    ['Read', 'Glob', 'deny', true],
    ['Read', 'Edit', 'allow', false],
    ['Read', 'Edit', 'deny', true],
    ['Edit', 'Read', 'allow', true],
    ['Edit', 'Read', 'ask', false],
    ['Edit', 'Bash', 'deny', false],
    ['Write', 'Write', 'deny', false],
  ] as const)('%s rules as %s reach %s → %s', (ruleTool, targetTool, kind, expected) => {
    expect(pathRuleReaches(ruleTool, targetTool, kind)).toBe(expected);
  });
});

describe('compilePathPattern', () => {
  it.each([
    ['.env', false, { anchor: 'project', up: 0, glob: '**/.env' }],
    ['./.env', false, { anchor: 'project', glob: '.env' }],
    ['a/b', false, { anchor: 'project', glob: 'a/b' }],
    ['dir/**', true, { glob: 'dir/**' }],
    ['dir/**', false, { glob: '**/dir/**' }],
    ['//etc/x', false, { anchor: 'root', glob: 'etc/x' }],
    ['~/.ssh/', false, { anchor: 'home', glob: '.ssh' }],
    ['/build', false, { anchor: 'source', glob: 'build' }],
    ['../../x/./y', false, { anchor: 'project', up: 2, glob: 'x/y' }],
    ['//', false, { anchor: 'root', glob: '' }],
  ] as const)('%j (for allow: %s) → %o', (specifier, forAllow, expected) => {
    expect(compilePathPattern(specifier, forAllow)).toMatchObject(expected);
  });
});

describe('path rules on real files', () => {
  let workspace: Workspace;
  let outside: Workspace;

  beforeAll(async () => {
    workspace = makeWorkspace('ci-agent-path-rules-');
    outside = makeWorkspace('ci-agent-path-outside-');
    await workspace.write('.env', 'TOKEN=1\n');
    await workspace.write('src/a.ts', 'export {};\n');
    await outside.write('secret.txt', 'secret\n');
    mkdirSync(workspace.path('docs'));
    symlinkSync(workspace.path('.env'), workspace.path('docs/env.md'));
    symlinkSync(outside.path('secret.txt'), workspace.path('src/notes.ts'));
    symlinkSync(workspace.path('src/a.ts'), workspace.path('docs/a.md'));
  });

  afterAll(() => {
    workspace.cleanup();
    outside.cleanup();
  });

  function request(tool: Tool, input: Record<string, unknown>): RuleTarget {
    const context = makeContext(workspace);
    return {
      toolName: tool.name,
      aliases: tool.aliases,
      request: tool.checkPermissions(tool.inputSchema.parse(input), context),
      projectDir: workspace.root,
      homeDir: outside.root,
    };
  }
  const read = (filePath: string) => request(readTool, { file_path: filePath });

  it('denies src/../.env by Read(.env): the model path is normalised first', () => {
    expect(ruleMatches(rule('Read(.env)'), read('src/../.env'), 'deny')).toBe(true);
    expect(ruleMatches(rule('Read(.env)'), read(`${workspace.root}/src/../.env`), 'deny')).toBe(
      true,
    );
  });

  it('denies a link whose target a deny rule names, and a link a deny rule names', () => {
    expect(ruleMatches(rule('Read(.env)'), read('docs/env.md'), 'deny')).toBe(true);
    expect(ruleMatches(rule('Read(docs/*.md)'), read('docs/env.md'), 'deny')).toBe(true);
    expect(ruleMatches(rule('Read(docs/*.md)'), read('.env'), 'deny')).toBe(false);
  });

  it('allows a link only when both the link and its target are allowed', () => {
    expect(ruleMatches(rule('Read(docs/**)'), read('docs/env.md'), 'allow')).toBe(false);
    expect(ruleMatches(rule('Read(docs/**)'), read('docs/a.md'), 'allow')).toBe(false);
    expect(ruleMatches(rule('Read(**/*)'), read('docs/a.md'), 'allow')).toBe(true);
    const both = [rule('Read(docs/**)'), rule('Read(src/**)')];
    expect(allowRulesCovering(both, read('docs/a.md'))).toEqual(both);
    expect(allowRulesCovering(both, read('docs/env.md'))).toEqual([]);
  });

  it('denies a link inside the workspace that points at a denied file outside it', () => {
    const outsideRule = rule(`Read(/${outside.root}/**)`);
    expect(ruleMatches(outsideRule, read('src/notes.ts'), 'deny')).toBe(true);
    expect(ruleMatches(rule('Read(~/secret.txt)'), read('src/notes.ts'), 'deny')).toBe(true);
    expect(ruleMatches(rule('Read(src/**)'), read('src/notes.ts'), 'allow')).toBe(false);
  });

  it('denies an edit through a link to a file a Read rule denies', () => {
    const edit = request(editTool, { file_path: 'docs/env.md', old_string: 'a', new_string: 'b' });
    expect(ruleMatches(rule('Read(.env)'), edit, 'deny')).toBe(true);
  });

  it('lets a search of a directory through a deny on a file inside it, not on the directory', () => {
    const glob = request(globTool, { pattern: '**/*', path: 'src' });
    expect(ruleMatches(rule('Read(.env)'), glob, 'deny')).toBe(false);
    expect(ruleMatches(rule('Read(src/**)'), glob, 'deny')).toBe(true);
    const grep = request(grepTool, { pattern: 'TOKEN', path: '.env' });
    expect(ruleMatches(rule('Read(.env)'), grep, 'deny')).toBe(true);
  });

  it('turns the match into a denial in decide()', () => {
    const decision = decide(
      { ...read('src/../.env'), readOnly: true, requiresUserInteraction: false },
      {
        mode: 'default',
        allow: [],
        deny: [rule('Read(.env)')],
        ask: [],
        askDefault: 'deny',
        workspaceRoots: [workspace.root],
      },
    );
    expect(decision).toMatchObject({ behavior: 'deny', source: 'deny-rule' });
  });
});
