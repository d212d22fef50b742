/**
 * The built-in engine's directory walk, with ripgrep's filters in ripgrep's order for each
 * entry: `.git` is never entered; a `--glob` decision wins outright; otherwise ignore files may
 * drop the entry, then the type filter may drop a file. Symbolic links are not followed and
 * special files are skipped, as ripgrep does without `--follow`. Hidden entries are included.
 * Last, files the caller excludes (Read deny rules) are left out and counted.
 *
 * Files come back in ripgrep's `--sort path` order: each directory's entries sorted by name,
 * depth first. Directories are read concurrently; the order is restored when the results of a
 * directory are joined.
 */
import { readdir } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { ignoreMatch, loadLayer } from './ignore-layers.js';
import type { IgnoreLayer } from './ignore-layers.js';
import type { OverrideMatcher } from './glob-patterns.js';

export interface WalkOptions {
  root: string;
  rootLayer: IgnoreLayer;
  overrides: OverrideMatcher | undefined;
  fileType: ((fileName: string) => boolean) | undefined;
  /** Stops the walk; the files found so far are returned. */
  signal: AbortSignal;
  /** Files to leave out after every other filter (Read deny rules); they are counted. */
  exclude?: (path: string) => boolean;
}

export interface WalkResult {
  files: string[];
  /** Directories that could not be read. */
  unreadable: number;
  /** Files left out by `exclude`; absent when none. */
  excluded?: number;
}

interface WalkState {
  unreadable: number;
  excluded: number;
}

export async function walkFiles(options: WalkOptions): Promise<WalkResult> {
  const state: WalkState = { unreadable: 0, excluded: 0 };
  const files = await walkDirectory(options, options.root, '', options.rootLayer, state);
  const { unreadable, excluded } = state;
  return { files, unreadable, ...(excluded > 0 && { excluded }) };
}

async function walkDirectory(
  options: WalkOptions,
  directory: string,
  relativeDirectory: string,
  parentLayer: IgnoreLayer,
  state: WalkState,
): Promise<string[]> {
  if (options.signal.aborted) return [];
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch {
    state.unreadable++;
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const layer =
    directory === options.root
      ? parentLayer
      : await loadLayer(directory, parentLayer, new Set(entries.map((entry) => entry.name)));
  const parts: Array<string | Promise<string[]>> = [];
  for (const entry of entries) {
    if (entry.name === '.git') continue;
    const isDirectory = entry.isDirectory();
    if (!isDirectory && !entry.isFile()) continue;
    const path = join(directory, entry.name);
    const relative = relativeDirectory === '' ? entry.name : `${relativeDirectory}/${entry.name}`;
    if (!accepts(options, layer, path, relative, entry.name, isDirectory)) continue;
    if (!isDirectory && options.exclude?.(path)) {
      state.excluded++;
      continue;
    }
    parts.push(isDirectory ? walkDirectory(options, path, relative, layer, state) : path);
  }
  const files: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') files.push(part);
    else for (const file of await part) files.push(file);
  }
  return files;
}

function accepts(
  options: WalkOptions,
  layer: IgnoreLayer,
  path: string,
  relative: string,
  name: string,
  isDirectory: boolean,
): boolean {
  const override = options.overrides?.(relative, isDirectory) ?? 'none';
  if (override !== 'none') return override === 'include';
  if (ignoreMatch(layer, path, isDirectory) === 'ignore') return false;
  if (!isDirectory && options.fileType && !options.fileType(name)) return false;
  return true;
}
