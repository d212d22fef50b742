/**
 * startSandbox as the action uses it: the network the policy names and nothing else, the file
 * view the file tools are held to, and a clear refusal when bubblewrap is missing.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process/run-process.js';
import { SandboxUnavailable } from '../../src/sandbox/host-setup.js';
import { MAX_SANDBOX_TASKS, startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';

const ready = existsSync('/usr/bin/bwrap') && existsSync('/usr/bin/socat');
const EMPTY = { allowedDomains: [], allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] };

function runResult(sandbox: Sandbox, cwd: string, script: string, args: string[] = []) {
  return runProcess({
    file: '/bin/bash',
    args: ['-c', script, ...args],
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...sandbox.env },
    sandbox,
    timeoutMs: 20_000,
  }).result;
}

async function run(sandbox: Sandbox, cwd: string, script: string) {
  const done = await runResult(sandbox, cwd, script);
  return `${done.stdout.text}${done.stderr.text}`;
}

/** What bubblewrap is asked to run: everything after its `--`. */
function wrappedCommand(sandbox: Sandbox, file: string, args: string[], cwd: string): string[] {
  const wrapped = sandbox.wrap(file, args, cwd).args;
  return wrapped.slice(wrapped.indexOf('--') + 1);
}

/** The process limit, soft then hard, with bash's flag and with dash's. */
const LIMITS = new RegExp(
  [
    `ulimit -S -u ${MAX_SANDBOX_TASKS} && ulimit -H -u ${MAX_SANDBOX_TASKS}`,
    `ulimit -S -p ${MAX_SANDBOX_TASKS} && ulimit -H -p ${MAX_SANDBOX_TASKS}`,
  ].join('.*'),
);

