import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReadFile } from '../../src/policy/load-policy.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { PolicyError } from '../../src/policy/policy-error.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

let project: Workspace;
let home: Workspace;

beforeEach(() => {
  project = makeWorkspace('ci-agent-policy-');
  home = makeWorkspace('ci-agent-home-');
});
afterEach(() => {
  project.cleanup();
  home.cleanup();
});

const settings = (content: unknown) => JSON.stringify(content);

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as PolicyError).message;
  }
  throw new Error('expected loadPolicy to fail');
}

describe('loadPolicy', () => {
  describe('when the project has no policy and no settings', () => {
    it('loads an empty policy whose asks resolve to deny', async () => {
      const policy = await loadPolicy({ projectDir: project.root });

      expect(policy.sources).toEqual([]);
      expect(policy.permissions).toEqual({
        allow: [],
        deny: [],
        ask: [],
        additionalDirectories: [],
      });
      expect(policy.askResolution).toEqual({ default: 'deny', byTool: {} });
      expect(policy.hooks).toEqual({});
      expect(policy.warnings).toEqual([]);
    });
  });

  describe('when the project has a policy and settings files', () => {
    it('reads the policy and both project settings files, anchoring each as Claude Code does', async () => {
      const cwd = join(project.root, 'packages', 'app');
      mkdirSync(cwd, { recursive: true });
      await project.write('.github/ci-agent.yml', 'permissions:\n  deny: ["Read(/secrets/**)"]\n');
      await project.write(
        '.claude/settings.json',
        settings({ permissions: { allow: ['Read(/src/**)'] } }),
      );
      await project.write(
        '.claude/settings.local.json',
        settings({ permissions: { ask: ['Read(/tmp/**)'] } }),
      );

      const policy = await loadPolicy({ projectDir: project.root, cwd });

      expect(policy.sources).toEqual([
        { path: '.github/ci-agent.yml', kind: 'policy' },
        { path: '.claude/settings.local.json', kind: 'local' },
        { path: '.claude/settings.json', kind: 'project' },
      ]);
      expect(policy.permissions.deny).toEqual([
        expect.objectContaining({ source: '.github/ci-agent.yml', anchorDir: project.root }),
      ]);
      expect(policy.permissions.allow).toEqual([
        expect.objectContaining({ source: '.claude/settings.json', anchorDir: project.root }),
      ]);
      expect(policy.permissions.ask).toEqual([
        expect.objectContaining({ source: '.claude/settings.local.json', anchorDir: cwd }),
      ]);
    });

    it('lets the policy file set defaultMode over the settings files', async () => {
      await project.write('.github/ci-agent.yml', 'permissions: { defaultMode: plan }\n');
      await project.write(
        '.claude/settings.json',
        settings({ permissions: { defaultMode: 'bypassPermissions' } }),
      );

      const policy = await loadPolicy({ projectDir: project.root });

      expect(policy.permissions.defaultMode).toBe('plan');
      expect(policy.permissions.defaultModeSource).toBe('.github/ci-agent.yml');
    });

    it('resolves additional directories against the project root', async () => {
      await project.write(
        '.github/ci-agent.yml',
        'permissions: { additionalDirectories: [../shared] }\n',
      );
      const policy = await loadPolicy({ projectDir: project.root });
      expect(policy.permissions.additionalDirectories).toEqual([
        join(project.root, '..', 'shared'),
      ]);
    });

    it('collects the warnings of the settings files', async () => {
      await project.write('.claude/settings.json', settings({ model: 'opus' }));
      const policy = await loadPolicy({ projectDir: project.root });
      expect(policy.warnings).toEqual([
        expect.stringContaining('.claude/settings.json:1:2: model: ignored'),
      ]);
    });
  });

  describe('the digests of its sources', () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

    it('gives each file read the SHA-256 of its text, in the order of the sources', async () => {
      const policyText = 'limits: { maxTurns: 3 }\n';
      const settingsText = settings({ permissions: { allow: ['Read'] } });
      await project.write('.github/ci-agent.yml', policyText);
      await project.write('.claude/settings.json', settingsText);
      const policy = await loadPolicy({ projectDir: project.root, settingsArgs: ['{}'] });
      expect(policy.sourceDigests).toEqual([
        { path: '.github/ci-agent.yml', kind: 'policy', sha256: sha256(policyText) },
        { path: '--settings', kind: 'flag', sha256: sha256('{}') },
        { path: '.claude/settings.json', kind: 'project', sha256: sha256(settingsText) },
      ]);
    });

    it('changes when one byte of a file changes', async () => {
      await project.write('.github/ci-agent.yml', 'limits: { maxTurns: 3 }\n');
      const before = await loadPolicy({ projectDir: project.root });
      await project.write('.github/ci-agent.yml', 'limits: { maxTurns: 4 }\n');
      const after = await loadPolicy({ projectDir: project.root });
      expect(after.sourceDigests?.[0]?.sha256).not.toBe(before.sourceDigests?.[0]?.sha256);
    });

    it('is empty without sources', async () => {
      expect((await loadPolicy({ projectDir: project.root })).sourceDigests).toEqual([]);
    });
  });

  describe('finding the policy file', () => {
    it.each(['.github/ci-agent.yaml', '.github/ci-agent.json'])('finds it at %s', async (path) => {
      await project.write(path, '{"limits": {"maxTurns": 3}}');
      const policy = await loadPolicy({ projectDir: project.root });
      expect(policy.sources).toEqual([{ path, kind: 'policy' }]);
      expect(policy.limits).toEqual({ maxTurns: 3 });
    });

    it('refuses two policy files, which would leave a reader unsure which one applies', async () => {
      await project.write('.github/ci-agent.yml', 'limits: { maxTurns: 3 }\n');
      await project.write('.github/ci-agent.json', '{}');
      expect(await rejection(loadPolicy({ projectDir: project.root }))).toBe(
        '.github/ci-agent.yml, .github/ci-agent.json: more than one policy file; keep one',
      );
    });

    it('reads a policy file named explicitly, relative to the working directory', async () => {
      await project.write('ci/agent.yml', 'limits: { maxTurns: 9 }\n');
      const policy = await loadPolicy({
        projectDir: project.root,
        cwd: project.path('ci'),
        policyPath: 'agent.yml',
      });
      expect(policy.sources).toEqual([{ path: 'ci/agent.yml', kind: 'policy' }]);
      expect(policy.limits).toEqual({ maxTurns: 9 });
    });

    it('fails when a policy file named explicitly does not exist', async () => {
      expect(
        await rejection(loadPolicy({ projectDir: project.root, policyPath: 'ci/agent.yml' })),
      ).toBe('ci/agent.yml: no such file; it is named by the policy option');
    });

    it('reports a bad policy file with its path inside the project', async () => {
      await project.write('.github/ci-agent.yml', 'limits:\n  maxTurns: many\n');
      expect(await rejection(loadPolicy({ projectDir: project.root }))).toBe(
        '.github/ci-agent.yml:2:13: limits.maxTurns: expected a positive whole number, got "many"',
      );
    });
  });

  describe('choosing the settings files', () => {
    it('reads none of them when the policy says "settings: false", however broken they are', async () => {
      await project.write('.github/ci-agent.yml', 'settings: false\n');
      await project.write('.claude/settings.json', '{ not json');

      const policy = await loadPolicy({ projectDir: project.root });

      expect(policy.sources).toEqual([{ path: '.github/ci-agent.yml', kind: 'policy' }]);
    });

    it('reads only the files the policy lists', async () => {
      await project.write('.github/ci-agent.yml', 'settings: [config/claude.json]\n');
      await project.write('config/claude.json', settings({ permissions: { deny: ['Read(/x)'] } }));
      await project.write('.claude/settings.json', settings({ permissions: { allow: ['Bash'] } }));

      const policy = await loadPolicy({ projectDir: project.root });

      expect(policy.permissions.allow).toEqual([]);
      expect(policy.permissions.deny).toEqual([
        expect.objectContaining({ source: 'config/claude.json', anchorDir: project.root }),
      ]);
    });

    it('fails when a file the policy lists does not exist', async () => {
      await project.write('.github/ci-agent.yml', 'settings: [.claude/settings.json]\n');
      expect(await rejection(loadPolicy({ projectDir: project.root }))).toBe(
        '.claude/settings.json: no such file; it is named by the "settings" list of .github/ci-agent.yml',
      );
    });

    it('names the file and position of a settings file that is not valid JSON', async () => {
      await project.write('.claude/settings.json', '{\n  "permissions": {\n}');
      expect(await rejection(loadPolicy({ projectDir: project.root }))).toBe(
        '.claude/settings.json:3:2: invalid JSON: expected "," or "}", found the end of the file',
      );
    });

    it('reports the problems of all settings files together', async () => {
      await project.write('.claude/settings.json', settings({ permissions: { deny: ['Bash('] } }));
      await project.write('.claude/settings.local.json', '[');

      const message = await rejection(loadPolicy({ projectDir: project.root }));

      expect(message).toContain('.claude/settings.local.json:1:2: invalid JSON');
      expect(message).toContain(
        '.claude/settings.json:1:25: permissions.deny[0]: invalid permission rule',
      );
    });
  });

  describe('--settings', () => {
    it('reads a value starting with "{" as JSON, anchored to the working directory', async () => {
      const policy = await loadPolicy({
        projectDir: project.root,
        cwd: home.root,
        settingsArgs: [' {"permissions": {"deny": ["Read(/etc/**)"], "defaultMode": "dontAsk"}}'],
      });

      expect(policy.sources).toEqual([{ path: '--settings', kind: 'flag' }]);
      expect(policy.permissions.deny).toEqual([
        expect.objectContaining({ source: '--settings', anchorDir: home.root }),
      ]);
      expect(policy.permissions.defaultMode).toBe('dontAsk');
    });

    it('reads any other value as a file relative to the working directory, anchored to its directory', async () => {
      const file = await home.write(
        'conf/ci.json',
        settings({ permissions: { allow: ['Read(/notes/**)'] } }),
      );

      const policy = await loadPolicy({
        projectDir: project.root,
        cwd: home.root,
        settingsArgs: ['conf/ci.json'],
      });

      expect(policy.sources).toEqual([{ path: file, kind: 'flag' }]);
      expect(policy.permissions.allow).toEqual([
        expect.objectContaining({ source: file, anchorDir: home.path('conf') }),
      ]);
    });

    it('fails when the named file does not exist', async () => {
      expect(
        await rejection(loadPolicy({ projectDir: project.root, settingsArgs: ['missing.json'] })),
      ).toBe('missing.json: no such file; it is named by --settings');
    });

    it('names --settings when the JSON value does not parse', async () => {
      expect(
        await rejection(
          loadPolicy({ projectDir: project.root, settingsArgs: ['{"permissions": }'] }),
        ),
      ).toBe('--settings:1:17: invalid JSON: expected a value, found "}"');
    });

    it('wins over the project settings for defaultMode, and loses to the policy file', async () => {
      await project.write(
        '.claude/settings.json',
        settings({ permissions: { defaultMode: 'plan' } }),
      );
      const flag = settings({ permissions: { defaultMode: 'acceptEdits' } });

      const withoutPolicy = await loadPolicy({ projectDir: project.root, settingsArgs: [flag] });
      await project.write('.github/ci-agent.yml', 'permissions: { defaultMode: default }\n');
      const withPolicy = await loadPolicy({ projectDir: project.root, settingsArgs: [flag] });

      expect(withoutPolicy.permissions.defaultMode).toBe('acceptEdits');
      expect(withPolicy.permissions.defaultMode).toBe('default');
    });
  });

  describe('user settings', () => {
    it('reads ~/.claude/settings.json from the home directory given, anchored to ~/.claude', async () => {
      await home.write(
        '.claude/settings.json',
        settings({
          permissions: { deny: ['Read(/credentials)'], additionalDirectories: ['~/cache'] },
        }),
      );

      const policy = await loadPolicy({ projectDir: project.root, home: home.root });

      expect(policy.sources).toEqual([{ path: '~/.claude/settings.json', kind: 'user' }]);
      expect(policy.permissions.deny).toEqual([
        expect.objectContaining({
          source: '~/.claude/settings.json',
          anchorDir: home.path('.claude'),
        }),
      ]);
      expect(policy.permissions.additionalDirectories).toEqual([home.path('cache')]);
    });

    it('is not read when no home directory is given (the action)', async () => {
      await home.write('.claude/settings.json', settings({ permissions: { allow: ['Bash'] } }));
      const policy = await loadPolicy({ projectDir: project.root });
      expect(policy.sources).toEqual([]);
    });

    it('is optional', async () => {
      const policy = await loadPolicy({ projectDir: project.root, home: home.root });
      expect(policy.sources).toEqual([]);
    });
  });

  describe('when rules name MCP servers', () => {
    const mcpJson = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

    it('knows the servers of .mcp.json and of the policy file, and warns about any other', async () => {
      await project.write('.mcp.json', mcpJson({ 'brave search': { command: 'brave' } }));
      await project.write(
        '.github/ci-agent.yml',
        'permissions:\n  allow: [mcp__brave_search, mcp__docs__find]\nmcp:\n  servers:\n    docs: { command: docs }\n',
      );
      await project.write(
        '.claude/settings.json',
        settings({ permissions: { deny: ['mcp__docs__drop', 'mcp__jira'] } }),
      );

      const policy = await loadPolicy({ projectDir: project.root });

      expect(policy.warnings).toEqual([
        '.claude/settings.json:1:43: permissions.deny[1]: deny rule "mcp__jira" names the MCP server "jira", which neither .mcp.json nor the policy file configures, so it matches nothing unless --mcp-config adds it',
      ]);
      expect(policy.permissions.deny.map((rule) => rule.text)).toContain('mcp__jira');
    });

    it('warns about none when --mcp-config may add servers', async () => {
      await project.write(
        '.claude/settings.json',
        settings({ permissions: { deny: ['mcp__jira'] } }),
      );
      expect((await loadPolicy({ projectDir: project.root })).warnings).toHaveLength(1);
      expect(
        (await loadPolicy({ projectDir: project.root, mcpConfigGiven: true })).warnings,
      ).toEqual([]);
    });

    it('warns about none when .mcp.json cannot be read as servers, which the MCP loader reports', async () => {
      await project.write(
        '.claude/settings.json',
        settings({ permissions: { deny: ['mcp__jira'] } }),
      );
      await project.write('.mcp.json', '{ not json');
      expect((await loadPolicy({ projectDir: project.root })).warnings).toEqual([]);
    });
  });

  describe('when files are read through another reader (the base branch of a pull request)', () => {
    it('reads every file through it and never from the disk', async () => {
      await project.write('.github/ci-agent.yml', 'permissions: { allow: [Bash] }\n');
      const baseBranch = new Map([
        [join(project.root, '.github/ci-agent.yml'), 'permissions: { deny: [Bash] }\n'],
        [join(project.root, '.claude/settings.json'), settings({ permissions: { ask: ['Edit'] } })],
      ]);
      const requested: string[] = [];
      const readFile: ReadFile = async (path) => {
        requested.push(path);
        return baseBranch.get(path);
      };

      const policy = await loadPolicy({ projectDir: project.root, readFile });

      expect(policy.permissions.allow).toEqual([]);
      expect(policy.permissions.deny.map((rule) => rule.text)).toEqual(['Bash']);
      expect(policy.permissions.ask.map((rule) => rule.text)).toEqual(['Edit']);
      expect(requested.sort()).toEqual(
        [
          '.claude/settings.json',
          '.claude/settings.local.json',
          '.github/ci-agent.json',
          '.github/ci-agent.yaml',
          '.github/ci-agent.yml',
          '.mcp.json', // for its server names only
        ].map((path) => join(project.root, path)),
      );
    });

    it('reports a file the reader cannot read', async () => {
      const readFile: ReadFile = async (path) => {
        if (path.endsWith('settings.json')) throw new Error('git show failed: bad object');
        return undefined;
      };
      expect(await rejection(loadPolicy({ projectDir: project.root, readFile }))).toBe(
        '.claude/settings.json: cannot be read: git show failed: bad object',
      );
    });
  });

  it('reports a settings path that is a directory as unreadable', async () => {
    mkdirSync(project.path('.claude/settings.json'), { recursive: true });
    expect(await rejection(loadPolicy({ projectDir: project.root }))).toMatch(
      /^\.claude\/settings\.json: cannot be read: EISDIR/,
    );
  });
});
