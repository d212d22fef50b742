/**
 * The checkout's credentials, out of git's reach while the agent works. actions/checkout leaves
 * the workflow's token where every later git command finds it (persist-credentials, its
 * default): v4 and before as `http.<server>/.extraheader = AUTHORIZATION: basic <base64>` in
 * `.git/config`; v6 in a file of its own, `$RUNNER_TEMP/git-credentials-<uuid>.config`, that
 * `.git/config` includes through `includeIf.gitdir:<git dir>.path` (and `…/worktrees/*`, and the
 * same two for the container paths `/github/workspace` and `/github/runner_temp`); each
 * submodule's config (`.git/modules/<name>/config`) gets the same entries. A workflow may add a
 * `credential.helper`, a `url.<url with a token>.insteadOf` or a remote URL with the token in it.
 * Any tool the agent runs could read them, or just run `git push` with them.
 *
 * Order:
 *   1. each config file (the repository's, its submodules') is read as it is, byte for byte;
 *   2. the credential entries are taken out with `git config --file … --unset-all`, a section
 *      left empty with `--remove-section`, a remote URL rewritten without its user info;
 *   3. a credentials file an include pointed at, and the key file checkout's `core.sshCommand`
 *      names, are read and removed (the entry alone gone, the file would still sit in
 *      `$RUNNER_TEMP` for a tool to find);
 *   4. when the run ends, every file goes back as it was read, byte for byte, so that the
 *      workflow's later steps (and checkout's own post-job cleanup) find what they left.
 * The action's own push does not need any of it: it brings its token (git.ts).
 * Only the keys taken out are shown (log and report), never a value; a key that carries a token
 * (an `insteadOf` URL) is shown with the user info cut.
 */
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Git } from './git.js';

export interface CredentialStash {
  /** The keys taken out, as the log and the report show them (no values, no user info). */
  readonly removed: readonly string[];
  /** Every file changed or removed, with its bytes and mode before. */
  readonly files: readonly SavedFile[];
}

interface SavedFile {
  path: string;
  content: Buffer;
  mode: number;
}

interface ConfigEntry {
  key: string;
  value: string;
}

/** Where the action's change to one config file is: keys to unset, URLs to rewrite. */
interface ConfigChanges {
  unset: string[];
  rewrite: { key: string; values: string[] }[];
  /** Files the removed includes point at that hold credentials. */
  credentialFiles: string[];
}

/** Checkout v6's credentials file, wherever its directory is (host or container path). */
const CREDENTIALS_FILE = /^git-credentials-.+\.config$/;
/** A URL with user info (`https://x-access-token:<token>@host/…`). */
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/@]+@/i;

/**
 * Takes the credentials out of the checkout's git config files; see the header for what counts.
 * A failure half-way puts every file back before it is thrown: no run starts with the
 * configuration half changed.
 */
export async function stashCheckoutCredentials(
  git: Git,
  workspace: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CredentialStash> {
  const configs = await configFiles(git, workspace);
  const saved = new Map<string, SavedFile>();
  const save = async (path: string) => {
    if (!saved.has(path)) saved.set(path, await readSaved(path));
  };
  const removed: string[] = [];
  try {
    for (const config of configs) {
      const entries = await listEntries(git, config);
      const changes = await credentialChanges(git, config, entries, env);
      if (changes.unset.length === 0 && changes.rewrite.length === 0) continue;
      await save(config);
      await applyChanges(git, config, entries, changes);
      removed.push(...changes.unset.map(shownKey), ...changes.rewrite.map(({ key }) => key));
      for (const file of changes.credentialFiles) {
        await save(file);
        await rm(file, { force: true });
      }
    }
  } catch (error) {
    await restoreCheckoutCredentials({ removed, files: [...saved.values()] });
    throw error;
  }
  return { removed: [...new Set(removed)], files: [...saved.values()] };
}

/** Puts every file the stash changed or removed back as it was. */
export async function restoreCheckoutCredentials(stash: CredentialStash): Promise<void> {
  for (const file of stash.files) {
    // Removed first: a symlink planted in its place is replaced, not written through.
    await rm(file.path, { force: true });
    await writeFile(file.path, file.content, { mode: file.mode });
  }
}

/** The note for the log and the report; undefined when nothing was taken out. */
export function credentialsNote(stash: CredentialStash): string | undefined {
  if (stash.removed.length === 0) return undefined;
  return `The checkout's git credentials (${stash.removed.join(', ')}) were taken out of git's configuration while the agent worked, and put back at the end`;
}

/** The repository's config and its submodules' (each `config` beside a `HEAD` under modules/). */
async function configFiles(git: Git, workspace: string): Promise<string[]> {
  const common = resolve(workspace, (await git.run(['rev-parse', '--git-common-dir'])).trim());
  const files = [join(common, 'config')];
  // A submodule's name may hold slashes; inside a git dir only its own modules/ is searched.
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 16) return;
    const names = await readdir(dir).catch(() => [] as string[]);
    if (names.includes('HEAD') && names.includes('config')) {
      files.push(join(dir, 'config'));
      await walk(join(dir, 'modules'), depth + 1);
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if ((await stat(path).catch(() => undefined))?.isDirectory()) await walk(path, depth + 1);
    }
  };
  await walk(join(common, 'modules'), 0);
  return files;
}

