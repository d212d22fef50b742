/**
 * The `sandbox` section, from the policy file and from Claude Code's settings files, read as
 * Claude Code reads `sandbox.network.allowedDomains` and `sandbox.filesystem.*`; what ci-agent
 * does with it is src/sandbox/.
 *
 * Who decides what: the lists are unions over every source (each only widens what a sandboxed
 * command reaches, and every source is trusted configuration from the base branch). Whether
 * there is a sandbox at all is, for the action, the policy file's alone: `sandbox: off` there,
 * nothing else, runs unsandboxed; a settings file's `"enabled": false` is warned about and
 * changes nothing in the action. The CLI, unsandboxed unless asked (cli/cli-sandbox.ts), reads
 * `enabled` as Claude Code does: the highest-precedence settings file that sets it decides
 * (`--settings` over local over project over user); a `sandbox:` mapping in the policy file
 * turns it on whatever the settings say.
 */
import { resolveDirectory } from './layer.js';
import type { Findings } from './findings.js';

export interface SandboxLayer {
  /** The policy file's `off`, or a settings file's `enabled`. */
  enabled?: boolean;
  allowedDomains: string[];
  /** Absolute paths. */
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
}

export interface LoadedSandbox {
  /** 'off': the policy file says so; 'on': a source asks for it; 'unset': nobody said. */
  mode: 'on' | 'off' | 'unset';
  /** Which file turned it off. */
  offSource?: string;
  allowedDomains: readonly string[];
  allowWrite: readonly string[];
  denyWrite: readonly string[];
  denyRead: readonly string[];
  allowRead: readonly string[];
}

export const FILESYSTEM_KEYS = ['allowWrite', 'denyWrite', 'denyRead', 'allowRead'] as const;
const SETTINGS_KEYS = ['enabled', 'network', 'filesystem'];
/** Claude Code's keys that ci-agent knows and does not follow, with why. */
const NOT_FOLLOWED: Readonly<Record<string, string>> = {
  excludedCommands: 'no command runs outside the sandbox in ci-agent',
  allowUnsandboxedCommands: 'no command runs outside the sandbox in ci-agent',
  autoAllowBashIfSandboxed: 'permission rules decide every Bash call in ci-agent',
  failIfUnavailable: 'ci-agent always fails when the sandbox cannot start',
};

export function emptySandboxLayer(): SandboxLayer {
  return { allowedDomains: [], allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] };
}

/** Paths as the sandbox settings write them: `~/…`, absolute, or relative to the file's project. */
export function resolveSandboxPaths(
  paths: readonly string[],
  anchorDir: string,
  home: string | undefined,
): string[] {
  return paths.map((path) =>
    resolveDirectory(path.startsWith('//') ? path.slice(1) : path, anchorDir, home),
  );
}

/** A settings file's `sandbox` object; bad entries are warned about and dropped. */
export function readSettingsSandbox(
  value: unknown,
  source: { anchorDir: string; home?: string },
  findings: Findings,
): SandboxLayer | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    findings.warn(
      ['sandbox'],
      'expected an object such as {"network": {"allowedDomains": [...]}}; ignored',
    );
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const layer = emptySandboxLayer();
  for (const key of Object.keys(record)) {
    if (SETTINGS_KEYS.includes(key)) continue;
    const why = NOT_FOLLOWED[key];
    findings.warn(
      ['sandbox', key],
      why ? `not followed: ${why}` : 'not used by ci-agent; ignored',
      true,
    );
  }
  if (record.enabled !== undefined) {
    if (typeof record.enabled === 'boolean') layer.enabled = record.enabled;
    else findings.warn(['sandbox', 'enabled'], 'expected true or false; ignored');
    if (record.enabled === false) {
      findings.warn(
        ['sandbox', 'enabled'],
        'only ci-agent -p follows it; the action sandboxes every command the agent causes whatever a settings file says, and only `sandbox: off` in the policy file runs it unsandboxed',
      );
    }
  }
  const network = record.network;
  if (typeof network === 'object' && network !== null && !Array.isArray(network)) {
    const entries = network as Record<string, unknown>;
    layer.allowedDomains = stringList(
      entries.allowedDomains,
      ['sandbox', 'network', 'allowedDomains'],
      findings,
    );
    for (const key of Object.keys(entries)) {
      if (key !== 'allowedDomains') {
        findings.warn(['sandbox', 'network', key], 'not used by ci-agent; ignored', true);
      }
    }
  } else if (network !== undefined) {
    findings.warn(
      ['sandbox', 'network'],
      'expected an object such as {"allowedDomains": ["registry.npmjs.org"]}; ignored',
    );
  }
  const filesystem = record.filesystem;
  if (typeof filesystem === 'object' && filesystem !== null && !Array.isArray(filesystem)) {
    const entries = filesystem as Record<string, unknown>;
    for (const key of FILESYSTEM_KEYS) {
      const list = stringList(entries[key], ['sandbox', 'filesystem', key], findings);
      layer[key] = resolveSandboxPaths(list, source.anchorDir, source.home);
    }
    for (const key of Object.keys(entries)) {
      if (!(FILESYSTEM_KEYS as readonly string[]).includes(key)) {
        findings.warn(['sandbox', 'filesystem', key], 'not used by ci-agent; ignored', true);
      }
    }
  } else if (filesystem !== undefined) {
    findings.warn(
      ['sandbox', 'filesystem'],
      'expected an object such as {"allowWrite": ["~/.npm"]}; ignored',
    );
  }
  return layer;
}

function stringList(value: unknown, path: string[], findings: Findings): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    findings.warn(path, 'expected a list of strings; ignored');
    return [];
  }
  return value.flatMap((entry, index) => {
    if (typeof entry === 'string' && entry.trim() !== '') return [entry.trim()];
    findings.warn([...path, index], 'expected a non-empty string; dropped');
    return [];
  });
}

/**
 * The sources' sections as one: lists joined, the mode as the module header says. `settings` in
 * precedence order, highest first.
 */
export function mergeSandbox(
  policy: { layer?: SandboxLayer; path?: string } | undefined,
  settings: readonly (SandboxLayer | undefined)[],
): LoadedSandbox {
  const layers = [policy?.layer, ...settings].filter((layer) => layer !== undefined);
  const join = (key: 'allowedDomains' | (typeof FILESYSTEM_KEYS)[number]) => [
    ...new Set(layers.flatMap((layer) => layer[key])),
  ];
  const off = policy?.layer?.enabled === false;
  const decider = settings.find((layer) => layer?.enabled !== undefined);
  const on = policy?.layer?.enabled === true || decider?.enabled === true;
  return {
    mode: off ? 'off' : on ? 'on' : 'unset',
    ...(off && policy?.path !== undefined && { offSource: policy.path }),
    allowedDomains: join('allowedDomains'),
    allowWrite: join('allowWrite'),
    denyWrite: join('denyWrite'),
    denyRead: join('denyRead'),
    allowRead: join('allowRead'),
  };
}
