/**
 * Why the sandbox could not start on this machine, and what fixes it; on a GitHub-hosted runner,
 * where the job has passwordless sudo and the machine is the job's alone, the fix itself.
 *
 * The known ways to get bubblewrap's namespaces where Ubuntu (23.10 and later, the ubuntu-24.04
 * runner image among them) restricts unprivileged user namespaces with AppArmor
 * (`kernel.apparmor_restrict_unprivileged_userns=1`: bwrap then fails "setting up uid map:
 * Permission denied", or "loopback: Failed RTM_NEWADDR"), compared:
 *   - an AppArmor profile that grants `userns` to /usr/bin/bwrap alone (what Ubuntu 25.04 ships
 *     as bwrap-userns-restrict): every other program keeps the restriction. Chosen.
 *   - the sysctl set to 0: lifts the restriction for every program on the machine.
 *   - namespaces made as root (sudo) and the command dropped to the runner's uid: the sandbox's
 *     set-up would run as root, and a mistake in it would be root's; bubblewrap refuses to be
 *     used that way unless installed setuid.
 * ubuntu-22.04 has no such restriction. Docker containers without CAP_SYS_ADMIN, and hosts with
 * `user.max_user_namespaces=0`, refuse namespaces outright: there is no fix from inside the job.
 */
import { existsSync, readFileSync } from 'node:fs';
import { findExecutable } from '../util/find-executable.js';
import { runHostTool } from './host-tools.js';

export class SandboxUnavailable extends Error {
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`the sandbox cannot start: ${reason}. Fix: ${fix}`);
    this.name = 'SandboxUnavailable';
  }
}

const APPARMOR_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';
export const APPARMOR_PROFILE_PATH = '/etc/apparmor.d/ci-agent-bwrap';
/** The narrow profile: bubblewrap may make user namespaces; nothing else changes. */
export function apparmorProfile(bwrapPath: string): string {
  return [
    'abi <abi/4.0>,',
    'include <tunables/global>',
    `profile ci-agent-bwrap ${bwrapPath} flags=(unconfined) {`,
    '  userns,',
    '}',
    '',
  ].join('\n');
}

const APPARMOR_FIX =
  'let bubblewrap alone make user namespaces with an AppArmor profile, in a step before this one: ' +
  "`printf 'abi <abi/4.0>,\\ninclude <tunables/global>\\nprofile ci-agent-bwrap /usr/bin/bwrap flags=(unconfined) {\\n  userns,\\n}\\n' | sudo tee " +
  `${APPARMOR_PROFILE_PATH} && sudo apparmor_parser -r ${APPARMOR_PROFILE_PATH}\`` +
  ' (on a GitHub-hosted runner ci-agent does this itself)';

export type ProbeDiagnosis = 'apparmor-userns' | 'namespaces-refused' | 'other';

/** What a failed probe's message says about the machine. */
export function diagnoseProbe(message: string, apparmorRestricts: boolean): ProbeDiagnosis {
  const namespace =
    /setting up uid map|RTM_NEWADDR|No permissions to creat|Creating new namespace failed|unshare .*Operation not permitted|Operation not permitted/i.test(
      message,
    );
  if (namespace && apparmorRestricts) return 'apparmor-userns';
  if (namespace) return 'namespaces-refused';
  return 'other';
}

export function apparmorRestrictsUserNamespaces(sysctlPath = APPARMOR_SYSCTL): boolean {
  try {
    return existsSync(sysctlPath) && readFileSync(sysctlPath, 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

export function explainProbeFailure(message: string): SandboxUnavailable {
  const shown = message.split('\n').slice(0, 5).join(' ').slice(0, 400);
  switch (diagnoseProbe(message, apparmorRestrictsUserNamespaces())) {
    case 'apparmor-userns':
      return new SandboxUnavailable(
        `AppArmor keeps unprivileged programs from making user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1), and bubblewrap needs them: "${shown}"`,
        APPARMOR_FIX,
      );
    case 'namespaces-refused':
      return new SandboxUnavailable(
        `this machine refuses the namespaces bubblewrap needs (a container without CAP_SYS_ADMIN, or user.max_user_namespaces=0): "${shown}"`,
        'run the job on a virtual machine runner (GitHub-hosted ubuntu-22.04 or ubuntu-24.04), or give the container `--security-opt seccomp=unconfined --cap-add SYS_ADMIN`, or set `sandbox: off` in the policy to run unsandboxed',
      );
    case 'other':
      return new SandboxUnavailable(
        `bubblewrap could not set up the sandbox: "${shown}"`,
        'check that the paths the policy names under sandbox exist and are folders, or set `sandbox: off` in the policy to run unsandboxed',
      );
  }
}

/**
 * On a GitHub-hosted runner with passwordless sudo: installs bubblewrap (and socat when the
 * network is wanted) if missing, and the AppArmor profile where the restriction is on. Returns
 * what it did, one line each, for the log; nothing where it is not such a runner.
 */
export async function prepareHostedRunner(
  env: NodeJS.ProcessEnv,
  needs: { socat: boolean },
): Promise<string[]> {
  if (env.RUNNER_ENVIRONMENT !== 'github-hosted' || process.platform !== 'linux') return [];
  const path = env.PATH;
  const sudo = (args: string[], input?: string) =>
    runHostTool('sudo', ['-n', ...args], {
      path,
      timeoutMs: 180_000,
      ...(input !== undefined && { input }),
    });
  if ((await sudo(['true'])).exitCode !== 0) return [];
  const done: string[] = [];
  const missing = [
    ...(findExecutable(path, ['bwrap']) ? [] : ['bubblewrap']),
    ...(needs.socat && !findExecutable(path, ['socat']) ? ['socat'] : []),
  ];
  if (missing.length > 0) {
    const started = Date.now();
    const installed = await sudo([
      'apt-get',
      'install',
      '-y',
      '--no-install-recommends',
      ...missing,
    ]);
    done.push(
      installed.exitCode === 0
        ? `installed ${missing.join(', ')} (${Math.round((Date.now() - started) / 1000)} s)`
        : `could not install ${missing.join(', ')}: ${installed.stderr.trim().slice(-300)}`,
    );
  }
  if (apparmorRestrictsUserNamespaces() && !existsSync(APPARMOR_PROFILE_PATH)) {
    const bwrap = findExecutable(path, ['bwrap']) ?? '/usr/bin/bwrap';
    const wrote = await sudo(['tee', APPARMOR_PROFILE_PATH], apparmorProfile(bwrap));
    const loaded =
      wrote.exitCode === 0 ? await sudo(['apparmor_parser', '-r', APPARMOR_PROFILE_PATH]) : wrote;
    done.push(
      loaded.exitCode === 0
        ? `loaded the AppArmor profile ${APPARMOR_PROFILE_PATH}: ${bwrap} may make user namespaces`
        : `could not load the AppArmor profile for bubblewrap: ${loaded.stderr.trim().slice(-300)}`,
    );
  }
  return done;
}
