/**
 * Nothing a call starts outlives it: real commands try to escape (a session of their own, a
 * double fork, nohup, SIGTERM ignored) and the process table is read after the call.
 */
import { execaSync } from 'execa';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runHookProcess } from '../../src/hooks/hook-process.js';
import { runCommand, type RunCommandOptions } from '../../src/tools/builtin/bash/run-command.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import {
  MECHANISM_OVERRIDE_VARIABLE,
  processScopeMechanism,
  scopeCommand,
  type ProcessScopeMechanism,
} from '../../src/process/process-scope.js';
import { killAllWith, processesWith, sleepMarkers, survivorsWith } from '../helpers/processes.js';
import { makeWorkspace, type Workspace } from '../helpers/tool-harness.js';

let workspace: Workspace;
/** `sleep` arguments this file's processes can be found by, and cleaned up by. */
const { marker, killAll: killMarked } = sleepMarkers();

beforeEach(() => {
  workspace = makeWorkspace('ci-agent-scope-');
});

afterEach(() => {
  killMarked();
  workspace.cleanup();
});

function run(
  script: string,
  processScope: ProcessScopeMechanism,
  extra: Partial<RunCommandOptions> = {},
) {
  return runCommand({
    shell: '/bin/bash',
    script,
    cwd: workspace.root,
    env: buildChildEnv(process.env),
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    maxOutputChars: 10_000,
    killGraceMs: 200,
    drainGraceMs: 100,
    processScope,
    ...extra,
  }).result;
}

/** Ways out of a process group; each starts `sleep <marker>` and returns at once. */
const ESCAPES: Array<[string, (sleep: string) => string]> = [
  ['setsid … &', (sleep) => `setsid sleep ${sleep} &`],
  ['setsid … & with the output redirected', (sleep) => `setsid sleep ${sleep} >/dev/null 2>&1 &`],
  ['(setsid -f …)', (sleep) => `(setsid -f sleep ${sleep})`],
  ['nohup … &', (sleep) => `nohup sh -c 'sleep ${sleep}' >/dev/null 2>&1 &`],
  ['a double fork', (sleep) => `( (sleep ${sleep} >/dev/null 2>&1 &) & )`],
  ['a double fork into a session', (sleep) => `(setsid sh -c 'sleep ${sleep} & :' &)`],
  [
    'a process that ignores SIGTERM',
    (sleep) => `setsid sh -c 'trap "" TERM; exec sleep ${sleep}' &`,
  ],
];

const available = processScopeMechanism() === 'pid-namespace';
const MECHANISMS: Array<[ProcessScopeMechanism, boolean]> = [
  ['pid-namespace', available],
  ['process-sweep', true],
];

