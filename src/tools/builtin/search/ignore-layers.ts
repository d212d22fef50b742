/**
 * The ignore files that apply to a directory, the way ripgrep stacks them: each directory from
 * the filesystem root down to the one being walked may hold `.rgignore`, `.ignore` and
 * `.gitignore`, and a repository root `.git/info/exclude`. For a path, the deepest file with a
 * matching rule decides within each kind, and the kinds rank .rgignore > .ignore > .gitignore >
 * info/exclude > the user's global git excludes. Git rules count only inside a repository (a
 * directory at or above with `.git`) and stop at the repository's root.
 */
import { stat } from 'node:fs/promises';
import { readRegularFile } from '../../../util/regular-file.js';
import { dirname, join } from 'node:path';
import { compileRules, parseIgnoreFile } from './gitignore.js';
import type { GitignoreRules, RuleMatch } from './gitignore.js';

export interface IgnoreLayer {
  readonly directory: string;
  readonly parent: IgnoreLayer | undefined;
  readonly hasGit: boolean;
  /** This directory or one above it is a repository. */
  readonly inRepository: boolean;
  /** No rules here or above: the common case, answered without a walk up. */
  readonly empty: boolean;
  readonly rgignore?: GitignoreRules;
  readonly ignore?: GitignoreRules;
  readonly gitignore?: GitignoreRules;
  readonly gitExclude?: GitignoreRules;
  readonly globalExclude?: GitignoreRules;
}

const IGNORE_FILES = ['.rgignore', '.ignore', '.gitignore'] as const;

/**
 * The layer for `directory`. `entryNames` (the directory's listing, when the walk has it) saves
 * reads of files that are not there.
 */
export async function loadLayer(
  directory: string,
  parent: IgnoreLayer | undefined,
  entryNames?: ReadonlySet<string>,
): Promise<IgnoreLayer> {
  const present = (name: string) => entryNames === undefined || entryNames.has(name);
  const [rgignore, ignore, gitignore] = await Promise.all(
    IGNORE_FILES.map(async (name) =>
      present(name) ? readRules(join(directory, name)) : undefined,
    ),
  );
  const gitKind = present('.git') ? await entryKind(join(directory, '.git')) : undefined;
  const gitExclude =
    gitKind === 'directory'
      ? await readRules(join(directory, '.git', 'info', 'exclude'))
      : undefined;
  const hasGit = gitKind !== undefined;
  const hasRules = [rgignore, ignore, gitignore, gitExclude].some((rules) => rules !== undefined);
  return {
    directory,
    parent,
    hasGit,
    inRepository: hasGit || (parent?.inRepository ?? false),
    empty: !hasRules && (parent?.empty ?? true),
    globalExclude: parent?.globalExclude,
    ...(rgignore && { rgignore }),
    ...(ignore && { ignore }),
    ...(gitignore && { gitignore }),
    ...(gitExclude && { gitExclude }),
  };
}

/**
 * The layers from the filesystem root down to `directory`, with the user's global excludes
 * (read from `globalExcludesFile` when given) at the top.
 */
export async function loadLayerChain(
  directory: string,
  globalExcludesFile?: string,
): Promise<IgnoreLayer> {
  const directories: string[] = [];
  for (let current = directory; ; current = dirname(current)) {
    directories.unshift(current);
    if (dirname(current) === current) break;
  }
  const globalExclude = globalExcludesFile ? await readRules(globalExcludesFile) : undefined;
  let layer: IgnoreLayer | undefined;
  for (const current of directories) {
    const loaded = await loadLayer(current, layer);
    layer =
      layer === undefined && globalExclude ? { ...loaded, globalExclude, empty: false } : loaded;
  }
  return layer!;
}

/** What the ignore files say about `absolutePath`, an entry of `layer.directory` or below. */
export function ignoreMatch(
  layer: IgnoreLayer,
  absolutePath: string,
  isDirectory: boolean,
): RuleMatch {
  if (layer.empty) return 'none';
  const git = layer.inRepository;
  let rg: RuleMatch = 'none';
  let plain: RuleMatch = 'none';
  let gitignore: RuleMatch = 'none';
  let exclude: RuleMatch = 'none';
  let pastRepositoryRoot = false;
  for (let current: IgnoreLayer | undefined = layer; current; current = current.parent) {
    const relative = relativeTo(current.directory, absolutePath);
    if (rg === 'none' && current.rgignore) rg = current.rgignore.match(relative, isDirectory);
    if (plain === 'none' && current.ignore) plain = current.ignore.match(relative, isDirectory);
    if (git && !pastRepositoryRoot) {
      if (gitignore === 'none' && current.gitignore) {
        gitignore = current.gitignore.match(relative, isDirectory);
      }
      if (exclude === 'none' && current.gitExclude) {
        exclude = current.gitExclude.match(relative, isDirectory);
      }
    }
    if (current.hasGit) pastRepositoryRoot = true;
    if (rg !== 'none') return rg;
  }
  for (const match of [plain, gitignore, exclude]) if (match !== 'none') return match;
  if (git && layer.globalExclude) {
    const name = absolutePath.slice(absolutePath.lastIndexOf('/') + 1);
    return layer.globalExclude.match(name, isDirectory);
  }
  return 'none';
}

function relativeTo(directory: string, absolutePath: string): string {
  return absolutePath.slice(directory.endsWith('/') ? directory.length : directory.length + 1);
}

async function readRules(path: string): Promise<GitignoreRules | undefined> {
  try {
    // A FIFO named .gitignore would hold the search (regular-file.ts).
    const rules = parseIgnoreFile(await readRegularFile(path, 'utf8'));
    return rules.length > 0 ? compileRules(rules) : undefined;
  } catch {
    return undefined;
  }
}

async function entryKind(path: string): Promise<'directory' | 'other' | undefined> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'other';
  } catch {
    return undefined;
  }
}
