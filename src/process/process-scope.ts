/**
 * A process scope: whatever one call starts ends with the call, processes that made a session
 * or process group of their own (`setsid`, `nohup … &`, a double fork) included.
 *
 * Two mechanisms, chosen once per ci-agent process (`processScopeMechanism`):
 *   - pid-namespace: the command runs in a PID namespace of its own (util-linux `unshare`)
 *     under a small init, `sh`. When the init ends — the command exited, or the call killed it —
 *     the kernel kills every process left in the namespace; nothing can leave a PID namespace.
 *     /proc is mounted anew inside (in a mount namespace that receives the host's mounts but
 *     keeps its own), so `ps` and `pgrep` see the call's own processes by the pids the call
 *     knows them by, and nothing outside is visible or can be signalled by pid. Needs
 *     CAP_SYS_ADMIN: root, outside a container that withholds it. Not covered: what a daemon
 *     starts on the call's behalf (`docker run`, `systemd-run`): not the call's processes.
 *
 * Either way, calls still running when ci-agent exits are ended on its way out
 * (`endAllOnExit`); only a SIGKILL of ci-agent itself leaves them to run to their own end.
 *   - process-sweep, everywhere else: a marker in the environment; when the call ends, every
 *     process started since the call began that carries the marker, is in the call's process
 *     group, or descends from one of those, is stopped (so it cannot fork any more) and then
 *     killed, again until a sweep finds no new one. Misses a process that dropped the marker
 *     from its environment (`env -i`, `sudo`) and also left the group and the process tree
 *     (setsid after a double fork) before the sweep, and another user's processes.
 *
 * A fourth, sandbox: the call runs in the OS sandbox (src/sandbox/), whose PID namespace the
 * kernel empties when the command ends or bubblewrap dies; the group bubblewrap leads is killed
 * on the way out, as for process-group.
 *
 * A third kind, process-group, is only the process group the call leads: what stayed in the group
 * is killed when the call ends, nothing is looked for outside it. For ci-agent's own short
 * commands (git, ripgrep), which start nothing that leaves the group, and cost no /proc sweep.
 *
 * An ordinary user could have a PID namespace inside an unprivileged user namespace, but in a
 * user namespace setuid programs lose their privilege, and `sudo` (how a job on a GitHub-hosted
 * runner installs things) would stop working; so an ordinary user gets the sweep.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import {
  environHas,
  groupRuns,
  listProcesses,
  readProcess,
  signalGroup,
  signalProcess,
  type ProcessEntry,
} from './process-table.js';

export type ProcessScopeMechanism = 'pid-namespace' | 'process-sweep';
/** A mechanism, or the process group alone (see above). */
export type ProcessScopeKind = ProcessScopeMechanism | 'process-group' | 'sandbox';

export interface ScopedCommand {
  /** What to spawn (detached, so that it leads a process group) instead of the command. */
  file: string;
  args: string[];
  env: Record<string, string>;
  scope: ProcessScope;
}

/** The environment variable a sweep recognizes the call's processes by. */
export const SCOPE_MARKER_VARIABLE = 'CI_AGENT_PROCESS_SCOPE';
/** Set to `process-sweep` in ci-agent's own environment to use the sweep even where root. */
export const MECHANISM_OVERRIDE_VARIABLE = 'CI_AGENT_PROCESS_SCOPE_MECHANISM';
/** A sweep that keeps finding new processes (a fork loop) gives up after this many rounds. */
const MAX_SWEEP_ROUNDS = 20;
/**
 * The namespace's init, run by `sh` with the sleep binary and the command as its arguments.
 *   - The command is not exec'ed (nor is it the last command, which sh would exec): as pid 1 it
 *     would receive only the signals it has a handler for, and SIGTERM would not reach it.
 *   - Once the call is being stopped (SIGTERM, which the trap notes), the init outlives the
 *     command until the rest of the namespace has exited too: what handles SIGTERM gets the
 *     grace to clean up, and the SIGKILL that ends the grace takes the init, so the namespace.
 *     Waiting reaps the orphans the init inherits, so exited ones do not count.
 *   - Its own messages ("Terminated") go nowhere; the command keeps the real stderr (given in
 *     the subshell: a redirection on a plain command would also cover the init's report).
 */
const INIT_SCRIPT = [
  'trap stopping=1 TERM',
  'exec 3>&2 2>/dev/null',
  'sleep_bin=$1',
  'shift',
  '(exec "$@" 2>&3 3>&-)',
  'status=$?',
  'if [ "${stopping-}" ]; then',
  '  while set -- /proc/[0-9]*; [ $# -gt 1 ]; do "$sleep_bin" 0.02; done',
  'fi',
  'exit $status',
].join('\n');
const TOOL_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

