/**
 * The CLI's sandbox: on only when a source asks for it — a settings file's
 * `"sandbox": {"enabled": true}`, as Claude Code users write it, or a `sandbox:` mapping in the
 * policy file. Claude Code runs unsandboxed by default, and so does `ci-agent -p` (the action
 * sandboxes unless `sandbox: off`). Started after the policy is read and before the first model
 * request, so that a sandbox that cannot start stops the run before the agent did anything.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { findHookScripts } from '../hooks/hook-scripts.js';
import { decisionOptions } from '../policy/ask-resolution.js';
import type { LoadedPolicy } from '../policy/types.js';
import type { SandboxUnavailable } from '../sandbox/host-setup.js';
import { startPolicySandbox } from '../sandbox/policy-sandbox.js';
import type { Sandbox } from '../sandbox/sandbox.js';

export interface CliSandboxRequest {
  projectDir: string;
  /** `--add-dir`, as given (relative to the project). */
  addDir: readonly string[];
  env: NodeJS.ProcessEnv;
  /**
   * The transcript hooks read, when there is one, already opened: the file alone is shown (its
   * folder may be /tmp or the home, which the sandbox must not show whole).
   */
  transcriptPath: string | undefined;
  /** The run's log, transcript and `--mcp-config` files (main.ts): read-only inside. */
  recordFiles: readonly string[];
  /** Where the lines of what was set up on the machine go. */
  note: (text: string) => void;
}

/** The sandbox, or undefined when no source turns it on; throws SandboxUnavailable. */
export async function startCliSandbox(
  policy: LoadedPolicy,
  request: CliSandboxRequest,
): Promise<Sandbox | undefined> {
  if (policy.sandbox.mode !== 'on') return undefined;
  const { projectDir } = request;
  const { sandbox, notes } = await startPolicySandbox(policy.sandbox, {
    workspaceRoots: [
      projectDir,
      ...[...policy.permissions.additionalDirectories, ...request.addDir].map((dir) =>
        resolve(projectDir, dir),
      ),
    ],
    env: request.env,
    readable: request.transcriptPath ? [request.transcriptPath] : [],
    judges: [
      ...decisionOptions(policy).judgePaths.map((file) => resolve(projectDir, file)),
      // The scripts hooks run judge the calls too: read-only inside, wherever they are.
      ...findHookScripts(policy.hooks, { projectDir, homeDir: request.env.HOME ?? homedir() })
        .paths,
      ...request.recordFiles,
    ],
  });
  for (const note of notes) request.note(note);
  return sandbox;
}

/** What stderr says when the sandbox cannot start: the reason, then the fix, one line each. */
export function sandboxUnavailableText(error: SandboxUnavailable): string {
  return `Error: the sandbox cannot start, so the agent did not run: ${error.reason}\nFix: ${error.fix}\n`;
}
