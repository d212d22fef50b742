/**
 * The action's sandbox for one run: started after the policy is read and before the test
 * command and the first model request, so that a sandbox that cannot start stops the run before
 * anything the agent causes has run, with the reason and the fix (host-setup.ts).
 *
 * Unsandboxed only where the policy file says `sandbox: off`; the report then says so at the top.
 * On Windows and macOS runners (no bubblewrap) that entry is the only way to run.
 */
import { dirname } from 'node:path';
import { startProcessScopeProbe } from '../process/process-scope.js';
import type { LoadedPolicy } from '../policy/types.js';
import { startPolicySandbox } from '../sandbox/policy-sandbox.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ReportContext } from './report-markdown.js';

export interface RunSandbox {
  sandbox: Sandbox | undefined;
  /** What the report says of it. */
  report: NonNullable<ReportContext['sandbox']>;
  /** Lines for the step log: what was set up on the runner. */
  notes: string[];
}

export async function startRunSandbox(
  policy: LoadedPolicy,
  options: {
    workspace: string;
    env: NodeJS.ProcessEnv;
    /** The run's own files the hooks may read (the transcript): shown read-only. */
    readable: readonly string[];
    judges: readonly string[];
  },
): Promise<RunSandbox> {
  const settings = policy.sandbox;
  if (settings.mode === 'off') {
    // Each call then needs a scope of its own: where that takes a probe, it starts now, while
    // the run gets going. A sandboxed run takes none: the sandbox is every call's scope.
    void startProcessScopeProbe();
    return {
      sandbox: undefined,
      report: {
        kind: 'unsandboxed',
        why: `\`sandbox: off\` in ${settings.offSource ?? 'the policy file'}`,
      },
      notes: [],
    };
  }
  const { sandbox, notes } = await startPolicySandbox(settings, {
    workspaceRoots: [options.workspace, ...policy.permissions.additionalDirectories],
    env: options.env,
    // Opened once the sandbox runs: its folder, the run's artifacts directory, is shown.
    readable: options.readable.map((file) => dirname(file)),
    judges: options.judges,
  });
  return { sandbox, report: { kind: 'sandboxed', description: sandbox.describe() }, notes };
}

/** A sandbox that failed every checked command leaves a run that did nothing: not a success. */
export function sandboxBrokeEveryCall(sandbox: Sandbox | undefined): string | undefined {
  const stats = sandbox?.stats();
  if (!stats || stats.checked === 0 || stats.setupFailures < stats.checked) return undefined;
  return `the sandbox could not set up any of the ${stats.checked} command${stats.checked === 1 ? '' : 's'} the agent ran (${stats.lastFailure ?? 'no message'}), so nothing the agent tried ran`;
}