export function scopeCommand(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  mechanism: ProcessScopeKind = processScopeMechanism(),
): ScopedCommand {
  if (mechanism === 'process-group' || mechanism === 'sandbox') {
    return {
      file,
      args: [...args],
      env: { ...env },
      scope: new ProcessScope(mechanism, undefined),
    };
  }
  const tools = mechanism === 'pid-namespace' ? namespaceTools() : undefined;
  if (!tools) {
    const marker = randomUUID();
    const scope = new ProcessScope('process-sweep', `${SCOPE_MARKER_VARIABLE}=${marker}`);
    return { file, args: [...args], env: { ...env, [SCOPE_MARKER_VARIABLE]: marker }, scope };
  }
  return {
    file: tools.unshare,
    args: [...namespacePrefix(tools), file, ...args],
    env: { ...env },
    scope: new ProcessScope('pid-namespace', undefined),
  };
}

/** Scopes attached and not yet ended: what ci-agent still has to end if it exits first. */
const live = new Set<ProcessScope>();

/**
 * ci-agent exiting (a second signal, `process.exit`, an uncaught exception) ends every call
 * still running; 'exit' handlers run synchronously, and so does all of `end()`. Not covered:
 * ci-agent killed by SIGKILL.
 */
function endAllOnExit(): void {
  for (const scope of live) {
    scope.signal('SIGKILL');
    scope.end();
  }
}

export class ProcessScope {
  private leader: ProcessEntry | undefined;

  constructor(
    readonly mechanism: ProcessScopeKind,
    private readonly markerEntry: string | undefined,
  ) {}

  /** Call right after spawning, with the spawned process's pid (its group id too). */
  attach(pid: number | undefined): void {
    if (pid === undefined) return;
    this.leader = readProcess(pid) ?? fallbackEntry(pid);
    if (live.size === 0) process.once('exit', endAllOnExit);
    live.add(this);
  }

  /** Signals the process group: what stayed in it gets a chance to stop on its own. */
  signal(signal: NodeJS.Signals): void {
    signalGroup(this.leader?.pid, signal);
  }

  /** Whether a process of the group still runs. */
  groupRuns(): boolean {
    return this.leader !== undefined && groupRuns(this.leader.pid);
  }

  /**
   * Kills whatever of the call still runs; safe to call more than once. Returns how many
   * processes the sweep killed (always 0 for the namespace, where the kernel does it).
   */
  end(): number {
    const leader = this.leader;
    if (!leader) return 0;
    live.delete(this);
    if (live.size === 0) process.removeListener('exit', endAllOnExit);
    if (this.mechanism === 'process-group' || this.mechanism === 'sandbox') {
      // A group id stays reserved while a member runs, so it names nothing else meanwhile; the
      // leader was reaped moments ago, too soon for its pid to have come round again.
      signalGroup(leader.pid, 'SIGKILL');
      return 0;
    }
    if (this.markerEntry === undefined) {
      // Once the init is gone the kernel has emptied the namespace; before, killing the group
      // (unshare and the init among it) does the same.
      if (readProcess(leader.pid)?.startTicks === leader.startTicks) {
        signalGroup(leader.pid, 'SIGKILL');
      }
      return 0;
    }
    return sweep(leader, this.markerEntry);
  }
}

function sweep(leader: ProcessEntry, markerEntry: string): number {
  const stopped = new Map<number, ProcessEntry>();
  for (let round = 0; round < MAX_SWEEP_ROUNDS; round++) {
    const found = scoped(listProcesses(), leader, markerEntry).filter((p) => !stopped.has(p.pid));
    if (found.length === 0) break;
    for (const entry of found) {
      signalProcess(entry, 'SIGSTOP');
      stopped.set(entry.pid, entry);
    }
  }
  for (const entry of stopped.values()) signalProcess(entry, 'SIGKILL');
  return stopped.size;
}

/** The call's processes: started since it began, and marked, in its group, or a descendant. */
function scoped(
  processes: ProcessEntry[],
  leader: ProcessEntry,
  markerEntry: string,
): ProcessEntry[] {
  // A process started before the leader cannot be the call's: this is what keeps a reused pid
  // from being mistaken for one of them.
  const recent = processes.filter(
    (p) => !p.zombie && p.pid !== process.pid && p.startTicks >= leader.startTicks,
  );
  const mine = new Set<number>();
  for (const p of recent) {
    if (p.pgrp === leader.pid || p.pid === leader.pid || environHas(p.pid, markerEntry)) {
      mine.add(p.pid);
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const p of recent) {
      if (mine.has(p.pid) || !mine.has(p.ppid)) continue;
      mine.add(p.pid);
      grew = true;
    }
  }
  return recent.filter((p) => mine.has(p.pid));
}

/** When /proc cannot be read the leader is known by its pid alone; nothing to compare with. */
function fallbackEntry(pid: number): ProcessEntry {
  return { pid, ppid: process.pid, pgrp: pid, startTicks: 0, zombie: false };
}