describe('scopeCommand', () => {
  describe.each(MECHANISMS)('with the %s', (mechanism, runs) => {
    it.runIf(runs).each(ESCAPES)('kills %s when the command exits', async (_name, escape) => {
      const sleep = marker();
      const result = await run(`${escape(sleep)}\nsleep 0.2; exit 3`, mechanism);
      expect(result).toMatchObject({ outcome: 'exited', exitCode: 3, processScope: mechanism });
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    });

    it.runIf(runs).each(ESCAPES)('kills %s when the call times out', async (_name, escape) => {
      const sleep = marker();
      const result = await run(`${escape(sleep)}\nsleep 0.2; sleep 30`, mechanism, {
        timeoutMs: 400,
      });
      expect(result.outcome).toBe('timed-out');
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    });

    it.runIf(runs).each(ESCAPES)('kills %s when the call is aborted', async (_name, escape) => {
      const sleep = marker();
      const controller = new AbortController();
      const script = `${escape(sleep)}\nsleep 0.2; echo started; sleep 30`;
      const result = await run(script, mechanism, {
        signal: controller.signal,
        onOutput: (chunk) => chunk.includes('started') && controller.abort(),
      });
      expect(result.outcome).toBe('aborted');
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    });

    it.runIf(runs)('kills what a hook left in a session of its own', async () => {
      const sleep = marker();
      const result = await runHookProcess({
        command: `setsid sleep ${sleep} >/dev/null 2>&1 & sleep 0.2`,
        cwd: workspace.root,
        env: buildChildEnv(process.env),
        stdin: '{}',
        timeoutMs: 10_000,
        processScope: mechanism,
      });
      expect(result).toMatchObject({ status: 'exited', exitCode: 0 });
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    });

    it.runIf(runs)('leaves a command that starts nothing as it was', async () => {
      const result = await run('echo out; echo err >&2; exit 4', mechanism);
      expect(result).toMatchObject({ outcome: 'exited', exitCode: 4, sweptProcesses: 0 });
      expect([result.stdout.text, result.stderr.text]).toEqual(['out\n', 'err\n']);
    });
  });

  it.runIf(available)(
    "keeps ci-agent's /proc out of a namespaced call that unmounts its own",
    async () => {
      // As root the call could unmount the namespace's /proc and find the host's under it:
      // ci-agent's environment in /proc/<pid>/environ. The call runs without CAP_SYS_ADMIN.
      const script = [
        'umount /proc 2>/dev/null || umount -l /proc 2>/dev/null; echo "umount: $?"',
        `tr '\\0' '\\n' < /proc/${process.pid}/environ 2>/dev/null | grep -c '^PATH=' || true`,
        'grep CapEff /proc/self/status',
      ].join('\n');
      const result = await run(script, 'pid-namespace');
      const [umount, found] = result.stdout.text.split('\n');
      expect(umount).not.toBe('umount: 0');
      expect(found).toBe('0');
      const capEff = BigInt(`0x${/CapEff:\s*([0-9a-f]+)/.exec(result.stdout.text)?.[1] ?? '0'}`);
      const CAP_SYS_ADMIN = 21n;
      expect((capEff >> CAP_SYS_ADMIN) & 1n).toBe(0n);
    },
  );

  it('counts what the sweep had to kill', async () => {
    const sleep = marker();
    const result = await run(`setsid sleep ${sleep} >/dev/null 2>&1 &`, 'process-sweep');
    expect(result.sweptProcesses).toBe(1);
    expect(await survivorsWith(sleep, 500)).toEqual([]);
  });

  it('adds the marker to the environment only for the sweep', () => {
    const sweep = scopeCommand('/bin/sh', ['-c', 'true'], { A: '1' }, 'process-sweep');
    expect(sweep).toMatchObject({ file: '/bin/sh', args: ['-c', 'true'] });
    expect(Object.keys(sweep.env).sort()).toEqual(['A', 'CI_AGENT_PROCESS_SCOPE']);
    if (!available) return;
    const namespace = scopeCommand('/bin/sh', ['-c', 'true'], { A: '1' }, 'pid-namespace');
    expect(namespace.env).toEqual({ A: '1' });
    expect(namespace.args.slice(-3)).toEqual(['/bin/sh', '-c', 'true']);
  });

  // The sweep's documented limit: no marker, no group, no parent to trace it by. The namespace
  // catches the same process.
  it.each(MECHANISMS)(
    'with the %s, ends a call still running when ci-agent exits',
    async (mechanism, runs) => {
      if (!runs) return;
      const [escaped, waiting] = [marker(), marker()];
      const script = `setsid sleep ${escaped} >/dev/null 2>&1 & echo started; sleep ${waiting}`;
      const env: Record<string, string> =
        mechanism === 'process-sweep' ? { [MECHANISM_OVERRIDE_VARIABLE]: 'process-sweep' } : {};
      inNode([`${runIn(script, ', onOutput: () => process.exit(0)')};`], env);
      expect(await survivorsWith(escaped, 500)).toEqual([]);
      expect(await survivorsWith(waiting, 500)).toEqual([]);
    },
  );

  it('misses under the sweep, and only there, a process that dropped the marker and left the tree', async () => {
    const sleep = marker();
    const escape = `env -i setsid -f sleep ${sleep} >/dev/null 2>&1; sleep 0.2`;
    await run(escape, 'process-sweep');
    expect(processesWith(sleep)).toHaveLength(1);
    killAllWith(sleep);
    if (!available) return;
    await run(escape, 'pid-namespace');
    expect(await survivorsWith(sleep, 500)).toEqual([]);
  });
});

