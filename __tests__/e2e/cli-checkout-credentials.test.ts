/**
 * The checkout's credentials, where actions/checkout leaves them (an `extraheader` in
 * .git/config, v6's credentials file in $RUNNER_TEMP that .git/config includes, a remote URL with
 * the token), attacked through the built CLI by a steered agent in bypassPermissions mode: Read
 * of .git/config, and Bash printing git's configuration, the files and the remote. In CI the CLI
 * takes them out before the agent starts (cli-credentials.ts), sandboxed or not, and puts every
 * file back byte for byte at the end, a SIGTERM'd run too; outside CI the same session shows
 * them (what the stash took away).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplayBlock } from '../../testkit/replay-server.js';
import type { CliRun, CliRunOptions } from '../helpers/cli-harness.js';
import { resultsSent, runCli } from '../helpers/cli-harness.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const BYPASS = ['--permission-mode', 'bypassPermissions'];
const SANDBOX_ON = JSON.stringify({ sandbox: { enabled: true } });

const runs: CliRun[] = [];
const scratch: string[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
  for (const path of scratch.splice(0)) rmSync(path, { recursive: true, force: true });
});

const call = (id: string, name: string, input: Record<string, unknown>): ReplayBlock[] => [
  { type: 'tool_use', id, name, input },
];

interface Checkout {
  runnerTemp: string;
  /** The three tokens, as they are written (the header's is base64 of `x-access-token:<t>`). */
  secrets: string[];
  /** What must be back at the end, byte for byte. */
  files: Map<string, Buffer>;
}

/** What actions/checkout v4 and v6 leave, written into the CLI's workspace before it starts. */
function leaveCredentials(root: string, checkout: Checkout): Record<string, string> {
  const git = (...args: string[]) => execaSync('git', args, { cwd: root });
  const [header, v6, url] = checkout.secrets as [string, string, string];
  const basic = (token: string) => Buffer.from(`x-access-token:${token}`).toString('base64');
  git('config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${basic(header)}`);
  const file = join(checkout.runnerTemp, `git-credentials-${randomUUID()}.config`);
  writeFileSync(
    file,
    `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic(v6)}\n`,
  );
  git('config', `includeIf.gitdir:${join(root, '.git')}/.path`, file);
  git('remote', 'add', 'origin', `https://x-access-token:${url}@github.com/o/r.git`);
  for (const path of [join(root, '.git/config'), file])
    checkout.files.set(path, readFileSync(path));
  return {};
}

function newCheckout(): Checkout {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'ci-agent-runner-temp-'));
  scratch.push(runnerTemp);
  // Distinct from each other and from anything else in the run.
  const secrets = [1, 2, 3].map((n) => `ghs_${n}${randomUUID().replaceAll('-', '')}`);
  return { runnerTemp, secrets, files: new Map() };
}

/** Each way the agent tries to get at them, then done. */
const ATTACK = (root: string) => [
  call('toolu_read', 'Read', { file_path: join(root, '.git/config') }),
  call('toolu_list', 'Bash', { command: 'git config --list --show-origin' }),
  call('toolu_cat', 'Bash', {
    command: 'cat .git/config "$RUNNER_TEMP"/git-credentials-*.config; git remote -v',
  }),
  [{ type: 'text' as const, text: 'Done.' }],
];

/** The secrets as they would show: the tokens, and the headers' base64 of them. */
function shownForms(secrets: readonly string[]): string[] {
  return secrets.flatMap((token) => [
    token,
    Buffer.from(`x-access-token:${token}`).toString('base64'),
  ]);
}

async function attack(
  checkout: Checkout,
  options: { ci: boolean; sandbox: boolean } & Partial<CliRunOptions>,
): Promise<CliRun> {
  const { ci, sandbox, ...rest } = options;
  const run = await runCli(['-p', 'look around', ...STREAM, ...BYPASS], {
    turns: ATTACK,
    files: sandbox ? { '.claude/settings.json': SANDBOX_ON } : {},
    env: {
      RUNNER_TEMP: checkout.runnerTemp,
      ...(ci && { CI: 'true', GITHUB_ACTIONS: 'true' }),
    },
    prepare: async (root) => leaveCredentials(root, checkout),
    ...rest,
  });
  runs.push(run);
  return run;
}

function expectPutBack(checkout: Checkout): void {
  for (const [path, content] of checkout.files) {
    expect(existsSync(path), path).toBe(true);
    expect(readFileSync(path).equals(content), path).toBe(true);
  }
}

describe('the checkout’s git credentials, against a steered agent in CI', () => {
  for (const sandbox of [false, true]) {
    it(`${sandbox ? 'sandboxed' : 'unsandboxed'}: no tool shows them, and every file is back at the end`, async () => {
      const checkout = newCheckout();
      const run = await attack(checkout, { ci: true, sandbox });
      expect(run.code, run.stderr).toBe(0);
      const results = resultsSent(run);
      // The calls ran and saw the configuration, without what was taken out of it.
      expect(results.get('toolu_read')).toContain('[core]');
      expect(results.get('toolu_list')).toContain('remote.origin.url=https://github.com/o/r.git');
      expect(results.get('toolu_cat')).toContain('https://github.com/o/r.git');
      const sent = JSON.stringify(run.server.requests.map((request) => request.body));
      for (const secret of shownForms(checkout.secrets)) {
        expect(sent).not.toContain(secret);
        expect(run.stdout).not.toContain(secret);
        expect(run.stderr).not.toContain(secret);
      }
      // Said, by key, without a value.
      expect(run.stderr).toContain("ci-agent: The checkout's git credentials (");
      expect(run.stderr).toContain('http.https://github.com/.extraheader');
      expectPutBack(checkout);
    });
  }

  it('outside CI the same session shows them: the configuration is the developer’s own', async () => {
    const checkout = newCheckout();
    const run = await attack(checkout, { ci: false, sandbox: false });
    expect(run.code, run.stderr).toBe(0);
    const results = resultsSent(run);
    const [header = '', v6 = ''] = shownForms(checkout.secrets).filter((_, i) => i % 2 === 1);
    expect(results.get('toolu_read')).toContain(header);
    expect(results.get('toolu_cat')).toContain(v6);
    expect(results.get('toolu_list')).toContain(checkout.secrets[2]);
    expect(run.stderr).not.toContain('were taken out');
    expectPutBack(checkout);
  });

  it('a run stopped by SIGTERM in the middle of a call puts them back', async () => {
    const checkout = newCheckout();
    let started = '';
    let configDuringCall = '';
    const run = await attack(checkout, {
      ci: true,
      sandbox: false,
      turns: (root) => {
        started = join(root, 'started');
        return [
          call('toolu_wait', 'Bash', { command: `touch ${started}; sleep 30` }),
          [{ type: 'text', text: 'Done.' }],
        ];
      },
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (started && existsSync(started)) {
            clearInterval(poll);
            configDuringCall = readFileSync(join(started, '../.git/config'), 'utf8');
            child.kill('SIGTERM');
          }
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    // 128 + SIGTERM, as a shell reports it: the CLI stopped itself, after its clean-up.
    expect(run.signal).toBeNull();
    expect(run.code).toBe(143);
    // Taken out while the call ran: the proof that there was something to put back.
    expect(configDuringCall).toContain('[core]');
    expect(configDuringCall).not.toContain('extraheader');
    expectPutBack(checkout);
  });
});
