/**
 * Reading the policy: the only part of the loader that touches files, and only through the
 * injected `readFile` (on pull requests the action reads from the base branch instead of the disk).
 *
 * 1. the ci-agent policy file: the one named, or the first of the default names that exists
 * 2. the project settings files it lists (default: `.claude/settings.json`, `settings.local.json`)
 * 3. `~/.claude/settings.json` when a home directory is given (the CLI)
 * 4. each `--settings` value: JSON when it starts with `{`, else a file path
 * 5. parse every source, then merge; all problems of all files are reported together
 *
 * `.mcp.json` is read only for its server names, so rules naming another server get a warning;
 * the MCP loader (src/mcp/load-mcp-config.ts) reads it for real.
 */
import { readFile as fsReadFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { mergeLayers } from './merge.js';
import type { PolicyIssue } from './policy-error.js';
import { PolicyError } from './policy-error.js';
import { parsePolicyFile } from './policy-file.js';
import { parseSettingsFile } from './settings-file.js';
import type { LoadedPolicy, PolicyFileLayer, PolicyLayer, SourceText } from './types.js';
import { INLINE_SETTINGS } from './types.js';
import { readMcpServerNames } from './mcp-server-names.js';
import { withSourceDigests } from './source-digests.js';

/** Reads a file as UTF-8; resolves to undefined when it does not exist. */
export type { ReadFile } from './types.js';
import type { ReadFile } from './types.js';

export interface LoadPolicyOptions {
  /** The project root (absolute): the repository checkout. */
  projectDir: string;
  /** The original working directory; `--settings` and a relative `policyPath` resolve here. Default: projectDir. */
  cwd?: string;
  /** A policy file named explicitly (flag or action input): it must exist. */
  policyPath?: string;
  /** The `--settings` values, in the order given. */
  settingsArgs?: readonly string[];
  /** The user's home directory; when given, `~/.claude/settings.json` is read too (the CLI). */
  home?: string;
  /**
   * `--mcp-config` was given: servers may come from there, so rules naming a server `.mcp.json`
   * and the policy file do not configure are not warned about.
   */
  mcpConfigGiven?: boolean;
  readFile?: ReadFile;
}

export const DEFAULT_POLICY_PATHS = [
  '.github/ci-agent.yml',
  '.github/ci-agent.yaml',
  '.github/ci-agent.json',
] as const;
export const DEFAULT_SETTINGS_FILES = ['.claude/settings.json', '.claude/settings.local.json'];
const LOCAL_SETTINGS = '.claude/settings.local.json';

export const readFileFromDisk: ReadFile = async (path) => {
  try {
    return await fsReadFile(path, 'utf8');
  } catch (error) {
    if (isNodeError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
      return undefined;
    throw error;
  }
};

export async function loadPolicy(options: LoadPolicyOptions): Promise<LoadedPolicy> {
  const projectDir = resolve(options.projectDir);
  const cwd = resolve(options.cwd ?? projectDir);
  const { home } = options;
  const read = options.readFile ?? readFileFromDisk;
  const readSource = makeSourceReader(read, (path) => displayPath(path, projectDir));

  const [projectServers, policy] = await Promise.all([
    options.mcpConfigGiven ? undefined : readMcpServerNames(read, projectDir),
    readPolicyFile(options.policyPath, projectDir, cwd, readSource),
  ]);
  const policyLayer =
    policy &&
    parsePolicyFile({ ...policy, home, ...(projectServers && { mcpServers: projectServers }) });
  const mcpServers = projectServers && new Set([...projectServers, ...serversOf(policyLayer)]);
  const listedBy = policy && `the "settings" list of ${policy.path}`;

  const files: WantedFile[] = [
    ...projectSettingsFiles(policyLayer?.settingsFiles, listedBy, projectDir, cwd),
    ...(home === undefined ? [] : [userSettingsFile(home)]),
  ];
  const inline: SourceText[] = [];
  for (const value of options.settingsArgs ?? []) {
    if (value.trimStart().startsWith('{')) {
      inline.push({ kind: 'flag', path: INLINE_SETTINGS, text: value, anchorDir: cwd });
    } else {
      const path = resolve(cwd, value);
      files.push({ path, kind: 'flag', anchorDir: dirname(path), requiredBy: '--settings' });
    }
  }

  const texts = await Promise.all(
    files.map((file) => readSource(file.path, file.requiredBy, file.display)),
  );
  const sources = files.flatMap((file, index): SourceText[] => {
    const found = texts[index];
    return found ? [{ kind: file.kind, anchorDir: file.anchorDir, ...found }] : [];
  });
  const merged = mergeLayers({
    ...(policyLayer ? { policy: policyLayer } : {}),
    settings: parseAll(
      [...sources, ...inline].map((source) => ({
        ...source,
        home,
        ...(mcpServers && { mcpServers }),
      })),
    ),
  });
  return withSourceDigests(merged, [...(policy ? [policy] : []), ...sources, ...inline]);
}

/**
 * The project's settings files: those the policy lists (which must exist), else the defaults
 * (read when present). `settings.local.json` anchors to the working directory, as in Claude Code.
 */
function projectSettingsFiles(
  listed: readonly string[] | undefined,
  listedBy: string | undefined,
  projectDir: string,
  cwd: string,
): WantedFile[] {
  const localPath = resolve(projectDir, LOCAL_SETTINGS);
  return (listed ?? DEFAULT_SETTINGS_FILES).map((file) => {
    const path = resolve(projectDir, file);
    const local = path === localPath;
    return {
      path,
      kind: local ? 'local' : 'project',
      anchorDir: local ? cwd : projectDir,
      ...(listed && listedBy ? { requiredBy: listedBy } : {}),
    };
  });
}

function userSettingsFile(home: string): WantedFile {
  return {
    path: join(home, '.claude', 'settings.json'),
    display: '~/.claude/settings.json',
    kind: 'user',
    anchorDir: join(home, '.claude'),
  };
}

/** A settings file to read, and what to call it. */
interface WantedFile {
  path: string;
  kind: SourceText['kind'];
  anchorDir: string;
  /** How messages name it, when not by its path. */
  display?: string;
  /** Who named it explicitly, which makes a missing file an error. */
  requiredBy?: string;
}

/** Parses every settings source, collecting the problems of all of them into one error. */
function parseAll(sources: readonly SourceText[]): PolicyLayer[] {
  const issues: PolicyIssue[] = [];
  const layers: PolicyLayer[] = [];
  for (const source of sources) {
    try {
      layers.push(parseSettingsFile(source));
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new PolicyError(issues);
  return layers;
}

type SourceReader = (
  path: string,
  requiredBy: string | undefined,
  display?: string,
) => Promise<{ path: string; text: string } | undefined>;

function makeSourceReader(read: ReadFile, show: (path: string) => string): SourceReader {
  return async (path, requiredBy, display = show(path)) => {
    let text: string | undefined;
    try {
      text = await read(path);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new PolicyError([{ file: display, path: [], message: `cannot be read: ${detail}` }]);
    }
    if (text === undefined && requiredBy !== undefined) {
      throw new PolicyError([
        { file: display, path: [], message: `no such file; it is named by ${requiredBy}` },
      ]);
    }
    return text === undefined ? undefined : { path: display, text };
  };
}

async function readPolicyFile(
  policyPath: string | undefined,
  projectDir: string,
  cwd: string,
  readSource: SourceReader,
): Promise<Omit<SourceText, 'home'> | undefined> {
  const base = { kind: 'policy' as const, anchorDir: projectDir };
  if (policyPath !== undefined) {
    const found = await readSource(resolve(cwd, policyPath), 'the policy option');
    return found && { ...base, ...found };
  }
  const candidates = await Promise.all(
    DEFAULT_POLICY_PATHS.map((path) => readSource(resolve(projectDir, path), undefined)),
  );
  const present = candidates.filter((found) => found !== undefined);
  if (present.length > 1) {
    throw new PolicyError([
      {
        file: present.map((found) => found.path).join(', '),
        path: [],
        message: 'more than one policy file; keep one',
      },
    ]);
  }
  return present[0] && { ...base, ...present[0] };
}

/** Project files by their path inside the project (as a reviewer sees them); others absolute. */
function displayPath(path: string, projectDir: string): string {
  const inside = relative(projectDir, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return path;
  return inside.split(sep).join('/');
}

function serversOf(layer: PolicyFileLayer | undefined): string[] {
  return Object.keys(layer?.mcp?.servers ?? {});
}

function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}
