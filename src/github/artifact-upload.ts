/**
 * The run's files (tool log, transcript, patch, report) as one workflow artifact, uploaded with
 * @actions/artifact. The client reads ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL from
 * process.env, which only a GitHub runner sets: elsewhere, or when the service fails, the upload
 * is a warning and the files stay where they are. The artifact is a courtesy copy; the report
 * already says what happened, so losing it never fails the run. It holds the files that exist: a
 * run that ended early has no transcript or patch, and a missing file would fail the whole upload.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { errorMessage } from '../util/errors.js';
import type { WorkflowCommands } from './workflow-commands.js';

/** Uploads what of `paths` exists; false (and a warning on the step) when it could not. */
export async function uploadArtifact(
  commands: WorkflowCommands,
  name: string,
  dir: string,
  paths: Record<string, string>,
): Promise<boolean> {
  try {
    // Imported on demand: the client and Azure's blob SDK are most of the bundle, and a run that
    // does not upload never loads them (docs/BENCHMARKS.md, "The action's start-up").
    const { DefaultArtifactClient } = await import('@actions/artifact');
    const files = Object.values(paths).filter((path) => existsSync(path));
    await new DefaultArtifactClient().uploadArtifact(name, files, dir);
    return true;
  } catch (error) {
    commands.warning(
      `the artifact could not be uploaded (${errorMessage(error)}); the files are in ${dir}`,
    );
    return false;
  }
}

/**
 * The names of the files the artifact will hold, for the report: those of `paths` that exist,
 * and `pending` ones that are written before the upload (the report itself).
 */
export function artifactFiles(
  paths: Record<string, string>,
  pending: readonly string[] = [],
): string[] {
  return Object.values(paths)
    .filter((path) => pending.includes(path) || existsSync(path))
    .map((path) => basename(path));
}
