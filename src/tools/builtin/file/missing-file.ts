/**
 * The "file does not exist" message shared by Read and Edit. The working-directory note helps a
 * model that guessed a relative layout; the suggestion catches the common near-misses (wrong case,
 * wrong extension) without a search of the tree.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export async function fileNotFoundMessage(path: string, projectDir: string): Promise<string> {
  const message = `File does not exist. Note: your current working directory is ${projectDir}.`;
  const similar = await findSimilarFile(path);
  return similar ? `${message} Did you mean ${similar}?` : message;
}

/** A sibling whose name differs only in case or extension, if there is one. */
export async function findSimilarFile(path: string): Promise<string | undefined> {
  let entries: string[];
  try {
    entries = await readdir(dirname(path));
  } catch {
    return undefined;
  }
  const name = basename(path);
  const lowerName = name.toLowerCase();
  const lowerStem = stemOf(name).toLowerCase();
  const similar = entries
    .filter((entry) => entry !== name)
    .filter(
      (entry) => entry.toLowerCase() === lowerName || stemOf(entry).toLowerCase() === lowerStem,
    )
    .sort();
  return similar[0] === undefined ? undefined : join(dirname(path), similar[0]);
}

function stemOf(name: string): string {
  return name.slice(0, name.length - extname(name).length);
}
