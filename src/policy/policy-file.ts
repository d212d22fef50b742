/**
 * The ci-agent policy file: text → validated layer, or one PolicyError listing every problem.
 *
 * 1. parse: `.json` strictly as JSON, anything else as YAML 1.2 (which also reads JSON)
 * 2. validate with the strict schema; each zod issue becomes a line naming file, line:column,
 *    path, the value found and the form expected
 * 3. normalize: rules with source and anchor, absolute directories, hooks with their source
 */
import * as z from 'zod';
import type { HookEventName, HooksConfig } from '../hooks/config.js';
import {
  UNSUPPORTED_HANDLER_KEYS,
  UNSUPPORTED_HOOK_EVENTS,
  TOOL_ALIASES,
} from './claude-code-names.js';
import { didYouMean } from './did-you-mean.js';
import type { ParsedDocument } from './document.js';
import { parseJson, parseYaml } from './document.js';
import { resolveDirectory } from './layer.js';
import { emptySandboxLayer, resolveSandboxPaths, type SandboxLayer } from './sandbox-settings.js';
import { normalizeMcpPolicy } from '../mcp/mcp-policy.js';
import type { PathSegment, PolicyIssue } from './policy-error.js';
import { describeValue, formatIssue, PolicyError } from './policy-error.js';
import type { PolicyFileContent } from './policy-schema.js';
import { policyFileSchema } from './policy-schema.js';
import { makeRule } from './rule-text.js';
import { ruleServerProblem } from './tool-names.js';
import type { AskBehavior, PolicyFileLayer, SourceText } from './types.js';

export function parsePolicyFile(source: SourceText): PolicyFileLayer {
  const document = source.path.endsWith('.json')
    ? parseJson(source.path, source.text)
    : parseYaml(source.path, source.text);
  // An empty YAML file is an empty policy: every default applies.
  const value = document.value ?? {};
  const result = policyFileSchema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.flatMap((issue) =>
      toIssues(issue, [], source.path, value, document),
    );
    throw new PolicyError(issues.sort(byPosition));
  }
  const layer = normalize(result.data, source);
  const unconfigured = unconfiguredServerWarnings(result.data, source, document);
  layer.warnings.push(...unconfigured.map(formatIssue));
  layer.warningIssues = unconfigured;
  return layer;
}

/** Rules naming an MCP server neither this file nor the other sources configure. */
function unconfiguredServerWarnings(
  content: PolicyFileContent,
  source: SourceText,
  document: ParsedDocument,
): PolicyIssue[] {
  if (source.mcpServers === undefined) return [];
  const servers = new Set([...source.mcpServers, ...Object.keys(content.mcp?.servers ?? {})]);
  return (['allow', 'deny', 'ask'] as const).flatMap((kind) =>
    (content.permissions?.[kind] ?? []).flatMap((text, index) => {
      const problem = ruleServerProblem(makeRule(text, source.path, ''), kind, servers);
      if (problem === undefined) return [];
      const path = ['permissions', kind, index];
      return [{ file: source.path, path, ...document.locate(path), message: problem }];
    }),
  );
}

function normalize(content: PolicyFileContent, source: SourceText): PolicyFileLayer {
  const { permissions = {}, limits = {}, env = {} } = content;
  const rules = (list: readonly string[] = []) =>
    list.map((text) => makeRule(text, source.path, source.anchorDir));
  const byTool: Record<string, AskBehavior> = Object.create(null) as Record<string, AskBehavior>;
  for (const [name, behavior] of Object.entries(permissions.onAsk?.tools ?? {})) {
    byTool[Object.hasOwn(TOOL_ALIASES, name) ? (TOOL_ALIASES[name] as string) : name] = behavior;
  }
  const hooks: HooksConfig = {};
  for (const [event, groups] of Object.entries(content.hooks ?? {})) {
    if (!groups) continue;
    hooks[event as HookEventName] = groups.map((group) => ({
      ...(group.matcher === undefined ? {} : { matcher: group.matcher }),
      hooks: group.hooks.map((handler) => ({ ...handler, source: source.path })),
    }));
  }
  return {
    source: { path: source.path, kind: source.kind },
    allow: rules(permissions.allow),
    deny: rules(permissions.deny),
    ask: rules(permissions.ask),
    ...(permissions.defaultMode === undefined ? {} : { defaultMode: permissions.defaultMode }),
    additionalDirectories: (permissions.additionalDirectories ?? []).map((dir) =>
      resolveDirectory(dir, source.anchorDir, source.home),
    ),
    hooks,
    warnings: [],
    askResolution: {
      ...(permissions.onAsk?.default === undefined ? {} : { default: permissions.onAsk.default }),
      byTool,
    },
    limits,
    passEnv: env.passEnv ?? [],
    mcp: normalizeMcpPolicy(content.mcp, source.path),
    push: { allowCiChanges: content.push?.allowCiChanges ?? false },
    ...(content.sandbox !== undefined && { sandbox: policySandbox(content.sandbox, source) }),
    ...(content.settings === undefined
      ? {}
      : { settingsFiles: content.settings === false ? [] : content.settings }),
  };
}

