/**
 * The runner's file commands, as the runner gave them to the step. After the step the runner
 * reads $GITHUB_ENV and $GITHUB_PATH into every later step's environment, $GITHUB_OUTPUT into the
 * step's outputs, $GITHUB_STATE into the post step's, and shows $GITHUB_STEP_SUMMARY. A line in
 * GITHUB_ENV (`NODE_OPTIONS=--require=/tmp/evil.js`) runs code in every later step, with the
 * secrets that step is given: a tool the agent runs, or the pull request's test command, must not
 * be able to leave one.
 *
 * Order:
 *   1. before any code not the action's runs (the test command, the first tool), each file is
 *      copied: whether it exists, its size, sha256 and bytes;
 *   2. after the agent (and again before the report, for a run that ended another way), each is
 *      compared; a file that differs is put back as it was (a planted symlink replaced, not written
 *      through; a file that was not there removed) and named, and the run fails;
 *   3. only then does the action write its own outputs and summary.
 * The check is after the fact: it holds on its own, without the sandbox, as long as nothing the
 * agent started is still running when it is made.
 */
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';

/** The variables naming the files the runner reads after the step. */
export const RUNNER_FILE_VARIABLES = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
] as const;

export type RunnerFileVariable = (typeof RUNNER_FILE_VARIABLES)[number];

export interface RunnerFilesSnapshot {
  readonly files: readonly { name: RunnerFileVariable; path: string; state: FileState }[];
}

/** What the report says of a file: never its content. */
export interface FileSummary {
  exists: boolean;
  size: number;
  sha256: string;
  /** Where the path points, when it is a symlink. */
  link?: string;
}

interface FileState extends FileSummary {
  content: Buffer | undefined;
  mode: number;
}

export interface RunnerFileChange {
  name: RunnerFileVariable;
  path: string;
  before: FileSummary;
  after: FileSummary;
}

/** Copies each runner file the environment names (step 1). */
export async function snapshotRunnerFiles(env: NodeJS.ProcessEnv): Promise<RunnerFilesSnapshot> {
  // Read side by side: nothing but the runner has written them yet.
  const named = RUNNER_FILE_VARIABLES.flatMap((name) => {
    const path = env[name];
    return path ? [{ name, path }] : [];
  });
  const files = await Promise.all(
    named.map(async ({ name, path }) => ({ name, path, state: await stateOf(path) })),
  );
  return { files };
}

/** Puts back every runner file that differs from the snapshot; returns them (step 2). */
export async function restoreRunnerFiles(
  snapshot: RunnerFilesSnapshot,
): Promise<RunnerFileChange[]> {
  const changes: RunnerFileChange[] = [];
  for (const { name, path, state: before } of snapshot.files) {
    const after = await stateOf(path);
    if (same(before, after)) continue;
    // Removed first: a symlink planted in its place is replaced, not written through.
    await rm(path, { force: true, recursive: true });
    if (before.link !== undefined) await symlink(before.link, path);
    else if (before.content !== undefined)
      await writeFile(path, before.content, { mode: before.mode });
    changes.push({ name, path, before: summary(before), after: summary(after) });
  }
  return changes;
}

/** The run's headline when a runner file was changed. */
export function runnerFilesHeadline(changes: readonly RunnerFileChange[]): string {
  const names = [...new Set(changes.map(({ name }) => name))].join(', ');
  return `the run changed the runner's ${names} (read by the workflow after this step): it was put back as the runner gave it, and the run fails`;
}

/** One line per changed file: what it was and what it had become, by size and sha256. */
export function runnerFilesDetails(changes: readonly RunnerFileChange[]): string {
  const shown = (file: FileSummary) =>
    !file.exists
      ? 'no file'
      : `${file.link !== undefined ? `a symlink to ${file.link}, ` : ''}${file.size} bytes, sha256 ${file.sha256.slice(0, 16)}`;
  return changes
    .map(({ name, before, after }) => `${name}: ${shown(before)} → ${shown(after)}; put back`)
    .join('\n');
}

async function stateOf(path: string): Promise<FileState> {
  const info = await lstat(path).catch(() => undefined);
  const link = info?.isSymbolicLink() ? await readlink(path).catch(() => undefined) : undefined;
  // Through a symlink: the runner reads what the path leads to.
  const content = await readFile(path).catch(() => undefined);
  return {
    exists: info !== undefined,
    size: content?.length ?? 0,
    sha256: createHash('sha256')
      .update(content ?? Buffer.alloc(0))
      .digest('hex'),
    ...(link !== undefined && { link }),
    content,
    mode: (info?.mode ?? 0o644) & 0o7777,
  };
}

function same(before: FileState, after: FileState): boolean {
  return (
    before.exists === after.exists &&
    before.link === after.link &&
    before.size === after.size &&
    before.sha256 === after.sha256 &&
    (before.content === undefined) === (after.content === undefined)
  );
}

function summary(state: FileState): FileSummary {
  return {
    exists: state.exists,
    size: state.size,
    sha256: state.sha256,
    ...(state.link !== undefined && { link: state.link }),
  };
}
