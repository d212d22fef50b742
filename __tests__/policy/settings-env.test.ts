import { describe, expect, it } from 'vitest';
import { mergeLayers } from '../../src/policy/merge.js';
import { parseSettingsFile } from '../../src/policy/settings-file.js';
import type { SourceText } from '../../src/policy/types.js';

const FILE = '.claude/settings.json';

function parse(settings: unknown, source: Partial<SourceText> = {}) {
  const text = JSON.stringify(settings, null, 2);
  return parseSettingsFile({ kind: 'project', path: FILE, text, anchorDir: '/repo', ...source });
}

describe('readSettingsEnv (through parseSettingsFile)', () => {
  it('keeps variables a published hook reads its strictness from', () => {
    const layer = parse({ env: { SAFETY_LEVEL: 'strict', BASH_MAX_TIMEOUT_MS: '900000' } });
    expect(layer.env).toEqual({ SAFETY_LEVEL: 'strict', BASH_MAX_TIMEOUT_MS: '900000' });
    expect(layer.warnings).toEqual([]);
  });

  it.each([
    ['AWS_CONFIG_FILE', '/evil/config', "a cloud provider's credentials"],
    ['GOOGLE_CLOUD_PROJECT', 'other', "a cloud provider's credentials"],
    ['ANTHROPIC_BETAS', 'x', 'configures the model connection'],
    ['NPM_TOKEN', 'npm_x', 'carries or locates a credential'],
    ['DEPLOY_KEY', 'k', 'carries or locates a credential'],
    ['DB_PASSWORD', 'p', 'carries or locates a credential'],
    ['MY_SECRET_VALUE', 's', 'carries or locates a credential'],
    ['GITHUB_TOKEN', 'ghp_x', 'carries or locates a credential'],
    ['GH_HOST', 'evil.example', 'GitHub Actions runner or the GitHub CLI'],
    ['ACTIONS_CACHE_URL', 'http://evil.example', 'GitHub Actions runner or the GitHub CLI'],
    ['HTTPS_PROXY', 'http://evil.example:3128', 'reroutes network traffic'],
    ['http_proxy', 'http://evil.example:3128', 'reroutes network traffic'],
    ['NO_PROXY', '*', 'reroutes network traffic'],
    ['NODE_EXTRA_CA_CERTS', '/evil.pem', 'which TLS certificates are trusted'],
    ['npm_config_registry', 'https://evil.example', 'reroutes network traffic'],
    ['RIPGREP_CONFIG_PATH', './rgrc', 'changes which program a command runs'],
    ['NODE_OPTIONS', '--require ./x.js', 'changes which program a command runs'],
    ['PATH', './bin:/usr/bin', 'changes which program a command runs'],
    ['LD_PRELOAD', './x.so', 'changes which program a command runs'],
    ['BASH_ENV', './x.sh', 'changes which program a command runs'],
    ['GIT_SSH_COMMAND', 'sh ./x', 'changes which program a command runs'],
    ['HOME', '/repo', 'changes which program a command runs'],
    ['CLAUDE_PROJECT_DIR', '/elsewhere', 'ci-agent sets it itself'],
  ])('refuses %s with a warning naming the file, the variable and why', (name, value, why) => {
    const layer = parse({ env: { [name]: value, KEPT: 'yes' } });
    expect(layer.env).toEqual({ KEPT: 'yes' });
    expect(layer.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\.claude/settings\\.json:3:5: env\\.${name}: ${name} is not passed to tools and hooks: .*${why}.*; ignored$`,
        ),
      ),
    ]);
  });

  it('drops values that are not strings, and names no shell could export', () => {
    const layer = parse({ env: { DEBUG: true, LEVEL: 3, 'A-B': 'x', NUL: 'a\u0000b', OK: '1' } });
    expect(layer.env).toEqual({ OK: '1' });
    expect(layer.warnings).toEqual([
      expect.stringContaining('env.DEBUG: expected a string without NUL bytes for DEBUG; ignored'),
      expect.stringContaining('env.LEVEL: expected a string'),
      expect.stringContaining('env.A-B: not a variable name'),
      expect.stringContaining('env.NUL: expected a string without NUL bytes'),
    ]);
  });

  it('ignores an env that is not an object, with a warning', () => {
    const layer = parse({ env: ['SAFETY_LEVEL=strict'] });
    expect(layer.env).toEqual({});
    expect(layer.warnings).toEqual([
      expect.stringContaining(
        'env: expected an object of variable names and string values; ignored',
      ),
    ]);
  });
});

describe('readSettingsEnv: the model connection', () => {
  it('takes the provider, its place and its models aside for the model client, never for tools', () => {
    const env = {
      CLAUDE_CODE_USE_BEDROCK: '1',
      AWS_REGION: 'eu-west-1',
      ANTHROPIC_MODEL: 'opus',
      KEPT: 'yes',
    };
    const layer = parse({ env });
    expect(layer.env).toEqual({ KEPT: 'yes' });
    expect(layer.modelEnv).toEqual({
      CLAUDE_CODE_USE_BEDROCK: '1',
      AWS_REGION: 'eu-west-1',
      ANTHROPIC_MODEL: 'opus',
    });
    expect(layer.warnings).toEqual([]);
  });

  it.each([
    'ANTHROPIC_BASE_URL',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_CUSTOM_HEADERS',
    'ANTHROPIC_BEDROCK_BASE_URL',
    'ANTHROPIC_FOUNDRY_RESOURCE',
    'AWS_ACCESS_KEY_ID',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'CLAUDE_CODE_SKIP_VERTEX_AUTH',
  ])(
    'refuses %s from a file in the repository, where a pull request could point the credentials elsewhere',
    (name) => {
      for (const kind of ['project', 'local'] as const) {
        const layer = parse({ env: { [name]: 'x' } }, { kind });
        expect(layer.modelEnv).toBeUndefined();
        expect(layer.warnings).toEqual([
          expect.stringMatching(
            new RegExp(
              `env\\.${name}: ${name} is not taken from a file in the repository: it is a credential or says where the model's requests go; set it in the environment, ~/\\.claude/settings\\.json or --settings; ignored$`,
            ),
          ),
        ]);
      }
    },
  );

  it('takes credentials and endpoints from the user settings and --settings', () => {
    for (const kind of ['user', 'flag'] as const) {
      const layer = parse({ env: { ANTHROPIC_BASE_URL: 'https://gw.example' } }, { kind });
      expect(layer.modelEnv).toEqual({ ANTHROPIC_BASE_URL: 'https://gw.example' });
      expect(layer.warnings).toEqual([]);
    }
  });

  it('merges by precedence, remembering the file each value came from', () => {
    const user = parse(
      { env: { AWS_REGION: 'us-east-1', ANTHROPIC_MODEL: 'haiku' } },
      { kind: 'user', path: '~/.claude/settings.json' },
    );
    const project = parse({ env: { AWS_REGION: 'eu-west-1' } });
    expect(mergeLayers({ settings: [user, project] }).modelEnv).toEqual({
      AWS_REGION: { value: 'eu-west-1', source: FILE },
      ANTHROPIC_MODEL: { value: 'haiku', source: '~/.claude/settings.json' },
    });
  });
});

describe('mergeLayers: env', () => {
  it('takes each name from the highest-precedence file that sets it', () => {
    const user = parse(
      { env: { LEVEL: 'user', ONLY_USER: 'u' } },
      { kind: 'user', path: '~/.claude/settings.json' },
    );
    const project = parse({ env: { LEVEL: 'project', ONLY_PROJECT: 'p' } });
    const local = parse(
      { env: { LEVEL: 'local' } },
      { kind: 'local', path: '.claude/settings.local.json' },
    );
    for (const settings of [
      [user, project, local],
      [local, user, project],
    ]) {
      expect(mergeLayers({ settings }).env).toEqual({
        LEVEL: 'local',
        ONLY_USER: 'u',
        ONLY_PROJECT: 'p',
      });
    }
  });
});
