import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../src/permissions/types.js';
import { mergeLayers } from '../../src/policy/merge.js';
import type { PolicyFileLayer, PolicyLayer, SourceKind } from '../../src/policy/types.js';

function rule(text: string, source: string) {
  const match = /^(\w+)(?:\((.*)\))?$/.exec(text);
  return {
    text,
    toolName: match?.[1] ?? text,
    ...(match?.[2] ? { content: match[2] } : {}),
    source,
    anchorDir: '/repo',
  };
}

function layer(
  kind: SourceKind,
  path: string,
  content: {
    allow?: string[];
    deny?: string[];
    ask?: string[];
    defaultMode?: PermissionMode;
    directories?: string[];
    hookCommands?: string[];
    warnings?: string[];
  } = {},
): PolicyLayer {
  return {
    source: { path, kind },
    allow: (content.allow ?? []).map((text) => rule(text, path)),
    deny: (content.deny ?? []).map((text) => rule(text, path)),
    ask: (content.ask ?? []).map((text) => rule(text, path)),
    ...(content.defaultMode ? { defaultMode: content.defaultMode } : {}),
    additionalDirectories: content.directories ?? [],
    hooks: content.hookCommands
      ? {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: content.hookCommands.map((command) => ({
                type: 'command' as const,
                command,
                source: path,
              })),
            },
          ],
        }
      : {},
    warnings: content.warnings ?? [],
  };
}

function policyLayer(
  content: Parameters<typeof layer>[2] = {},
  extras: Partial<Pick<PolicyFileLayer, 'askResolution' | 'limits' | 'passEnv'>> = {},
): PolicyFileLayer {
  return {
    ...layer('policy', '.github/ci-agent.yml', content),
    askResolution: extras.askResolution ?? {},
    limits: extras.limits ?? {},
    passEnv: extras.passEnv ?? [],
  };
}

const texts = (rules: ReadonlyArray<{ text: string; source: string }>) =>
  rules.map((entry) => `${entry.text} from ${entry.source}`);

