/**
 * Write, Edit and NotebookEdit never write through a symbolic link: where a link leads is decided
 * by whoever made it (a checkout, a test command), can change between the check and the write,
 * and a dangling one would have the write create its target wherever that is.
 */
import { readlink } from 'node:fs/promises';
import { realPathOf } from '../../paths.js';

/** The message for a path that is a link, or undefined when it is none (or is not there). */
export async function linkProblem(path: string): Promise<string | undefined> {
  try {
    await readlink(path);
  } catch {
    return undefined;
  }
  return linkMessage(path);
}

export function linkMessage(path: string): string {
  return `Cannot write ${path}: it is a symbolic link (to ${realPathOf(path)}), and files are not written through links. To change the file it leads to, give that file's own path.`;
}
