/**
 * The sandbox attacked from inside: each attack a steered agent (or a test script it wrote) would
 * make, run in a real sandbox by a real process (fixtures/attack-run.ts), each expected to fail.
 * As the user the tests run as (root in CI here) and, where this machine has one, as `runner`
 * with passwordless sudo: a GitHub-hosted runner's situation (.ci/run creates that user).
 */
import { execa } from 'execa';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SANDBOX_TASKS } from '../../src/sandbox/sandbox.js';

const bwrap = existsSync('/usr/bin/bwrap');
const ATTACK_RUN = join(import.meta.dirname, 'fixtures', 'attack-run.ts');
const TSX = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'tsx');

function runnerUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('runner:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const users: { name: string; as?: { uid: number; gid: number } }[] = [{ name: 'the test user' }];
const runner = runnerUser();
if (runner) users.push({ name: 'runner (passwordless sudo)', as: runner });

/**
 * A fork bomb that stops, for the process limit's attacks: dash starts up to `tries` sleeps in the
 * background, noting each one's pid, and gives up at the first fork that fails (bash would retry
 * for seconds); then bash, with builtins alone (no process can start by then), counts the
 * sandbox's processes (its /proc holds only its own), kills the sleeps, and starts one more
 * process to show that the sandbox recovers. Each sleep's command line is `sleep <marker>`, for
 * the host's process table.
 */
function forkBomb(tries: number, marker: string, pidFile: string): string {
  return [
    `: > ${pidFile}`,
    `sh -c 'i=0; while [ $i -lt ${tries} ]; do sleep ${marker} & echo $! >> ${pidFile}; i=$((i+1)); done' 2>/dev/null`,
    'n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo $n',
    `mapfile -t pids < ${pidFile}; kill -KILL "\${pids[@]}"`,
    '/bin/echo alive',
  ].join('; ');
}

interface Outcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

describe.skipIf(!bwrap).each(users)('the sandbox, attacked from inside, as $name', ({ as }) => {
  const token = randomUUID();
  // What the fork bombs' sleeps run for: a duration no other process on the host sleeps.
  const bombMarker = `59.${parseInt(token.slice(0, 8), 16)}`;
  // The kernel does not hold the host's root to RLIMIT_NPROC (sandbox.ts, MAX_SANDBOX_TASKS).
  const heldToLimit = as !== undefined || process.getuid?.() !== 0;
  const secret = `ghs_boundary${token.replaceAll('-', '')}`;
  let root: string;
  let results: Record<string, Outcome>;
  let server: Server;
  let decoy: ReturnType<typeof execa> | undefined;
  let githubEnv: string;
  let outside: string;

  beforeAll(async () => {
    // Outside /tmp: the sandbox has a /tmp of its own, and this folder must be one it can see.
    root = mkdtempSync('/var/tmp/ci-agent-boundary-');
    // A GitHub-hosted runner's layout: the work folder in the home, the runner's temp folder
    // and the checkout in the work folder (RUNNER_TEMP=/home/runner/work/_temp,
    // RUNNER_WORKSPACE=/home/runner/work/repo, the workspace /home/runner/work/repo/repo).
    const home = join(root, 'home');
    const runnerWorkspace = join(home, 'work', 'repo');
    const workspace = join(runnerWorkspace, 'repo');
    const runnerTemp = join(home, 'work', '_temp');
    outside = join(root, 'outside');
    for (const dir of [
      workspace,
      join(home, '.ssh'),
      join(runnerTemp, '_runner_file_commands'),
      outside,
    ])
      mkdirSync(dir, { recursive: true });
    await execa('git', ['init', '-q', workspace]);
    writeFileSync(join(home, '.git-credentials'), `https://x-access-token:${secret}@github.com\n`);
    writeFileSync(join(home, '.ssh', 'id_rsa'), `PRIVATE ${secret}\n`);
    githubEnv = join(runnerTemp, '_runner_file_commands', 'set_env_1');
    writeFileSync(githubEnv, '');
    writeFileSync(join(runnerTemp, 'event.json'), `{"token":"${secret}"}`);
    if (as) {
      await execa('chown', ['-R', `${as.uid}:${as.gid}`, root]);
      chownSync(root, as.uid, as.gid);
    }
    chmodSync(root, 0o755);
    server = createServer((socket) => socket.end('reached the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    // A process on the host with the secret on its command line and in its environment.
    decoy = execa('sh', ['-c', 'sleep 300', `decoy-${secret}`], {
      env: { DECOY_SECRET: secret },
      reject: false,
    });
    const attacks = {
      environ: `for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done 2>/dev/null | grep -c ${secret}; ls /proc | grep -cE '^[0-9]+$'`,
      // `[d]ecoy` matches the decoy's command line and not grep's own.
      cmdline: `cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o "[d]ecoy-${secret}" || echo none`,
      hostProcess: `cat /proc/${process.pid}/environ /proc/${process.pid}/maps /proc/${decoy.pid}/cmdline 2>&1 | head -c 300`,
      sudo: 'sudo -n true && echo ESCALATED; sudo -n cat /etc/shadow 2>&1 | head -c 100',
      githubEnv: `echo 'NODE_OPTIONS=--require=/tmp/evil.js' >> ${githubEnv} && echo WROTE`,
      credentials: `cat ${home}/.git-credentials ${home}/.ssh/id_rsa 2>&1; cat ~/.git-credentials 2>&1`,
      runnerTemp: `cat ${runnerTemp}/event.json 2>&1; ls ${runnerTemp} 2>&1`,
      loopback: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED && cat <&3`,
      dns: 'getent hosts example.com && echo RESOLVED; getent hosts localhost',
      leftover: `setsid bash -c 'exec -a ci-agent-leftover-${token} sleep 300' >/dev/null 2>&1 < /dev/null & echo started`,
      symlinkWrite: `ln -s ${outside} out && echo x > out/planted && echo WROTE-LINK; echo y > ${relative(workspace, outside)}/planted2 && echo WROTE-DOTDOT`,
      gitConfig: `echo '[core] hooksPath = /tmp' >> .git/config && echo WROTE-CONFIG; mkdir -p .git/hooks; echo x > .git/hooks/pre-commit && echo WROTE-HOOK`,
      nestedNamespace: "unshare -rm sh -c 'umount -l /home 2>/dev/null; echo UNSHARED' 2>&1",
      workspaceWrite: 'echo ok > made-inside.txt && cat made-inside.txt',
      // Raise the limit back, then start more processes than it allows. Not as root: the kernel
      // does not hold root to RLIMIT_NPROC, and 6,000 processes would be started on the host.
      forkBomb: `ulimit -S -u unlimited; ulimit -H -u unlimited; ulimit -Su; ulimit -Hu; [ "$(id -u)" = 0 ] && exit 0; ${forkBomb(6000, bombMarker, '/tmp/bomb-pids')}`,
      // The same under a limit the command lowers itself, small enough to try as root too.
      forkBombUnderLowerLimit: `ulimit -S -u 50; ulimit -H -u 50; ${forkBomb(100, bombMarker, '/tmp/small-bomb-pids')}`,
    };
    const sceneFile = join(root, 'scene.json');
    writeFileSync(
      sceneFile,
      JSON.stringify({
        workspace,
        home,
        env: {
          GITHUB_TOKEN: secret,
          ACTIONS_RUNTIME_TOKEN: secret,
          RUNNER_TEMP: runnerTemp,
          RUNNER_WORKSPACE: runnerWorkspace,
          GITHUB_ENV: githubEnv,
        },
        attacks: Object.entries(attacks).map(([name, script]) => ({ name, script })),
      }),
    );
    const command = as
      ? [
          'sudo',
          [
            '-n',
            '-u',
            'runner',
            '-H',
            'env',
            `PATH=${process.env.PATH}`,
            TSX,
            ATTACK_RUN,
            sceneFile,
          ],
        ]
      : [TSX, [ATTACK_RUN, sceneFile]];
    const run = await execa(command[0] as string, command[1] as string[], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    results = (JSON.parse(run.stdout) as { results: Record<string, Outcome> }).results;
  }, 300_000);

  afterAll(async () => {
    decoy?.kill('SIGKILL');
    // The fork bombs' sleeps, if a broken sandbox let any outlive their call.
    const bombs = await execa('pgrep', ['-f', `^sleep ${bombMarker}$`], { reject: false });
    for (const pid of bombs.stdout.split('\n').filter(Boolean))
      process.kill(Number(pid), 'SIGKILL');
    await new Promise((resolve) => server?.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  const out = (name: string) => `${results[name]?.stdout ?? ''}${results[name]?.stderr ?? ''}`;

  it('shows no process outside: no environment there is readable, and /proc holds only its own', () => {
    const [found, processes] = (results.environ?.stdout ?? '').trim().split('\n');
    expect(found).toBe('0');
    expect(Number(processes)).toBeLessThan(10);
    expect(out('cmdline')).not.toContain(secret);
    expect(out('hostProcess')).not.toContain(secret);
    expect(out('hostProcess')).toMatch(/No such file/);
  });

  it('gives no new privileges: sudo raises nothing', () => {
    expect(out('sudo')).not.toContain('ESCALATED');
    expect(out('sudo')).not.toMatch(/root:/);
  });

  it("keeps the runner's files the runner's: $GITHUB_ENV is out of reach", () => {
    expect(out('githubEnv')).not.toContain('WROTE');
    expect(readFileSync(githubEnv, 'utf8')).toBe('');
    expect(out('runnerTemp')).not.toContain(secret);
  });

  it("hides the home directory's credentials", () => {
    expect(out('credentials')).not.toContain(secret);
  });

  it('has no network: not the host loopback, not a name lookup', () => {
    expect(out('loopback')).not.toContain('CONNECTED');
    expect(out('loopback')).not.toContain('reached the host');
    expect(out('dns')).not.toContain('RESOLVED');
  });

  it('leaves nothing running after the call, not even a process that made a session of its own', async () => {
    expect(out('leftover')).toContain('started');
    const left = await execa('pgrep', ['-f', `ci-agent-leftover-${token}`], { reject: false });
    expect(left.stdout.trim()).toBe('');
  });

  it('writes nothing outside the workspace, through a link or through ..', () => {
    expect(out('symlinkWrite')).not.toContain('WROTE');
    expect(existsSync(join(outside, 'planted'))).toBe(false);
    expect(existsSync(join(outside, 'planted2'))).toBe(false);
  });

  it("keeps git's programs out of the agent's hands: .git/config and .git/hooks are read-only", () => {
    expect(out('gitConfig')).not.toContain('WROTE');
  });

  it('refuses a nested user namespace (where bubblewrap can), so no mount can be undone', () => {
    expect(out('nestedNamespace')).not.toContain('UNSHARED');
  });

  it('holds a command to its process limit: a fork bomb stops there, not at the host’s', async () => {
    const [soft, hard, count, after] = (results.forkBomb?.stdout ?? '').trim().split('\n');
    // Raising it back was refused, whoever runs the command.
    expect([soft, hard]).toEqual([String(MAX_SANDBOX_TASKS), String(MAX_SANDBOX_TASKS)]);
    if (!heldToLimit) return;
    // Started what the limit allowed (bubblewrap's init, bash and dash count too), no more; the
    // call went on and could start a process again once the sleeps were gone.
    expect(Number(count)).toBeGreaterThan(MAX_SANDBOX_TASKS - 64);
    expect(Number(count)).toBeLessThanOrEqual(MAX_SANDBOX_TASKS);
    expect(after).toBe('alive');
    expect((await execa('echo', ['the host forks'])).stdout).toBe('the host forks');
  });

  it('holds a limit the command lowered itself, except as root, whom the kernel exempts', () => {
    const [count, after] = (results.forkBombUnderLowerLimit?.stdout ?? '').trim().split('\n');
    // RLIMIT_NPROC is not checked for a task whose real user is the host's root (INIT_USER),
    // whatever user namespace it is in: as root all 100 sleeps start (SECURITY.md says so).
    if (heldToLimit) expect(Number(count)).toBeLessThanOrEqual(50);
    else expect(Number(count)).toBeGreaterThanOrEqual(100);
    expect(after).toBe('alive');
  });

  it('leaves none of the fork bombs’ processes behind on the host', async () => {
    const left = await execa('pgrep', ['-f', `^sleep ${bombMarker}$`], { reject: false });
    expect(left.stdout.trim()).toBe('');
  });

  it('still lets the command do its work in the workspace', () => {
    expect(results.workspaceWrite?.stdout.trim()).toBe('ok');
  });
});
