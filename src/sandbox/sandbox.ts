/**
 * The OS sandbox everything the agent runs goes through: the Bash tool, the test command, hooks
 * and MCP stdio servers. bubblewrap makes, per call, a user, PID, network, IPC and UTS namespace
 * and the mount view of mount-plan.ts; the boundary is the kernel's, not a classifier's:
 *   - a PID namespace with its own /proc: nothing outside is visible, readable or signalled, and
 *     when the command ends (or bubblewrap is killed, or ci-agent is: `--die-with-parent` sets the
 *     parent-death signal on bubblewrap and on the namespace's init; killed-controller.test.ts), the
 *     kernel kills whatever is left in it;
 *   - no new privileges (bubblewrap sets no_new_privs; every capability dropped): `sudo` and other
 *     setuid programs do not raise anything; no nested user namespace where bubblewrap can refuse
 *     it (`--disable-userns`, bubblewrap 0.8);
 *   - a network namespace of its own: only its loopback, and, when the policy names domains, a
 *     Unix socket to the filtering proxy ci-agent runs outside (network-proxy.ts), bridged to a
 *     port on that loopback (network-bridge.ts); a process that ignores the proxy variables has
 *     no route anywhere;
 *   - the environment is what the caller hands over (tool-environment.ts: an allow-list).
 *
 * Sequence of `startSandbox`:
 *   1. find bubblewrap, and what it can do;
 *   2. work out the mount plan from the runner's environment, the workspace and the policy;
 *   3. make the private /tmp; start the network proxy when the policy names domains;
 *   4. probe: run `true` in exactly that sandbox; if it fails, say why and what fixes it
 *      (host-setup.ts), and start nothing.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { runProcess, type CommandWrapper } from '../process/run-process.js';
import { findExecutable } from '../util/find-executable.js';
import { bridgeCommand, DEFAULT_BRIDGE_PORT, proxyEnvironment } from './network-bridge.js';
import { startNetworkProxy, type NetworkDecision, type NetworkProxy } from './network-proxy.js';
import { ALWAYS_HIDDEN, buildMountPlan, mountArguments, type MountPlan } from './mount-plan.js';
import { explainProbeFailure, SandboxUnavailable } from './host-setup.js';
import { isInside } from '../tools/paths.js';
import type { SandboxView } from '../tools/tool.js';
import { JUDGES_IN_ROOT } from '../permissions/judges.js';
import { findCredentialFiles } from '../util/credential-files.js';
import { watchAbsentJudges } from './absent-judges.js';
import { bwrapVersion } from './bwrap-version.js';
import { CONTROL_FILES, findGitDirs, HOOKS } from '../util/git-dirs.js';

export interface SandboxPolicy {
  allowedDomains: readonly string[];
  /** Absolute paths (the policy loader resolves `~/` and relative entries). */
  allowWrite: readonly string[];
  denyWrite: readonly string[];
  denyRead: readonly string[];
  allowRead: readonly string[];
}

export interface SandboxRequest {
  /** The workspace first, then the other roots the agent may write. */
  workspaceRoots: readonly string[];
  home: string;
  /** ci-agent's own environment: where the runner keeps its folders. */
  env: NodeJS.ProcessEnv;
  policy: SandboxPolicy;
  /** Files the agent must not change: policy, settings, hook scripts (judges.ts). */
  judges: readonly string[];
  /** Hears every network decision of the proxy (the tool log records them). */
  onNetworkDecision?: (decision: NetworkDecision) => void;
}

/** The tools' view of it (tools/tool.ts), and what its owner starts, reports and closes. */
export interface Sandbox extends SandboxView {
  readonly mechanism: 'bubblewrap';
  readonly version: string;
  readonly plan: MountPlan;
  readonly allowedDomains: readonly string[];
  /** One line for the report and the log. */
  describe(): string;
  /**
   * Commands started in it; of the Bash calls and test commands (whose results are checked),
   * how many it could not set up, and the last such failure's first line.
   */
  stats(): {
    commands: number;
    checked: number;
    setupFailures: number;
    lastFailure?: string;
    /** Judges that appeared where there were none, and were removed (relative to their root). */
    judgesRemoved: string[];
  };
  /**
   * Removes what appeared at a judge location that was absent at the start (absent-judges.ts);
   * returns it. Run after every command the sandbox wraps, and by `close`.
   */
  sweepJudges(): string[];
  close(): Promise<void>;
}