describe('startProcessScopeProbe', () => {
  /** process-scope.ts as loaded anew: nothing probed yet. */
  async function freshModule() {
    vi.resetModules();
    return await import('../../src/process/process-scope.js');
  }

  it('comes to the answer processScopeMechanism comes to, without being waited for', async () => {
    const fresh = await freshModule();
    const probe = fresh.startProcessScopeProbe();
    expect(probe).toBeInstanceOf(Promise);
    await probe;
    expect(fresh.processScopeMechanism()).toBe(processScopeMechanism());
  });

  it('uses the sweep when ci-agent is told to', async () => {
    const fresh = await freshModule();
    process.env[MECHANISM_OVERRIDE_VARIABLE] = 'process-sweep';
    try {
      await fresh.startProcessScopeProbe();
    } finally {
      delete process.env[MECHANISM_OVERRIDE_VARIABLE];
    }
    expect(fresh.processScopeMechanism()).toBe('process-sweep');
  });
});

describe('processScopeMechanism', () => {
  it.runIf(process.getuid?.() === 0)(
    'uses a PID namespace as root exactly where unshare can make one',
    () => {
      const unshare = execaSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], {
        reject: false,
      });
      expect(processScopeMechanism()).toBe(
        unshare.exitCode === 0 ? 'pid-namespace' : 'process-sweep',
      );
    },
  );

  it('uses the sweep when ci-agent is told to', async () => {
    const sleep = marker();
    const child = await inChild(sleep, { [MECHANISM_OVERRIDE_VARIABLE]: 'process-sweep' });
    expect(child).toMatchObject({ mechanism: 'process-sweep', swept: 1 });
    expect(await survivorsWith(sleep, 500)).toEqual([]);
  });

  // An ordinary user cannot make a PID namespace (without a user namespace, which would break
  // sudo): the sweep must hold there, with /proc read as that user.
  it.runIf(process.getuid?.() === 0)(
    'uses the sweep for an ordinary user, and it holds',
    async () => {
      const sleep = marker();
      const child = await inChild(sleep, {}, [
        'setpriv',
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        '--',
      ]);
      expect(child).toMatchObject({ mechanism: 'process-sweep', swept: 1 });
      expect(await survivorsWith(sleep, 500)).toEqual([]);
    },
  );
});

const TSX = pathToFileURL(
  resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs'),
).href;
const RUN_COMMAND = pathToFileURL(
  resolve(import.meta.dirname, '../../src/tools/builtin/bash/run-command.ts'),
).href;

/** Runs `body` (with runCommand imported) in a fresh Node process, as `prefix` says. */
function inNode(body: string[], env: Record<string, string>, prefix: string[] = []) {
  const code = [`const { runCommand } = await import(${JSON.stringify(RUN_COMMAND)});`, ...body];
  const node = [process.execPath, '--import', TSX, '--input-type=module', '-e', code.join('\n')];
  const [file, ...args] = [...prefix, ...node] as [string, ...string[]];
  const child = execaSync(file, args, {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '', HOME: '/tmp', ...env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
  });
  if (child.exitCode !== 0) throw new Error(`the child failed: ${child.stderr}`);
  return child.stdout;
}

const runIn = (script: string, onOutput = '') =>
  `runCommand({ shell: '/bin/sh', script: ${JSON.stringify(script)}, cwd: '/', ` +
  `env: { PATH: process.env.PATH }, timeoutMs: 10000, signal: new AbortController().signal, ` +
  `maxOutputChars: 1000${onOutput} })`;

/** Runs a setsid escape through runCommand in a fresh Node process; what the result says. */
function inChild(sleep: string, env: Record<string, string>, prefix: string[] = []) {
  const stdout = inNode(
    [
      `const result = await ${runIn(`setsid sleep ${sleep} >/dev/null 2>&1 &`)}.result;`,
      `console.log(JSON.stringify({ mechanism: result.processScope, swept: result.sweptProcesses }));`,
    ],
    env,
    prefix,
  );
  return JSON.parse(stdout) as unknown;
}