async function listEntries(git: Git, file: string): Promise<ConfigEntry[]> {
  const text = await git.run(['config', '--file', file, '--no-includes', '--null', '--list']);
  return text
    .split('\0')
    .filter(Boolean)
    .map((record) => {
      const newline = record.indexOf('\n');
      return newline < 0
        ? { key: record, value: '' }
        : { key: record.slice(0, newline), value: record.slice(newline + 1) };
    });
}

/** Which of a file's entries carry a credential, or point at a file that does. */
async function credentialChanges(
  git: Git,
  config: string,
  entries: readonly ConfigEntry[],
  env: NodeJS.ProcessEnv,
): Promise<ConfigChanges> {
  const unset = new Set<string>();
  const credentialFiles: string[] = [];
  for (const { key, value } of entries) {
    if (isCredentialKey(key)) unset.add(key);
    const sshKey = key === 'core.sshcommand' ? sshKeyFile(value, env) : undefined;
    if (sshKey !== undefined && (await stat(sshKey).catch(() => undefined))?.isFile())
      credentialFiles.push(sshKey);
    if (!isIncludeKey(key)) continue;
    const target = includeTarget(config, value);
    const holds = await holdsCredentials(git, target);
    if (holds || CREDENTIALS_FILE.test(basename(value))) unset.add(key);
    if (holds && !credentialFiles.includes(target)) credentialFiles.push(target);
  }
  const rewrite = new Map<string, string[]>();
  for (const { key, value } of entries) {
    if (/^remote\..+\.(?:push)?url$/.test(key) && USER_INFO.test(value)) rewrite.set(key, []);
  }
  for (const { key, value } of entries) rewrite.get(key)?.push(value.replace(USER_INFO, '$1'));
  return {
    unset: [...unset],
    rewrite: [...rewrite].map(([key, values]) => ({ key, values })),
    credentialFiles,
  };
}

/** Keys as `git config --list` prints them: section and name lower case, subsection as written. */
function isCredentialKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (/^http\.(?:.+\.)?extraheader$/.test(lower)) return true;
  if (/^credential\.(?:.+\.)?helper$/.test(lower)) return true;
  // checkout's ssh-key input: the command names the key file in $RUNNER_TEMP.
  if (lower === 'core.sshcommand') return true;
  return /^url\..+\.(?:push)?insteadof$/.test(lower) && USER_INFO.test(key.slice(4));
}

/**
 * The key file of checkout's `ssh-key` input, from the command it sets:
 * `"<ssh>" -i "$RUNNER_TEMP/<uuid>" -o …`, the variable left for the shell to expand.
 */
function sshKeyFile(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const match = /(?:^|\s)-i\s*(?:"([^"]+)"|'([^']+)'|(\S+))/.exec(command);
  const path = match?.[1] ?? match?.[2] ?? match?.[3];
  if (path === undefined) return undefined;
  const expanded = path.replace(/\$\{?RUNNER_TEMP\}?/g, env.RUNNER_TEMP ?? '');
  return isAbsolute(expanded) ? expanded : undefined;
}

function isIncludeKey(key: string): boolean {
  return key === 'include.path' || /^includeif\..+\.path$/.test(key);
}

/** An include's path as git resolves it: `~/` from HOME, relative to the including file. */
function includeTarget(config: string, path: string): string {
  if (path.startsWith('~/')) return join(process.env.HOME ?? '', path.slice(2));
  return isAbsolute(path) ? path : resolve(dirname(config), path);
}

async function holdsCredentials(git: Git, file: string): Promise<boolean> {
  if (!(await stat(file).catch(() => undefined))?.isFile()) return false;
  const entries = await listEntries(git, file).catch(() => []);
  return entries.some(({ key }) => isCredentialKey(key));
}

async function applyChanges(
  git: Git,
  config: string,
  entries: readonly ConfigEntry[],
  changes: ConfigChanges,
): Promise<void> {
  const file = ['config', '--file', config];
  // An `insteadOf` key with a token in it is on this command line for a moment: before any tool
  // of the agent's runs, when no process of its is there to read it.
  for (const key of changes.unset) await git.run([...file, '--unset-all', key]);
  // A section with nothing left in it goes too: `[includeIf "gitdir:…"]` alone names the path.
  const gone = new Set(changes.unset);
  const sections = new Set(changes.unset.map(sectionOf));
  for (const section of sections) {
    const left = entries.some(({ key }) => sectionOf(key) === section && !gone.has(key));
    // A newer git removes the emptied section itself: then there is none left to remove.
    if (!left) await git.run([...file, '--remove-section', section]).catch(() => undefined);
  }
  // Stripped of the user info only: the remote stays where it was, for the action's push.
  for (const { key, values } of changes.rewrite) {
    await git.run([...file, '--unset-all', key]);
    for (const value of values) await git.run([...file, '--add', key, value]);
  }
}

/** `section.subsection` of `section.subsection.name` (the subsection may hold dots). */
function sectionOf(key: string): string {
  return key.slice(0, key.lastIndexOf('.'));
}

/** A key as the log may show it: a URL in it without its user info. */
function shownKey(key: string): string {
  return key.replace(/(\.[a-z][a-z0-9+.-]*:\/\/)[^/@]+@/i, '$1***@');
}

async function readSaved(path: string): Promise<SavedFile> {
  const [content, info] = await Promise.all([readFile(path), stat(path)]);
  return { path, content, mode: info.mode & 0o7777 };
}