/** Tool folders under a home that hold programs and no credentials (GitHub-hosted images). */
const HOME_TOOL_FOLDERS = ['.local/bin', '.cargo/bin', '.rustup', '.dotnet/tools'];

/**
 * The most tasks (processes and threads) a sandboxed command may have at once: a fork bomb stops
 * there instead of at the host's PID limit (32768 on some machines), taking every other job on a
 * shared runner with it. Far above what a build or a test suite starts (a Node process is about
 * 11 threads; `make -j`, jest's workers and a JVM's threads stay in the hundreds). RLIMIT_NPROC,
 * set by the prelude below, counts per user namespace since Linux 5.14: inside bubblewrap's it
 * counts the sandbox's own tasks, not the user's on the host. The kernel does not apply it to
 * root (a self-hosted runner running as root): there the limit is not held (SECURITY.md).
 */
export const MAX_SANDBOX_TASKS = 4096;

/**
 * What runs first inside, in /bin/sh, before `exec "$@"` (so that the command is the process
 * bubblewrap started: its pid, exit status and signals are the command's): the soft limit, then
 * the hard one, so that the command cannot raise it again. Where the hard limit is already
 * lower, setting the soft one fails and the lower one holds. A lower soft limit is raised
 * inside, and still holds for the host: the kernel counts each user namespace and its parent's,
 * the user's tasks on the host against the limit bubblewrap started with. dash (Debian's and
 * Ubuntu's sh) names the limit `-p`, bash and busybox `-u`; in bash `-p` is the pipe size, which
 * cannot be set, so the second try is harmless where the first did its work.
 */
function limitsPrelude(): string {
  const limit = (flag: string) =>
    `{ ulimit -S -${flag} ${MAX_SANDBOX_TASKS} && ulimit -H -${flag} ${MAX_SANDBOX_TASKS}; } 2>/dev/null`;
  return `${limit('u')} || ${limit('p')}`;
}

/**
 * Inside every writable root: where git finds programs to run and filters to apply (the config
 * and the per-worktree config, the hooks, the attributes, and `commondir`, which would make
 * another folder's config the repository's), and the judges (judges.ts). Those that exist are
 * mounted read-only; those that do not are kept absent (absent-judges.ts).
 */
const PROTECTED_IN_ROOTS = [
  '.git/config',
  '.git/config.worktree',
  '.git/commondir',
  '.git/hooks',
  '.git/info/attributes',
  ...JUDGES_IN_ROOT,
];

/**
 * The same for each submodule's git directory (`.git/modules/<name>/`, nested ones too), which
 * the host's git runs later (a `git submodule foreach`, a status that recurses, actions/checkout's
 * post-job cleanup); and each submodule's `.git` file, which names that git directory: a `.git`
 * folder the agent put in its place would be a repository of its own. A `.git` file that does
 * not exist (a submodule not checked out) the agent may make (`git submodule update`); a git
 * directory that was not there before, the action removes (git-control.ts).
 */
function submoduleControl(root: string): { control: string[]; pointers: string[] } {
  const dirs = findGitDirs(root);
  return {
    control: dirs.submodules.flatMap((dir) =>
      [...CONTROL_FILES, HOOKS].map((name) => join(dir, name)),
    ),
    pointers: dirs.pointers.filter((pointer) => isInside(pointer, root)),
  };
}

