import { execaSync } from 'execa';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  credentialsNote,
  restoreCheckoutCredentials,
  stashCheckoutCredentials,
} from '../../src/github/checkout-credentials.js';
import { createGit } from '../../src/github/git.js';

const TOKEN = 'ghs_checkoutToken0123456789abcdef';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
const HEADER = `AUTHORIZATION: basic ${BASIC}`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-checkout-creds-')));
  dirs.push(root);
  const workspace = join(root, 'work', 'repo');
  const runnerTemp = join(root, '_temp');
  const home = join(root, 'home');
  for (const dir of [workspace, runnerTemp, home]) mkdirSync(dir, { recursive: true });
  const env = { HOME: home, PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1' };
  const gitIn = (args: string[], cwd = workspace) =>
    execaSync('git', args, { cwd, env, extendEnv: false }).stdout;
  gitIn(['init', '-q', '-b', 'main']);
  gitIn(['remote', 'add', 'origin', 'https://github.com/octo/repo']);
  gitIn(['config', 'user.name', 'runner']);
  const config = join(workspace, '.git', 'config');
  return { root, workspace, runnerTemp, env, gitIn, config, git: createGit(workspace, env) };
}

/** What actions/checkout v4 leaves: the header in the local config. */
function asCheckoutV4(gitIn: (args: string[]) => string) {
  gitIn(['config', '--local', 'http.https://github.com/.extraheader', HEADER]);
}

/** What actions/checkout v6 leaves: a credentials file in RUNNER_TEMP, included four ways. */
function asCheckoutV6(workspace: string, runnerTemp: string, gitIn: (args: string[]) => string) {
  const name = 'git-credentials-3f1c2a9e-8d7b-4e6f-9a0b-1c2d3e4f5a6b.config';
  const credentials = join(runnerTemp, name);
  writeFileSync(credentials, `[http "https://github.com/"]\n\textraheader = ${HEADER}\n`);
  chmodSync(credentials, 0o600);
  const container = `/github/runner_temp/${name}`;
  gitIn(['config', `includeIf.gitdir:${workspace}/.git.path`, credentials]);
  gitIn(['config', `includeIf.gitdir:${workspace}/.git/worktrees/*.path`, credentials]);
  gitIn(['config', 'includeIf.gitdir:/github/workspace/.git.path', container]);
  gitIn(['config', 'includeIf.gitdir:/github/workspace/.git/worktrees/*.path', container]);
  return credentials;
}

/** What a tool in the workspace sees: every config git reads there, with where it came from. */
function seenByTools(gitIn: (args: string[]) => string): string {
  return gitIn(['config', '--list', '--show-origin', '--includes']);
}