describe.skipIf(!ready)('startSandbox', () => {
  let root: string;
  let workspace: string;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ci-agent-sandbox-test-'));
    workspace = join(root, 'ws');
    mkdirSync(workspace);
    await execa('git', ['init', '-q', workspace]);
    server = createServer((_request, response) => response.end('allowed upstream\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  describe('when the policy names a domain', () => {
    it('reaches it through the proxy, and nothing else, with or without the proxy variables', async () => {
      const decisions: string[] = [];
      const sandbox = await startSandbox({
        workspaceRoots: [workspace],
        home: join(root, 'home'),
        env: process.env,
        policy: { ...EMPTY, allowedDomains: [`127.0.0.1:${port}`] },
        judges: [],
        onNetworkDecision: (decision) =>
          decisions.push(`${decision.host}:${decision.port} ${decision.allowed}`),
      });
      try {
        // NO_PROXY names the loopback (a test server inside talks to itself directly): cleared
        // here, so that curl asks the proxy for the host's loopback, which the policy allows.
        expect(
          await run(
            sandbox,
            workspace,
            `NO_PROXY= no_proxy= curl -sS -m 5 http://127.0.0.1:${port}/`,
          ),
        ).toContain('allowed upstream');
        expect(
          await run(
            sandbox,
            workspace,
            'curl -sS -m 5 -o /dev/null -w "%{http_code}" http://example.com/',
          ),
        ).toContain('403');
        expect(
          await run(
            sandbox,
            workspace,
            `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${port}/ || echo NO-ROUTE`,
          ),
        ).toContain('NO-ROUTE');
        expect(decisions).toContain(`127.0.0.1:${port} true`);
        expect(decisions).toContain('example.com:80 false');
        expect(sandbox.describe()).toContain(`network only to 127.0.0.1:${port}`);
        // The process limit comes first, so that the bridge is held to it too.
        const [, , prelude] = wrappedCommand(sandbox, '/bin/true', [], workspace);
        const lines = prelude?.split('\n') ?? [];
        expect(lines[0]).toMatch(LIMITS);
        expect(lines[1]).toMatch(/^socat /);
        expect(lines.at(-1)).toBe('exec "$@"');
      } finally {
        await sandbox.close();
      }
    });
  });

  describe('when the policy names none', () => {
    it('has no network and no proxy variables', async () => {
      const sandbox = await startSandbox({
        workspaceRoots: [workspace],
        home: join(root, 'home'),
        env: process.env,
        policy: EMPTY,
        judges: [],
      });
      try {
        expect(sandbox.env).not.toHaveProperty('HTTPS_PROXY');
        expect(
          await run(sandbox, workspace, `curl -sS -m 5 http://127.0.0.1:${port}/ || echo NO-ROUTE`),
        ).toContain('NO-ROUTE');
        expect(sandbox.describe()).toContain('no network');
      } finally {
        await sandbox.close();
      }
    });
  });

  describe('the file view the file tools are held to', () => {
    it('hides /proc, the home and the host /tmp, and lets the workspace and its private /tmp be written', async () => {
      const home = join(root, 'home');
      mkdirSync(home, { recursive: true });
      const sandbox = await startSandbox({
        workspaceRoots: [workspace],
        home,
        env: process.env,
        policy: EMPTY,
        judges: [],
      });
      try {
        expect(sandbox.isHidden(`/proc/${process.pid}/environ`)).toBe(true);
        expect(sandbox.isHidden(join(home, '.git-credentials'))).toBe(true);
        expect(sandbox.isHidden('/tmp/elsewhere')).toBe(true);
        expect(sandbox.isHidden(join(workspace, 'src/a.ts'))).toBe(false);
        expect(sandbox.isWritable(join(workspace, 'src/a.ts'))).toBe(true);
        expect(sandbox.isWritable(join(workspace, '.git/config'))).toBe(false);
        expect(sandbox.isWritable('/usr/bin/env')).toBe(false);
        // What a command writes to /tmp is where hostPath says.
        await run(sandbox, workspace, 'echo inside > /tmp/note');
        expect(existsSync(sandbox.hostPath('/tmp/note'))).toBe(true);
        expect(existsSync('/tmp/note')).toBe(false);
      } finally {
        await sandbox.close();
      }
    });
  });

  describe('the command it wraps', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({
        workspaceRoots: [workspace],
        home: join(root, 'home'),
        env: process.env,
        policy: EMPTY,
        judges: [],
      });
    });
    afterAll(() => sandbox.close());

    it('starts through /bin/sh, which sets the process limit and then execs the command', () => {
      const command = wrappedCommand(
        sandbox,
        '/bin/bash',
        ['-c', 'echo "$1"', 'x', "it's"],
        workspace,
      );
      expect(command).toEqual([
        '/bin/sh',
        '-c',
        expect.any(String),
        'sh',
        '/bin/bash',
        '-c',
        'echo "$1"',
        'x',
        "it's",
      ]);
      const [limits, ...rest] = command[2]?.split('\n') ?? [];
      expect(limits).toMatch(LIMITS);
      expect(rest).toEqual(['exec "$@"']);
    });

    it('keeps its arguments, its pid, its exit status and its signal', async () => {
      // pid 2: the process bubblewrap started, after its init (pid 1), with no shell between.
      const own = await runResult(sandbox, workspace, 'echo "$$ $1"', ['x', "it's a b"]);
      expect(own.stdout.text).toBe("2 it's a b\n");
      expect((await runResult(sandbox, workspace, 'exit 7')).exitCode).toBe(7);
      // bubblewrap reports a command killed by a signal as 128 + the signal.
      expect((await runResult(sandbox, workspace, 'kill -TERM $$')).exitCode).toBe(143);
    });
  });

  it('refuses to start without bubblewrap, naming the package and the way out', async () => {
    const start = startSandbox({
      workspaceRoots: [workspace],
      home: join(root, 'home'),
      env: { ...process.env, PATH: '/nonexistent' },
      policy: EMPTY,
      judges: [],
    });
    await expect(start).rejects.toBeInstanceOf(SandboxUnavailable);
    await expect(start).rejects.toThrow(/apt-get install -y bubblewrap.*sandbox: off/);
  });

  it('works with a bubblewrap older than 0.8, which does not know --disable-userns', async () => {
    // A bwrap that answers as 0.6 does, in front of the real one.
    const bin = join(root, 'old-bwrap');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\nfor a in "$@"; do [ "$a" = --disable-userns ] && { echo "bwrap: Unknown option --disable-userns" >&2; exit 1; }; done\nexec /usr/bin/bwrap "$@"\n',
      { mode: 0o755 },
    );
    const sandbox = await startSandbox({
      workspaceRoots: [workspace],
      home: join(root, 'home'),
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      policy: EMPTY,
      judges: [],
    });
    try {
      expect(sandbox.wrap('/bin/true', [], workspace).args).not.toContain('--disable-userns');
      expect(await run(sandbox, workspace, 'echo ran')).toContain('ran');
    } finally {
      await sandbox.close();
    }
  });

  it('refuses a workspace that holds the home directory', async () => {
    await expect(
      startSandbox({
        workspaceRoots: [root],
        home: join(root, 'home'),
        env: process.env,
        policy: EMPTY,
        judges: [],
      }),
    ).rejects.toThrow(/holds it/);
  });
});