function policySandbox(
  value: NonNullable<PolicyFileContent['sandbox']>,
  source: { anchorDir: string; home?: string },
): SandboxLayer {
  if (value === 'off' || value === false) return { ...emptySandboxLayer(), enabled: false };
  const paths = (list: readonly string[] | undefined) =>
    resolveSandboxPaths(list ?? [], source.anchorDir, source.home);
  return {
    enabled: true,
    allowedDomains: [...(value.network?.allowedDomains ?? [])],
    allowWrite: paths(value.filesystem?.allowWrite),
    denyWrite: paths(value.filesystem?.denyWrite),
    denyRead: paths(value.filesystem?.denyRead),
    allowRead: paths(value.filesystem?.allowRead),
  };
}

type ZodIssue = z.core.$ZodIssue;

function toIssues(
  issue: ZodIssue,
  prefix: readonly PathSegment[],
  file: string,
  root: unknown,
  document: ParsedDocument,
): PolicyIssue[] {
  const path = [
    ...prefix,
    ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))),
  ];
  if (issue.code === 'invalid_union') {
    // Report inside the one alternative the value was meant to be (a list with a bad entry),
    // rather than "expected a list or false".
    const meant = issue.errors.filter((branch) => !branch.every(isTopLevelMismatch));
    if (meant.length === 1 && meant[0]) {
      return meant[0].flatMap((inner) => toIssues(inner, path, file, root, document));
    }
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      file,
      path: [...path, key],
      ...document.locate([...path, key], { key: true }),
      message: unknownKeyMessage(path, key),
    }));
  }
  const value = valueAt(root, path);
  const complete = issue.code === 'custom' && issue.params?.complete === true;
  const message = complete
    ? issue.message
    : value === undefined
      ? `missing; ${issue.message}`
      : `${issue.message}, got ${describeValue(value)}`;
  return [{ file, path, ...document.locate(path), message }];
}

/** Reading order; issues without a position (the whole file) first. */
function byPosition(a: PolicyIssue, b: PolicyIssue): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

function isTopLevelMismatch(issue: ZodIssue): boolean {
  return (
    issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value')
  );
}

function unknownKeyMessage(objectPath: readonly PathSegment[], key: string): string {
  const where = objectPath.filter((segment) => typeof segment === 'string').join('.');
  if (where === 'hooks' && UNSUPPORTED_HOOK_EVENTS.includes(key)) {
    return `ci-agent does not run ${key} hooks; supported events: ${knownKeys(objectPath).join(', ')}`;
  }
  if (/^hooks\.\w+\.hooks$/.test(where) && UNSUPPORTED_HANDLER_KEYS.includes(key)) {
    return `the Claude Code hook field ${JSON.stringify(key)} is not supported by ci-agent`;
  }
  const known = knownKeys(objectPath);
  const suggestion = didYouMean(key, known);
  return `unknown key ${JSON.stringify(key)}${suggestion || `; expected one of: ${known.join(', ')}`}`;
}

/** The keys the schema allows for the object at `path`. */
function knownKeys(path: readonly PathSegment[]): string[] {
  let schema: z.ZodType | undefined = policyFileSchema;
  for (const segment of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject)
      schema = (schema.shape as Record<string, z.ZodType>)[String(segment)];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    else return [];
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  return current;
}

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}