describe('stashCheckoutCredentials', () => {
  describe('when actions/checkout v4 persisted the token', () => {
    it('takes the extraheader out while the agent works and puts the config back byte for byte', async () => {
      const { workspace, gitIn, config, git } = setup();
      asCheckoutV4(gitIn);
      const before = readFileSync(config);
      expect(seenByTools(gitIn)).toContain(BASIC);

      const stash = await stashCheckoutCredentials(git, workspace);
      const seen = seenByTools(gitIn);
      expect(seen).not.toMatch(/extraheader/i);
      expect(seen).not.toContain(BASIC);
      expect(readFileSync(config, 'utf8')).not.toContain('[http');
      // The rest of the configuration stays as it was.
      expect(gitIn(['config', 'user.name'])).toBe('runner');
      expect(gitIn(['config', 'remote.origin.url'])).toBe('https://github.com/octo/repo');
      expect(stash.removed).toEqual(['http.https://github.com/.extraheader']);

      await restoreCheckoutCredentials(stash);
      expect(readFileSync(config).equals(before)).toBe(true);
      expect(gitIn(['config', 'http.https://github.com/.extraheader'])).toBe(HEADER);
    });
  });

  describe('when actions/checkout v6 persisted the token', () => {
    it('takes the includes out, hides the credentials file, and puts both back', async () => {
      const { workspace, runnerTemp, gitIn, config, git } = setup();
      const credentials = asCheckoutV6(workspace, runnerTemp, gitIn);
      const before = readFileSync(config);
      const file = readFileSync(credentials);
      expect(seenByTools(gitIn)).toContain(BASIC);

      const stash = await stashCheckoutCredentials(git, workspace);
      const seen = seenByTools(gitIn);
      expect(seen).not.toMatch(/extraheader|git-credentials|includeif/i);
      expect(readFileSync(config, 'utf8')).not.toContain('includeIf');
      expect(existsSync(credentials)).toBe(false);
      expect(stash.removed).toHaveLength(4);
      expect(stash.removed.join(' ')).not.toContain(TOKEN);

      await restoreCheckoutCredentials(stash);
      expect(readFileSync(config).equals(before)).toBe(true);
      expect(readFileSync(credentials).equals(file)).toBe(true);
      expect(statSync(credentials).mode & 0o777).toBe(0o600);
      expect(seenByTools(gitIn)).toContain(BASIC);
    });

    it('takes the same entries out of a submodule’s config', async () => {
      const { workspace, runnerTemp, gitIn, git } = setup();
      const credentials = asCheckoutV6(workspace, runnerTemp, gitIn);
      const moduleDir = join(workspace, '.git', 'modules', 'libs', 'core');
      mkdirSync(moduleDir, { recursive: true });
      gitIn(['init', '-q', '--bare', moduleDir]);
      const moduleConfig = join(moduleDir, 'config');
      gitIn(['config', '--file', moduleConfig, `includeIf.gitdir:${moduleDir}.path`, credentials]);
      gitIn(['config', '--file', moduleConfig, 'http.https://github.com/.extraheader', HEADER]);
      const before = readFileSync(moduleConfig);

      const stash = await stashCheckoutCredentials(git, workspace);
      expect(readFileSync(moduleConfig, 'utf8')).not.toMatch(/extraheader|includeIf/);

      await restoreCheckoutCredentials(stash);
      expect(readFileSync(moduleConfig).equals(before)).toBe(true);
    });
  });

  describe('when actions/checkout persisted an SSH key', () => {
    it('takes core.sshCommand out and hides the key file it names, then puts both back', async () => {
      const { workspace, runnerTemp, gitIn, config, git, env } = setup();
      const key = join(runnerTemp, '5d1e7c2a-0f3b-4a9e-8c6d-2b7f1e9a3c4d');
      writeFileSync(key, '-----BEGIN OPENSSH PRIVATE KEY-----\nfixture\n');
      chmodSync(key, 0o600);
      const command = `"/usr/bin/ssh" -i "$RUNNER_TEMP/5d1e7c2a-0f3b-4a9e-8c6d-2b7f1e9a3c4d" -o "UserKnownHostsFile=$RUNNER_TEMP/known_hosts"`;
      gitIn(['config', 'core.sshCommand', command]);
      const before = readFileSync(config);

      const stash = await stashCheckoutCredentials(git, workspace, {
        ...env,
        RUNNER_TEMP: runnerTemp,
      });
      expect(seenByTools(gitIn)).not.toMatch(/sshcommand/i);
      expect(existsSync(key)).toBe(false);
      expect(stash.removed).toEqual(['core.sshcommand']);

      await restoreCheckoutCredentials(stash);
      expect(readFileSync(config).equals(before)).toBe(true);
      expect(readFileSync(key, 'utf8')).toContain('fixture');
      expect(statSync(key).mode & 0o777).toBe(0o600);
    });
  });

  describe('when the workflow set credentials of its own', () => {
    it('takes out a credential helper and a token in an insteadOf, and strips it from a remote URL', async () => {
      const { workspace, gitIn, config, git } = setup();
      gitIn(['config', 'credential.helper', 'store --file /tmp/creds']);
      gitIn(['config', 'credential.https://github.com.helper', '!f() { echo password=x; }; f']);
      gitIn([
        'config',
        `url.https://x-access-token:${TOKEN}@github.com/.insteadOf`,
        'https://github.com/',
      ]);
      gitIn(['config', 'url.https://github.com/.insteadOf', 'git@github.com:']);
      gitIn([
        'config',
        'remote.origin.url',
        `https://x-access-token:${TOKEN}@github.com/octo/repo`,
      ]);
      const before = readFileSync(config);

      const stash = await stashCheckoutCredentials(git, workspace);
      const seen = seenByTools(gitIn);
      expect(seen).not.toContain(TOKEN);
      expect(seen).not.toMatch(/credential\./);
      // What carries no credential stays.
      expect(gitIn(['config', 'url.https://github.com/.insteadOf'])).toBe('git@github.com:');
      expect(gitIn(['config', 'remote.origin.url'])).toBe('https://github.com/octo/repo');
      expect(stash.removed.join(' ')).not.toContain(TOKEN);
      expect(stash.removed).toContain('url.https://***@github.com/.insteadof');
      expect(credentialsNote(stash)).toMatch(
        /^The checkout's git credentials \(credential\.helper, /,
      );

      await restoreCheckoutCredentials(stash);
      expect(readFileSync(config).equals(before)).toBe(true);
    });
  });

  describe('when the checkout holds no credentials', () => {
    it('changes nothing and has nothing to say', async () => {
      const { workspace, config, git } = setup();
      const before = readFileSync(config);
      const stash = await stashCheckoutCredentials(git, workspace);
      expect(stash).toEqual({ removed: [], files: [] });
      expect(credentialsNote(stash)).toBeUndefined();
      expect(readFileSync(config).equals(before)).toBe(true);
    });
  });
});
