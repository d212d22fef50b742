/**
 * Merging the parsed layers into one frozen LoadedPolicy. Pure: the same layers in any order give
 * the same policy.
 *
 * - rule lists, additional directories and hooks are unions: nothing any source says is lost;
 *   deny beating allow is the decision function's job, which sees every rule with its source
 * - `defaultMode`, each name of the settings files' `env`, and the settings' `sandbox.enabled`:
 *   the highest-precedence source that sets it (policy > --settings > local > project > user)
 * - ask resolution, limits, passed environment, the MCP and push sections come from the policy file alone
 */
import type { HooksConfig } from '../hooks/config.js';
import { EMPTY_MCP_POLICY } from '../mcp/mcp-policy.js';
import { HOOK_EVENTS } from '../hooks/config.js';
import type { AskBehavior, LoadedPolicy, PolicyFileLayer, PolicyLayer } from './types.js';
import { SOURCE_KINDS } from './types.js';
import { mergeSandbox } from './sandbox-settings.js';

export interface MergeInput {
  policy?: PolicyFileLayer;
  settings: readonly PolicyLayer[];
}

export function mergeLayers(input: MergeInput): LoadedPolicy {
  const layers = [...(input.policy ? [input.policy] : []), ...input.settings].sort(byPrecedence);
  const modeLayer = layers.find((layer) => layer.defaultMode !== undefined);
  const byTool = Object.assign(
    Object.create(null) as Record<string, AskBehavior>,
    input.policy?.askResolution?.byTool,
  );
  return deepFreeze({
    sources: layers.map((layer) => ({ ...layer.source })),
    permissions: {
      allow: layers.flatMap((layer) => layer.allow),
      deny: layers.flatMap((layer) => layer.deny),
      ask: layers.flatMap((layer) => layer.ask),
      ...(modeLayer?.defaultMode === undefined
        ? {}
        : { defaultMode: modeLayer.defaultMode, defaultModeSource: modeLayer.source.path }),
      additionalDirectories: [...new Set(layers.flatMap((layer) => layer.additionalDirectories))],
    },
    askResolution: { default: input.policy?.askResolution?.default ?? 'deny', byTool },
    hooks: mergeHooks(layers),
    limits: { ...input.policy?.limits },
    passEnv: [...new Set(input.policy?.passEnv ?? [])],
    // Lowest precedence first, so that a higher one overwrites a name both set.
    env: Object.assign({}, ...layers.toReversed().map((layer) => layer.env ?? {})) as Record<
      string,
      string
    >,
    modelEnv: Object.assign(
      {},
      ...layers
        .toReversed()
        .map((layer) =>
          Object.fromEntries(
            Object.entries(layer.modelEnv ?? {}).map(([name, value]) => [
              name,
              { value, source: layer.source.path },
            ]),
          ),
        ),
    ) as Record<string, { value: string; source: string }>,
    mcp: input.policy?.mcp ?? EMPTY_MCP_POLICY,
    push: { allowCiChanges: input.policy?.push?.allowCiChanges ?? false },
    sandbox: mergeSandbox(
      input.policy && { layer: input.policy.sandbox, path: input.policy.source.path },
      layers.filter((layer) => layer !== input.policy).map((layer) => layer.sandbox),
    ),
    warnings: layers.flatMap((layer) => layer.warnings),
    warningIssues: layers.flatMap((layer) => layer.warningIssues ?? []),
  });
}

function byPrecedence(a: PolicyLayer, b: PolicyLayer): number {
  const rank = SOURCE_KINDS.indexOf(a.source.kind) - SOURCE_KINDS.indexOf(b.source.kind);
  if (rank !== 0) return rank;
  return a.source.path < b.source.path ? -1 : a.source.path > b.source.path ? 1 : 0;
}

/** Every group of every source, in precedence order; the runner dedupes identical commands. */
function mergeHooks(layers: readonly PolicyLayer[]): HooksConfig {
  const hooks: HooksConfig = {};
  for (const event of HOOK_EVENTS) {
    const groups = layers.flatMap((layer) => layer.hooks[event] ?? []);
    if (groups.length > 0) hooks[event] = groups;
  }
  return hooks;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