describe('mergeLayers', () => {
  it('keeps every rule of every source, each with the source it came from', () => {
    const merged = mergeLayers({
      policy: policyLayer({ deny: ['Bash(rm:*)'] }),
      settings: [
        layer('project', '.claude/settings.json', { allow: ['Bash(rm:*)', 'Read'] }),
        layer('user', '~/.claude/settings.json', { ask: ['WebFetch'], deny: ['Read(~/.ssh/**)'] }),
      ],
    });

    expect(texts(merged.permissions.deny)).toEqual([
      'Bash(rm:*) from .github/ci-agent.yml',
      'Read(~/.ssh/**) from ~/.claude/settings.json',
    ]);
    expect(texts(merged.permissions.allow)).toEqual([
      'Bash(rm:*) from .claude/settings.json',
      'Read from .claude/settings.json',
    ]);
    expect(texts(merged.permissions.ask)).toEqual(['WebFetch from ~/.claude/settings.json']);
  });

  it('lists the sources highest precedence first', () => {
    const merged = mergeLayers({
      policy: policyLayer(),
      settings: [
        layer('user', '~/.claude/settings.json'),
        layer('project', '.claude/settings.json'),
        layer('flag', '--settings'),
        layer('local', '.claude/settings.local.json'),
      ],
    });

    expect(merged.sources).toEqual([
      { path: '.github/ci-agent.yml', kind: 'policy' },
      { path: '--settings', kind: 'flag' },
      { path: '.claude/settings.local.json', kind: 'local' },
      { path: '.claude/settings.json', kind: 'project' },
      { path: '~/.claude/settings.json', kind: 'user' },
    ]);
  });

  describe('defaultMode', () => {
    const ranked: Array<[SourceKind, string, PermissionMode]> = [
      ['policy', '.github/ci-agent.yml', 'plan'],
      ['flag', '--settings', 'dontAsk'],
      ['local', '.claude/settings.local.json', 'acceptEdits'],
      ['project', '.claude/settings.json', 'bypassPermissions'],
      ['user', '~/.claude/settings.json', 'default'],
    ];

    it.each(ranked.map(([kind], index): [SourceKind, number] => [kind, index]))(
      'comes from the %s source when no higher source sets one',
      (_, index) => {
        const present = ranked.slice(index);
        const policy = present.find(([kind]) => kind === 'policy');
        const merged = mergeLayers({
          ...(policy ? { policy: policyLayer({ defaultMode: policy[2] }) } : {}),
          settings: present
            .filter(([kind]) => kind !== 'policy')
            .map(([kind, path, mode]) => layer(kind, path, { defaultMode: mode })),
        });

        expect(merged.permissions.defaultMode).toBe(ranked[index]?.[2]);
        expect(merged.permissions.defaultModeSource).toBe(ranked[index]?.[1]);
      },
    );

    it('is absent when no source sets one', () => {
      const merged = mergeLayers({ settings: [layer('project', '.claude/settings.json')] });
      expect(merged.permissions.defaultMode).toBeUndefined();
      expect(merged.permissions.defaultModeSource).toBeUndefined();
    });
  });

  describe('the sandbox mode', () => {
    const sandbox = (enabled: boolean | undefined) => ({
      ...(enabled !== undefined && { enabled }),
      allowedDomains: [],
      allowWrite: [],
      denyWrite: [],
      denyRead: [],
      allowRead: [],
    });
    const settings = (kind: SourceKind, path: string, enabled: boolean | undefined) => ({
      ...layer(kind, path),
      sandbox: sandbox(enabled),
    });
    const user = (enabled?: boolean) => settings('user', '~/.claude/settings.json', enabled);
    const project = (enabled?: boolean) => settings('project', '.claude/settings.json', enabled);
    const flag = (enabled?: boolean) => settings('flag', '--settings', enabled);
    const policy = (enabled: boolean | undefined) => ({
      ...policyLayer(),
      sandbox: sandbox(enabled),
    });

    it.each([
      ['nobody says', 'unset', { settings: [user(), project()] }],
      ['the user settings turn it on', 'on', { settings: [user(true), project()] }],
      [
        'the project turns off what the user turned on',
        'unset',
        { settings: [project(false), user(true)] },
      ],
      [
        '--settings turns on what the project turned off',
        'on',
        { settings: [project(false), flag(true)] },
      ],
      [
        'the policy has a sandbox mapping',
        'on',
        { policy: policy(true), settings: [project(false)] },
      ],
      ['the policy says off', 'off', { policy: policy(false), settings: [flag(true)] }],
    ] as const)('when %s: %s', (_, mode, input) => {
      expect(mergeLayers(input).sandbox.mode).toBe(mode);
    });
  });

  it('answers asks with deny when there is no policy file', () => {
    const merged = mergeLayers({ settings: [] });
    expect(merged.askResolution).toEqual({ default: 'deny', byTool: {} });
  });

  it('takes the ask answers, limits and passed environment from the policy file', () => {
    const merged = mergeLayers({
      policy: policyLayer(
        {},
        {
          askResolution: { default: 'allow', byTool: { Bash: 'deny' } },
          limits: { maxTurns: 5 },
          passEnv: ['NPM_TOKEN', 'NPM_TOKEN'],
        },
      ),
      settings: [],
    });

    expect(merged.askResolution).toEqual({ default: 'allow', byTool: { Bash: 'deny' } });
    expect(merged.limits).toEqual({ maxTurns: 5 });
    expect(merged.passEnv).toEqual(['NPM_TOKEN']);
  });

  it('joins additional directories without duplicates', () => {
    const merged = mergeLayers({
      policy: policyLayer({ directories: ['/shared'] }),
      settings: [layer('project', '.claude/settings.json', { directories: ['/shared', '/cache'] })],
    });
    expect(merged.permissions.additionalDirectories).toEqual(['/shared', '/cache']);
  });

  it('keeps the hooks of every source, identical commands included', () => {
    const merged = mergeLayers({
      policy: policyLayer({ hookCommands: ['./guard.sh'] }),
      settings: [
        layer('project', '.claude/settings.json', { hookCommands: ['./guard.sh', './log.sh'] }),
      ],
    });

    expect(
      merged.hooks.PreToolUse?.flatMap((group) =>
        group.hooks.map((hook) => `${hook.command} from ${hook.source}`),
      ),
    ).toEqual([
      './guard.sh from .github/ci-agent.yml',
      './guard.sh from .claude/settings.json',
      './log.sh from .claude/settings.json',
    ]);
  });

  it('collects the warnings of every source', () => {
    const merged = mergeLayers({
      settings: [
        layer('project', '.claude/settings.json', { warnings: ['a'] }),
        layer('user', '~/.claude/settings.json', { warnings: ['b'] }),
      ],
    });
    expect(merged.warnings).toEqual(['a', 'b']);
  });

  it('returns a policy frozen all the way down', () => {
    const merged = mergeLayers({
      policy: policyLayer({ allow: ['Read'], hookCommands: ['x'] }),
      settings: [],
    });

    expect(Object.isFrozen(merged)).toBe(true);
    expect(Object.isFrozen(merged.permissions.allow)).toBe(true);
    expect(Object.isFrozen(merged.permissions.allow[0])).toBe(true);
    expect(Object.isFrozen(merged.hooks.PreToolUse?.[0]?.hooks[0])).toBe(true);
    expect(Object.isFrozen(merged.askResolution.byTool)).toBe(true);
  });

  describe('when the sources arrive in any order', () => {
    /** A small deterministic generator, so a failure can be replayed. */
    function random(seed: number): () => number {
      let state = seed;
      return () => {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        return state / 2 ** 31;
      };
    }

    function shuffle<T>(items: readonly T[], next: () => number): T[] {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index--) {
        const other = Math.floor(next() * (index + 1));
        [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
      }
      return copy;
    }

    const settings = [
      layer('user', '~/.claude/settings.json', {
        allow: ['Bash(git *)'],
        deny: ['Read(~/.aws/**)'],
        defaultMode: 'acceptEdits',
        hookCommands: ['audit'],
      }),
      layer('project', '.claude/settings.json', {
        allow: ['Bash(rm:*)'],
        ask: ['Bash(git push:*)'],
        defaultMode: 'plan',
        directories: ['/a'],
        hookCommands: ['fmt'],
      }),
      layer('local', '.claude/settings.local.json', { deny: ['Bash(rm:*)'], directories: ['/b'] }),
      layer('flag', '--settings', { allow: ['Edit'], defaultMode: 'dontAsk' }),
      layer('flag', 'extra/settings.json', { deny: ['WebFetch'], warnings: ['w'] }),
    ];
    const policy = policyLayer({ deny: ['Bash(curl:*)'], hookCommands: ['guard'] });

    it('merges to the same policy for every order', () => {
      const expected = mergeLayers({ policy, settings });
      const next = random(7);
      for (let round = 0; round < 50; round++) {
        expect(mergeLayers({ policy, settings: shuffle(settings, next) })).toEqual(expected);
      }
    });

    it('keeps the same rule sets whichever layers are present', () => {
      const next = random(11);
      for (let round = 0; round < 50; round++) {
        const subset = settings.filter(() => next() < 0.6);
        const merged = mergeLayers({ settings: shuffle(subset, next) });
        const all = (kind: 'allow' | 'deny' | 'ask') =>
          new Set(subset.flatMap((entry) => texts(entry[kind])));
        expect(new Set(texts(merged.permissions.deny))).toEqual(all('deny'));
        expect(new Set(texts(merged.permissions.allow))).toEqual(all('allow'));
        expect(new Set(texts(merged.permissions.ask))).toEqual(all('ask'));
      }
    });
  });
});
