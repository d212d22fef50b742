/**
 * The run's files (tool log, transcript, patch, report) as one workflow artifact, uploaded with
 * @actions/artifact. The client reads ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL from
 * process.env, which only a GitHub runner sets: elsewhere, or when the service fails, the upload
 * is a warning and the files stay where they are. The artifact is a courtesy copy; the report
 * already says what happened, so losing it never fails the run.
 */
import { errorMessage } from '../util/errors.js';
import type { WorkflowCommands } from './workflow-commands.js';

export async function uploadArtifact(
  commands: WorkflowCommands,
  name: string,
  dir: string,
  paths: Record<string, string>,
): Promise<void> {
  try {
    // Imported on demand: the client and Azure's blob SDK are most of the bundle, and a run that
    // does not upload never loads them (docs/BENCHMARKS.md, "The action's start-up").
    const { DefaultArtifactClient } = await import('@actions/artifact');
    await new DefaultArtifactClient().uploadArtifact(name, Object.values(paths), dir);
  } catch (error) {
    commands.warning(
      `the artifact could not be uploaded (${errorMessage(error)}); the files are in ${dir}`,
    );
  }
}