interface NamespaceTools {
  unshare: string;
  sleep: string;
  /** util-linux setpriv, when it is there and works: the call runs without CAP_SYS_ADMIN. */
  setpriv?: string;
}

/**
 * The call runs as root with root's capabilities. With CAP_SYS_ADMIN it could `umount /proc`
 * and see the host's /proc under it (ci-agent's environment in `/proc/<pid>/environ`), so
 * setpriv drops it from the call's bounding and inheritable sets: a root process keeps only what
 * the bounding set holds across `exec`. The init keeps it (it runs before setpriv).
 */
const DROP_SYS_ADMIN = ['--inh-caps=-sys_admin', '--bounding-set=-sys_admin', '--'];

function namespacePrefix(tools: NamespaceTools): string[] {
  return [
    ...['--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'slave'],
    ...['--', '/bin/sh', '-c', INIT_SCRIPT, 'ci-agent-init', tools.sleep],
    ...(tools.setpriv ? [tools.setpriv, ...DROP_SYS_ADMIN] : []),
  ];
}

let cachedTools: NamespaceTools | undefined;
let cachedMechanism: ProcessScopeMechanism | undefined;
let probing: Promise<void> | undefined;

/**
 * The mechanism this process uses: a PID namespace where one can be made, else the sweep. The
 * answer of startProcessScopeProbe when it is in; else found now, waiting for the probe.
 */
export function processScopeMechanism(): ProcessScopeMechanism {
  cachedMechanism ??= decide(probeCandidate(), (tools) => probeSucceeds(tools));
  return cachedMechanism;
}

/**
 * Starts finding the mechanism without waiting for it: where it takes a probe (root on Linux),
 * the probe runs while the caller goes on (the action starts it before it reads the checkout,
 * so that its answer is in by the time the run's first log line names it). Resolves when the
 * probe has ended; never rejects.
 */
export function startProcessScopeProbe(): Promise<void> {
  if (probing !== undefined) return probing;
  const candidate = cachedMechanism === undefined ? probeCandidate() : undefined;
  if (candidate === undefined) {
    cachedMechanism ??= 'process-sweep';
    probing = Promise.resolve();
    return probing;
  }
  probing = execa(candidate.unshare, probeArgs(candidate), {
    ...PROBE_OPTIONS,
    cleanup: false,
  }).then(
    (probe) => {
      cachedMechanism ??= decide(candidate, () => probe.exitCode === 0);
    },
    // Not decided: processScopeMechanism() probes again when asked.
    () => undefined,
  );
  return probing;
}

/** The tools a PID namespace needs, where one may be made (root on Linux); else undefined. */
function probeCandidate(): NamespaceTools | undefined {
  if (process.env[MECHANISM_OVERRIDE_VARIABLE] === 'process-sweep') return undefined;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const [unshare, sleep, setpriv] = ['unshare', 'sleep', 'setpriv'].map(findTool);
  if (!unshare || !sleep || !existsSync('/bin/sh')) return undefined;
  return { unshare, sleep, ...(setpriv && { setpriv }) };
}

/**
 * A namespace whose calls keep CAP_SYS_ADMIN (no setpriv, or one that cannot drop it here) is
 * still one: nothing outlives the call, though its /proc is only as private as the call lets it
 * be (docs/POLICY.md).
 */
function decide(
  tools: NamespaceTools | undefined,
  succeeds: (tools: NamespaceTools) => boolean,
): ProcessScopeMechanism {
  if (tools === undefined) return 'process-sweep';
  const withoutSetpriv = { unshare: tools.unshare, sleep: tools.sleep };
  const chosen = succeeds(tools)
    ? tools
    : tools.setpriv && probeSucceeds(withoutSetpriv)
      ? withoutSetpriv
      : undefined;
  if (chosen === undefined) return 'process-sweep';
  cachedTools = chosen;
  return 'pid-namespace';
}

// Inside a container without CAP_SYS_ADMIN, unshare fails even as root: try it once. The probe
// started early has `cleanup: false`: execa's kill-on-exit handler (signal-exit) hooks every
// signal of the process the first time it is used, main-thread time before the action's first
// model request (docs/BENCHMARKS.md), for a `sleep 0` that ends by itself.
const PROBE_OPTIONS = { stdio: 'ignore', timeout: 5_000, reject: false } as const;

function probeArgs(tools: NamespaceTools): string[] {
  return [...namespacePrefix(tools), tools.sleep, '0'];
}

function probeSucceeds(tools: NamespaceTools): boolean {
  return execaSync(tools.unshare, probeArgs(tools), PROBE_OPTIONS).exitCode === 0;
}

function namespaceTools(): NamespaceTools | undefined {
  if (processScopeMechanism() !== 'pid-namespace') return undefined;
  return cachedTools;
}

function findTool(name: string): string | undefined {
  return TOOL_DIRS.map((dir) => join(dir, name)).find((path) => existsSync(path));
}
