/**
 * Read and Edit rules: gitignore-style paths (docs/CC-COMPAT.md §2.4, docs/DECISIONS.md #12).
 *
 * Anchors:
 *   `//abs/path`       the filesystem root
 *   `~/path`           the home directory
 *   `/path`            the rule's anchorDir (set by where the rule came from), else the project
 *   `path`, `./path`   the project directory
 * Then gitignore: `*` within a segment, `**` across segments; a pattern without a slash (a
 * trailing one aside) matches at any depth below its anchor (`Read(.env)` ≡ `Read(**\/.env)`);
 * a pattern that matches a directory matches everything inside it. A single-segment `dir/**`
 * matches at any depth in deny and ask rules but only `<project>/dir` in allow rules.
 *
 * Which tools a rule reaches:
 *   Read(…)  Read and, best effort, the search tools; as a deny or ask rule also the edit tools
 *            (what may not be read may not be written);
 *   Edit(…)  Edit, Write, NotebookEdit; as an allow rule also everything Read(…) reaches.
 * A search tool's target is the directory searched: a rule reaches it only when it covers the
 * whole directory (the directory itself, an ancestor, or any entry in it: `src/**`, `src/*`). A
 * deny on one file inside leaves the search allowed; the search tools skip denied files.
 *
 * Symlinks: the request carries the path as given and its resolved target. Deny and ask rules
 * match when either matches; an allow rule must match every one. A rule that cannot be evaluated
 * (no project or home directory known, no path in the request) never allows and always denies.
 *
 * Files a command names (Bash's `fileOperands`) meet deny and ask rules only: a read as a Read
 * call would, a write as an Edit. A shell pattern, expanded only when the command runs, is
 * compared name to name with the rule's last segment (pathRuleMatchesOperand).
 */
import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { FileOperand } from '../tools/tool.js';
import type { PermissionRule } from './types.js';

type RuleKind = 'allow' | 'deny' | 'ask';

export interface PathTarget {
  toolName: string;
  /** Absolute paths the call touches: the path as given and its symlink-resolved target. */
  paths: readonly string[];
  projectDir?: string;
  homeDir?: string;
}

const READ_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LS']);
const EDIT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);
/** Tools whose target is a directory searched rather than a file read. */
const SEARCH_TOOLS = new Set(['Glob', 'Grep', 'LS']);
/** An entry name no real pattern singles out: "does the rule cover any entry of this directory". */
const PROBE_ENTRY = '\u0001any-entry';

/** Whether a Read(…) or Edit(…) rule of this kind applies to calls of this tool at all. */
export function pathRuleReaches(ruleTool: string, targetTool: string, kind: RuleKind): boolean {
  if (ruleTool === 'Read')
    return READ_TOOLS.has(targetTool) || (kind !== 'allow' && EDIT_TOOLS.has(targetTool));
  if (ruleTool === 'Edit')
    return EDIT_TOOLS.has(targetTool) || (kind === 'allow' && READ_TOOLS.has(targetTool));
  return false;
}

type Anchor = 'root' | 'home' | 'source' | 'project';

interface PathPattern {
  anchor: Anchor;
  /** Leading `..` segments: the base is that many levels above the anchor. */
  up: number;
  /** Empty: the base itself and everything below it. */
  glob: string;
  matches: (relative: string) => boolean;
}

const compiled = new WeakMap<PermissionRule, Map<boolean, PathPattern>>();

function patternOf(rule: PermissionRule, specifier: string, kind: RuleKind): PathPattern {
  const forAllow = kind === 'allow';
  let byKind = compiled.get(rule);
  if (!byKind) compiled.set(rule, (byKind = new Map<boolean, PathPattern>()));
  let pattern = byKind.get(forAllow);
  if (!pattern) byKind.set(forAllow, (pattern = compilePathPattern(specifier, forAllow)));
  return pattern;
}

export function compilePathPattern(specifier: string, forAllow: boolean): PathPattern {
  let anchor: Anchor = 'project';
  let rest = specifier;
  let anchored = true;
  if (specifier.startsWith('//')) [anchor, rest] = ['root', specifier.slice(2)];
  else if (specifier === '~' || specifier.startsWith('~/'))
    [anchor, rest] = ['home', specifier.slice(2)];
  else if (specifier.startsWith('/')) [anchor, rest] = ['source', specifier.slice(1)];
  else if (specifier.startsWith('./')) rest = specifier.slice(2);
  else {
    const trimmed = specifier.replace(/\/+$/, '');
    const singleSegmentTree = /^[^/]+\/\*\*$/.test(trimmed);
    anchored = singleSegmentTree ? forAllow : trimmed.includes('/');
  }
  let glob = rest.replace(/\/+$/, '');
  glob = glob === '' ? '' : posix.normalize(glob);
  let up = 0;
  while (glob === '..' || glob.startsWith('../')) {
    up++;
    glob = glob.slice(3);
  }
  if (glob === '.') glob = '';
  if (glob !== '' && !anchored) glob = `**/${glob}`;
  const matcher = glob === '' ? () => true : picomatch(glob, { dot: true, nonegate: true });
  return { anchor, up, glob, matches: (relative) => matcher(relative) };
}