export async function startSandbox(request: SandboxRequest): Promise<Sandbox> {
  const tools = findTools(request.env.PATH);
  const base = mkdtempSync(join(tmpdir(), 'ci-agent-sandbox-'));
  const privateTmp = join(base, 'tmp');
  mkdirSync(privateTmp, { mode: 0o700 });
  const network = request.policy.allowedDomains.length > 0;
  const socketDir = join(base, 'net');
  const socketPath = join(socketDir, 'proxy.sock');
  let proxy: NetworkProxy | undefined;
  /** The proxy's refusals in order: a call reports those made while it ran. */
  const refusals: string[] = [];
  try {
    if (network) {
      if (!tools.socat) {
        throw new SandboxUnavailable(
          'the policy lets the sandbox reach network domains, and that needs socat, which is not installed',
          'install it before this step (`sudo apt-get install -y socat`), or remove sandbox.network.allowedDomains from the policy',
        );
      }
      mkdirSync(socketDir, { mode: 0o700 });
      proxy = await startNetworkProxy({
        socketPath,
        allowedDomains: request.policy.allowedDomains,
        onDecision: (decision) => {
          if (!decision.allowed) refusals.push(decision.reason);
          request.onNetworkDecision?.(decision);
        },
      });
    }
    const { absentJudges: absentCandidates, ...planInput } = layout(request);
    const plan = buildMountPlan({
      ...planInput,
      privateTmp,
      ...(network && { passThrough: [socketDir] }),
    });
    const absentJudges = watchAbsentJudges(absentCandidates);
    const judgesRemoved: string[] = [];
    const sweepJudges = () => {
      const removed = absentJudges.sweep();
      judgesRemoved.push(...removed);
      return removed;
    };
    const fixedArgs = (disableUserns: boolean) => [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      ...(disableUserns ? ['--disable-userns'] : []),
      ...mountArguments(plan.mounts),
      '--setenv',
      'TMPDIR',
      '/tmp',
    ];
    const fixed = { with: fixedArgs(true), without: fixedArgs(false) };
    const env = { TMPDIR: '/tmp', ...(network ? proxyEnvironment(DEFAULT_BRIDGE_PORT) : {}) };
    const prelude = [
      limitsPrelude(),
      ...(network ? [bridgeCommand(socketPath, DEFAULT_BRIDGE_PORT)] : []),
    ].join('\n');
    const counts = {
      commands: 0,
      checked: 0,
      setupFailures: 0,
      lastFailure: undefined as string | undefined,
    };
    const wrapWith =
      (disableUserns: boolean): CommandWrapper['wrap'] =>
      (file, args, cwd) => ({
        file: tools.bwrap,
        args: [
          ...(disableUserns ? fixed.with : fixed.without),
          '--chdir',
          cwd,
          '--',
          '/bin/sh',
          '-c',
          `${prelude}\nexec "$@"`,
          'sh',
          file,
          ...args,
        ],
      });
    // The probe asks for --disable-userns (bubblewrap 0.8) at once, beside the version query:
    // one round of processes before the first request; an older bubblewrap answers that it
    // does not know the option, and is probed again without it.
    const [version, first] = await Promise.all([
      bwrapVersion(tools.bwrap, request.env.PATH),
      probe(wrapWith(true), request),
    ]);
    let wrap = wrapWith(true);
    if (first !== undefined) {
      if (!/disable-userns/.test(first)) throw explainProbeFailure(first);
      wrap = wrapWith(false);
      const second = await probe(wrap, request);
      if (second !== undefined) throw explainProbeFailure(second);
    }
    const domains = request.policy.allowedDomains;
    return {
      mechanism: 'bubblewrap',
      version,
      plan,
      allowedDomains: domains,
      env,
      // The kernel holds no task whose real user is root to RLIMIT_NPROC.
      ...(process.getuid?.() !== 0 && { maxTasks: MAX_SANDBOX_TASKS }),
      wrap: (file, args, cwd) => {
        counts.commands++;
        return wrap(file, args, cwd);
      },
      afterRun: sweepJudges,
      sweepJudges,
      isSetupFailure: (result) => {
        counts.checked++;
        if (!isSetupFailure(result)) return false;
        counts.setupFailures++;
        counts.lastFailure = result.stderr.trim().split('\n')[0]?.slice(0, 300);
        return true;
      },
      stats: () => ({
        commands: counts.commands,
        checked: counts.checked,
        setupFailures: counts.setupFailures,
        ...(counts.lastFailure !== undefined && { lastFailure: counts.lastFailure }),
        judgesRemoved: [...new Set(judgesRemoved)],
      }),
      networkMark: () => refusals.length,
      networkRefusalsSince: (mark) => [...new Set(refusals.slice(mark))],
      isHidden: (path) => plan.isHidden(path),
      isWritable: (path) => plan.isWritable(path),
      hostPath: (path) => plan.hostPath(path),
      describe: () =>
        `bubblewrap ${version}: no credentials, the runner's files hidden, ` +
        (domains.length > 0 ? `network only to ${domains.join(', ')}` : 'no network'),
      close: async () => {
        sweepJudges();
        await proxy?.close();
        rmSync(base, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await proxy?.close();
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
}

/** bubblewrap's own failures (a mount it could not make, a namespace refused) start so. */
export function isSetupFailure(result: { exitCode: number | null; stderr: string }): boolean {
  return result.exitCode === 1 && /^bwrap: /m.test(result.stderr.slice(0, 4096));
}

interface Tools {
  bwrap: string;
  socat: string | undefined;
}

function findTools(path: string | undefined): Tools {
  const bwrap = findExecutable(path, ['bwrap']);
  if (!bwrap) {
    throw new SandboxUnavailable(
      'bubblewrap (bwrap) is not installed, and ci-agent runs every command the agent causes in its sandbox',
      'install it before this step: `sudo apt-get install -y bubblewrap` (Debian, Ubuntu), or set `sandbox: off` in the policy to run unsandboxed',
    );
  }
  return { bwrap, socat: findExecutable(path, ['socat']) };
}

/** The mount plan's inputs: which of the runner's and the policy's paths exist, as real paths. */
function layout(request: SandboxRequest) {
  const { env, home, policy } = request;
  const real = (path: string | undefined): string | undefined => {
    if (!path) return undefined;
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  };
  const existing = (paths: readonly (string | undefined)[]) =>
    paths.map(real).filter((path): path is string => path !== undefined);
  const roots = existing(request.workspaceRoots);
  const realHome = real(home);
  const fileCommands = [
    env.GITHUB_ENV,
    env.GITHUB_PATH,
    env.GITHUB_OUTPUT,
    env.GITHUB_STATE,
    env.GITHUB_STEP_SUMMARY,
  ].map((file) => (file ? dirname(file) : undefined));
  const hidden = existing([
    ...ALWAYS_HIDDEN.filter((path) => isRealDirectory(path)),
    env.RUNNER_TEMP,
    ...fileCommands,
    ...runnerFolders(env),
    ...policy.denyRead,
  ]).filter((path) => path !== '/');
  const inside = realHome && roots.find((root) => isInside(realHome, root));
  if (inside) {
    throw new SandboxUnavailable(
      `the workspace ${inside} is the home directory ${realHome} or holds it: the sandbox cannot show the workspace and hide what the home keeps (credentials)`,
      'run ci-agent in a project folder below the home directory',
    );
  }
  for (const cache of policy.allowWrite) mkdirSync(cache, { recursive: true });
  const submodules = roots.map(submoduleControl);
  const protectedPaths = roots.flatMap((root, index) => [
    ...PROTECTED_IN_ROOTS.map((path) => join(root, path)),
    ...(submodules[index]?.control ?? []),
  ]);
  return {
    workspaceRoots: roots,
    home: realHome,
    hidden,
    // The model provider's credential files: what the environment names, and what
    // google-github-actions/auth left in the workspace (gha-creds-*.json).
    hiddenFiles: existing(findCredentialFiles(env, roots[0] ?? '/', roots)),
    readable: existing([
      ...HOME_TOOL_FOLDERS.map((folder) => join(home, folder)),
      env.RUNNER_TOOL_CACHE,
      ...policy.allowRead,
    ]),
    writable: existing(policy.allowWrite),
    readOnly: existing([
      ...protectedPaths,
      ...submodules.flatMap(({ pointers }) => pointers),
      ...request.judges,
      ...policy.denyWrite,
    ]),
    absentJudges: protectedPaths.flatMap((location) => {
      if (real(location) !== undefined) return [];
      const where = realLocation(location);
      const inRoot = roots.find((candidate) => isInside(where, candidate));
      return inRoot ? [{ root: inRoot, path: where }] : [];
    }),
  };
}

/**
 * Where an absent path would be created: below the real path of its nearest existing folder
 * (`.github` may be a link into the repository), so that the check walks no link that was there.
 */
function realLocation(path: string): string {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    try {
      return join(realpathSync(at), relative(at, path));
    } catch {
      // absent too: look one folder up
    }
  }
  return path;
}

/**
 * The runner's work folder and, for a self-hosted runner, its installation (`<root>/_work`): the
 * other actions' code, the runner's credentials (`.credentials`, `.credentials_rsaparams`).
 */
function runnerFolders(env: NodeJS.ProcessEnv): string[] {
  if (!env.RUNNER_WORKSPACE) return [];
  const work = dirname(env.RUNNER_WORKSPACE);
  return basename(work) === '_work' ? [work, dirname(work)] : [work];
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory() && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Runs `exit 0` in exactly the sandbox calls will get; undefined when it ran, else why not. */
async function probe(
  wrap: CommandWrapper['wrap'],
  request: SandboxRequest,
): Promise<string | undefined> {
  const cwd = request.workspaceRoots[0] ?? '/';
  const wrapped = wrap('/bin/sh', ['-c', 'exit 0'], cwd);
  const result = await runProcess({
    file: wrapped.file,
    args: wrapped.args,
    cwd,
    env: { PATH: request.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 30_000,
    scope: 'process-group',
  }).result;
  if (result.outcome === 'exited' && result.exitCode === 0) return undefined;
  return result.error ?? (result.stderr.text.trim() || `exit ${result.exitCode}`);
}
