/**
 * bubblewrap's version, for the sandbox's one line (the report, the log's `system/init`).
 *
 * `bwrap --version` prints the "bubblewrap X.Y.Z" string compiled into the program; that string
 * is read from the program's file instead, which saves a process before the first model request
 * (each fork of ci-agent's process holds its main thread for several ms: docs/BENCHMARKS.md,
 * "The action's start-up"). A file without exactly one such string (another build, a wrapper
 * script) is asked with `--version`, as before.
 */
import { readFileSync, statSync } from 'node:fs';
import { runHostTool } from './host-tools.js';

/** Larger than any bubblewrap build (about 70 KB); a larger file is asked instead of read. */
const MAX_PROGRAM_BYTES = 4 * 1024 * 1024;

export async function bwrapVersion(bwrap: string, path: string | undefined): Promise<string> {
  const compiled = compiledVersion(bwrap);
  if (compiled !== undefined) return compiled;
  const answer = await runHostTool(bwrap, ['--version'], { path });
  return /(\d+\.\d+(?:\.\d+)?)/.exec(answer.stdout)?.[1] ?? 'unknown';
}

/**
 * The version in the program's "bubblewrap X.Y.Z\0" string, when it has exactly one. Read
 * synchronously: about 70 KB, a fraction of a ms, where the first use of node:fs/promises'
 * file handles costs the start-up several.
 */
export function compiledVersion(program: string): string | undefined {
  try {
    const info = statSync(program);
    if (!info.isFile() || info.size > MAX_PROGRAM_BYTES) return undefined;
    const text = readFileSync(program).toString('latin1');
    const found = new Set(
      [...text.matchAll(/\0bubblewrap (\d+\.\d+(?:\.\d+)?)\0/g)].map((match) => match[1]),
    );
    return found.size === 1 ? [...found][0] : undefined;
  } catch {
    return undefined;
  }
}
