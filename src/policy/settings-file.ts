/**
 * A Claude Code settings file (`.claude/settings.json`, `settings.local.json`, `--settings`,
 * `~/.claude/settings.json`), read as Claude Code reads it: what ci-agent does not use is ignored
 * with a warning. Fail closed where ignoring would loosen the policy: a file that is not JSON, a
 * malformed `permissions`, and unreadable deny or ask rules or mode are errors; a bad allow rule is
 * dropped with a warning.
 */
import { readSettingsSandbox } from './sandbox-settings.js';
import type { PermissionMode, PermissionRule } from '../permissions/types.js';
import { PERMISSION_MODES } from '../permissions/types.js';
import { didYouMean } from './did-you-mean.js';
import { parseJson } from './document.js';
import { Findings, isPlainObject } from './findings.js';
import { resolveDirectory } from './layer.js';
import { makeRule, ruleNotice, ruleProblem } from './rule-text.js';
import { readSettingsEnv } from './settings-env.js';
import { readSettingsHooks } from './settings-hooks.js';
import { ruleServerProblem } from './tool-names.js';
import type { PolicyLayer, SourceText } from './types.js';

const TOP_KEYS = ['permissions', 'hooks', 'env', 'sandbox'];
const PERMISSION_KEYS = ['allow', 'deny', 'ask', 'defaultMode', 'additionalDirectories'];
/** `manual` is current Claude Code's name for `default` (docs/CC-COMPAT.md §2.1). */
const MODE_ALIASES: Readonly<Record<string, PermissionMode>> = { manual: 'default' };
/** Modes ci-agent cannot reproduce; ignoring them leaves the stricter default. */
const UNAVAILABLE_MODES = ['auto'];

export function parseSettingsFile(source: SourceText): PolicyLayer {
  const document = parseJson(source.path, source.text);
  const findings = new Findings(source.path, document);
  const layer: PolicyLayer = {
    source: { path: source.path, kind: source.kind },
    allow: [],
    deny: [],
    ask: [],
    additionalDirectories: [],
    hooks: {},
    warnings: findings.warnings,
    warningIssues: findings.warningIssues,
  };
  const value = document.value;
  if (!isPlainObject(value)) {
    findings.fail(
      [],
      'expected a JSON object such as {"permissions": {...}, "hooks": {...}}',
      value,
    );
    findings.throwIfFailed();
    return layer;
  }
  for (const key of Object.keys(value)) {
    if (TOP_KEYS.includes(key) || key === '$schema') continue;
    const hint = didYouMean(key, TOP_KEYS);
    findings.warn(
      [key],
      `ignored; ci-agent reads only "permissions", "hooks", "env" and "sandbox"${hint}`,
      true,
    );
  }
  if (value.permissions !== undefined) readPermissions(value.permissions, source, layer, findings);
  if (value.hooks !== undefined)
    layer.hooks = readSettingsHooks(value.hooks, source.path, findings);
  if (value.env !== undefined) {
    const read = readSettingsEnv(value.env, findings, source.kind);
    layer.env = read.env;
    if (Object.keys(read.modelEnv).length > 0) layer.modelEnv = read.modelEnv;
  }
  if (value.sandbox !== undefined) {
    const sandbox = readSettingsSandbox(value.sandbox, source, findings);
    if (sandbox) layer.sandbox = sandbox;
  }
  findings.throwIfFailed();
  return layer;
}

function readPermissions(
  permissions: unknown,
  source: SourceText,
  layer: PolicyLayer,
  findings: Findings,
): void {
  if (!isPlainObject(permissions)) {
    findings.fail(
      ['permissions'],
      'expected an object with allow, deny, ask and defaultMode',
      permissions,
    );
    return;
  }
  for (const key of Object.keys(permissions)) {
    if (PERMISSION_KEYS.includes(key)) continue;
    const hint = didYouMean(key, PERMISSION_KEYS);
    findings.warn(['permissions', key], `not used by ci-agent; ignored${hint}`, true);
  }
  layer.allow = readRules('allow', permissions.allow, source, findings);
  layer.deny = readRules('deny', permissions.deny, source, findings);
  layer.ask = readRules('ask', permissions.ask, source, findings);
  const mode = readMode(permissions.defaultMode, findings);
  if (mode !== undefined) layer.defaultMode = mode;
  layer.additionalDirectories = readDirectories(
    permissions.additionalDirectories,
    source,
    findings,
  );
}

/** Deny and ask rules fail closed: dropping one would allow what the file meant to stop. */
function readRules(
  kind: 'allow' | 'deny' | 'ask',
  list: unknown,
  source: SourceText,
  findings: Findings,
): PermissionRule[] {
  const path = ['permissions', kind];
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    if (kind === 'allow') findings.warn(path, 'expected a list of permission rules; ignored');
    else findings.fail(path, 'expected a list of permission rule strings', list);
    return [];
  }
  const rules: PermissionRule[] = [];
  for (const [index, text] of list.entries()) {
    const problem =
      typeof text === 'string' ? ruleProblem(text) : 'expected a permission rule string';
    if (problem === undefined) {
      const rule = makeRule(text as string, source.path, source.anchorDir);
      // Kept: the decision already treats such a rule as written (never allows, fails closed).
      const notice =
        ruleNotice(rule, kind) ??
        (source.mcpServers && ruleServerProblem(rule, kind, source.mcpServers));
      if (notice !== undefined) findings.warn([...path, index], notice);
      rules.push(rule);
    } else if (kind === 'allow') {
      findings.warn([...path, index], `${problem}; rule ${JSON.stringify(text)} dropped`);
    } else {
      findings.fail([...path, index], problem, text);
    }
  }
  return rules;
}

function readMode(mode: unknown, findings: Findings): PermissionMode | undefined {
  const path = ['permissions', 'defaultMode'];
  if (mode === undefined) return undefined;
  if (typeof mode === 'string') {
    if ((PERMISSION_MODES as readonly string[]).includes(mode)) return mode as PermissionMode;
    if (Object.hasOwn(MODE_ALIASES, mode)) return MODE_ALIASES[mode];
    if (UNAVAILABLE_MODES.includes(mode)) {
      findings.warn(path, `the ${mode} mode is not available in ci-agent; ignored`);
      return undefined;
    }
  }
  // An unreadable mode may have meant a stricter one (plan, dontAsk): refuse to guess.
  findings.fail(path, `expected one of ${PERMISSION_MODES.join(', ')}`, mode);
  return undefined;
}

/** Fewer directories is never looser, so bad entries are dropped with a warning. */
function readDirectories(list: unknown, source: SourceText, findings: Findings): string[] {
  const path = ['permissions', 'additionalDirectories'];
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    findings.warn(path, 'expected a list of directory paths; ignored');
    return [];
  }
  return list.flatMap((dir, index) => {
    if (typeof dir === 'string' && dir.trim() !== '') {
      return [resolveDirectory(dir, source.anchorDir, source.home)];
    }
    findings.warn([...path, index], 'expected a directory path; dropped');
    return [];
  });
}
