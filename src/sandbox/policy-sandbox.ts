/**
 * The sandbox one run asks for, started from what the action and the CLI both know: the loaded
 * policy's `sandbox` section, the workspace roots, the judges and the run's own files. Whether
 * a run is sandboxed at all is the caller's to decide (the action: unless `sandbox: off`; the
 * CLI: when a source turns it on); this is the part they share:
 *   1. Linux only (bubblewrap);
 *   2. on a GitHub-hosted runner, what the sandbox needs installed or allowed (host-setup.ts);
 *   3. startSandbox, whose probe throws SandboxUnavailable with the reason and the fix.
 */
import { homedir } from 'node:os';
import type { LoadedSandbox } from '../policy/sandbox-settings.js';
import { prepareHostedRunner, SandboxUnavailable } from './host-setup.js';
import { startSandbox, type Sandbox } from './sandbox.js';

export interface PolicySandboxRequest {
  /** The workspace first, then the other roots the agent may write. */
  workspaceRoots: readonly string[];
  env: NodeJS.ProcessEnv;
  /**
   * The run's own files or folders the hooks may read (the transcript), shown read-only: a file
   * alone when it exists by now, else a folder of the run's own that will hold it (never a
   * shared one such as /tmp or the home: all of it would be in sight).
   */
  readable: readonly string[];
  /** Files the agent must not change (the policy, the settings): absolute paths. */
  judges: readonly string[];
}

export interface PolicySandbox {
  sandbox: Sandbox;
  /** What was set up on the machine, one line each, for the log. */
  notes: string[];
}

export async function startPolicySandbox(
  settings: LoadedSandbox,
  request: PolicySandboxRequest,
): Promise<PolicySandbox> {
  if (process.platform !== 'linux') {
    throw new SandboxUnavailable(
      `ci-agent's sandbox needs Linux (bubblewrap), and this machine is ${process.platform}`,
      'run on Linux (a GitHub-hosted runner: runs-on: ubuntu-24.04), or set `sandbox: off` in the policy to run unsandboxed',
    );
  }
  const notes = await prepareHostedRunner(request.env, {
    socat: settings.allowedDomains.length > 0,
  });
  const sandbox = await startSandbox({
    workspaceRoots: request.workspaceRoots,
    home: request.env.HOME ?? homedir(),
    env: request.env,
    policy: {
      ...settings,
      allowRead: [...settings.allowRead, ...request.readable],
    },
    judges: request.judges,
  });
  return { sandbox, notes };
}