export function pathRuleMatches(
  rule: PermissionRule,
  specifier: string,
  target: PathTarget,
  kind: RuleKind,
): boolean {
  const pattern = patternOf(rule, specifier, kind);
  const base = baseOf(pattern, rule, target);
  const paths = target.paths;
  if (base === undefined || paths.length === 0 || !paths.every((path) => posix.isAbsolute(path))) {
    return kind !== 'allow';
  }
  const search = SEARCH_TOOLS.has(target.toolName);
  const test = (path: string) => covers(pattern, base, path, search);
  return kind === 'allow' ? paths.every(test) : paths.some(test);
}

function baseOf(
  pattern: PathPattern,
  rule: PermissionRule,
  target: PathTarget,
): string | undefined {
  const anchors: Record<Anchor, string | undefined> = {
    root: '/',
    home: target.homeDir,
    source: rule.anchorDir ?? target.projectDir,
    project: target.projectDir,
  };
  let base = anchors[pattern.anchor];
  for (let level = 0; base !== undefined && level < pattern.up; level++) base = posix.dirname(base);
  return base;
}

/** The path itself, one of its ancestors below the base, or (for a search) any entry in it. */
function covers(pattern: PathPattern, base: string, path: string, search: boolean): boolean {
  const relative = posix.relative(base, path);
  if (relative === '..' || relative.startsWith('../') || posix.isAbsolute(relative)) return false;
  if (pattern.glob === '') return true;
  if (relative !== '') {
    const segments = relative.split('/');
    for (let length = segments.length; length > 0; length--) {
      if (pattern.matches(segments.slice(0, length).join('/'))) return true;
    }
  }
  return search && pattern.matches(relative === '' ? PROBE_ENTRY : `${relative}/${PROBE_ENTRY}`);
}

/**
 * Whether a Read(…) or Edit(…) deny or ask rule meets a file a command reads or writes. For a
 * shell pattern: the pattern taken as a name (`src/*.ts` is inside `src/**`), then a name both the
 * pattern and the rule's last segment can stand for (`.e*` and `.env`, `$DIR/key.pem` and
 * `*.pem`): in a known directory that name is checked there; in one only known at run time
 * (`*\/.env`, `$DIR/.env`) the shared name is enough. Two patterns are not compared with each
 * other (`Read(*.pem)` and `cat *`): the files they match on disk are operands of their own.
 */
export function pathRuleMatchesOperand(
  rule: PermissionRule,
  specifier: string,
  operand: FileOperand,
  anchors: { projectDir?: string; homeDir?: string },
  kind: 'deny' | 'ask',
): boolean {
  const toolName = operand.access === 'read' ? 'Read' : 'Edit';
  if (!pathRuleReaches(rule.toolName, toolName, kind)) return false;
  const test = (path: string) =>
    pathRuleMatches(rule, specifier, { ...anchors, toolName, paths: [path] }, kind);
  if (test(operand.path)) return true;
  if (!operand.pattern) return false;
  const directory = posix.dirname(operand.path);
  const name = posix.basename(operand.path);
  const ruleName = lastName(patternOf(rule, specifier, kind).glob);
  const shared =
    ruleName === undefined ? undefined : sharedName(ruleName, name, operand.pattern.dot);
  if (shared === undefined) return false;
  return isPattern(directory) || test(posix.join(directory, shared));
}

/** The rule's last literal-or-glob segment, `dir/**` counting as `dir`; undefined for `**`. */
function lastName(glob: string): string | undefined {
  const trimmed = glob.replace(/(\/\*\*)+$/, '');
  const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  return name === '' || name === '**' ? undefined : name;
}

/** A file name both can stand for, when one of them is literal. */
function sharedName(ruleName: string, name: string, dot: boolean): string | undefined {
  if (!isPattern(ruleName)) return globMatches(name, ruleName, dot) ? ruleName : undefined;
  if (!isPattern(name)) return globMatches(ruleName, name, true) ? name : undefined;
  return undefined;
}

function isPattern(text: string): boolean {
  return picomatch.scan(text).isGlob;
}

function globMatches(glob: string, name: string, dot: boolean): boolean {
  try {
    return picomatch(glob, { dot, nonegate: true })(name);
  } catch {
    // A pattern picomatch cannot read: the shell may still expand it, so assume the worst.
    return true;
  }
}
