/**
 * The judge locations that did not exist when the sandbox started (`.mcp.json`, `.claude/`,
 * `.github/actions`, `.git/config.worktree`, …), kept absent: bubblewrap can only mount over
 * something that exists, and a mount point it made itself would be a file or folder left in the
 * workspace on the host (an empty `.mcp.json`), so these are not in the mount plan. Instead,
 * after every command the sandbox ran, and once more when it closes, each is looked at (an
 * lstat per path component, a few microseconds); whatever appeared is removed and reported.
 *
 * Sequence of `sweep`, per location, walking down from its workspace root:
 *   1. a component that is absent: nothing appeared, next location;
 *   2. a component that is a folder: go on;
 *   3. a component that is a link leading to something at the location (a new `.github` linking
 *      to a folder with `workflows/`): the link is removed, never what it leads to. It is new:
 *      the locations are real paths (sandbox.ts), so no link was on the way at the start;
 *   4. the location itself, whatever it is (file, folder, link): removed, a link as a link.
 */
import { existsSync, lstatSync, rmSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface AbsentJudges {
  /** The locations watched: absolute paths in a workspace root. */
  readonly locations: readonly string[];
  /** Removes what appeared at a watched location; the paths removed, relative to their root. */
  sweep(): string[];
}

export interface AbsentLocation {
  root: string;
  /** Absolute, inside root. */
  path: string;
}

/** The locations among `candidates` that do not exist now; they are to stay so. */
export function watchAbsentJudges(candidates: readonly AbsentLocation[]): AbsentJudges {
  const watched = candidates.filter(({ path }) => lstatOf(path) === undefined);
  return {
    locations: watched.map(({ path }) => path),
    sweep: () =>
      watched.flatMap(({ root, path }) => {
        const appeared = appearedAt(root, path);
        if (appeared === undefined) return [];
        rmSync(appeared, { recursive: true, force: true });
        return [relative(root, appeared) || '.'];
      }),
  };
}

/** What to remove so that `path` is absent again (steps 1–4), or undefined: nothing appeared. */
function appearedAt(root: string, path: string): string | undefined {
  const parts = relative(root, path).split(sep);
  let at = root;
  for (const [index, part] of parts.entries()) {
    at = join(at, part);
    const stats = lstatOf(at);
    if (stats === undefined) return undefined;
    if (index === parts.length - 1) return at;
    if (stats.isSymbolicLink()) return existsSync(path) ? at : undefined;
    if (!stats.isDirectory()) return undefined;
  }
  return undefined;
}

/** Without an exception for an absent path: the common case, after every command. */
function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * At the end of a run, once nothing of the agent's runs (the action before it runs git, the CLI
 * before it exits): the judges checked once more, and what the agent created where there was
 * none, as one line; undefined when it created nothing.
 */
export function judgesRemovedNote(
  sandbox: { sweepJudges(): unknown; stats(): { judgesRemoved: readonly string[] } } | undefined,
): string | undefined {
  sandbox?.sweepJudges();
  const removed = sandbox?.stats().judgesRemoved ?? [];
  return removed.length > 0 ? judgesRemovedText(removed) : undefined;
}

/** One line for the report and stderr: what was created, and that it is gone. */
export function judgesRemovedText(removed: readonly string[]): string {
  const names = removed.map((path) => `\`${path}\``).join(', ');
  return `the agent created ${names}, where the files that configure and check the run live; the sandbox removed ${removed.length === 1 ? 'it' : 'them'}`;
}
